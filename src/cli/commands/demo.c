/* Default mode: benchmark the built-in synthetic field workload in this
 * process with spacrbench_benchmark (whose runner clamps the warm-up and
 * says so), then report and recommend on one machine snapshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_args.h"
#include "cli_output.h"
#include "commands.h"
#include "field_gpu.h"
#include "field_gpu_layout.h"
#include "field_workload.h"

typedef struct field_item {
    field_params params;
    field_summary summary;
    int result;
} field_item;

typedef struct demo_run {
    const cli_args *args;
    field_item *items;
} demo_run;

/* payload: the --gpu flag. */
static int field_work(void *item, void *payload)
{
    const int *gpu = payload;
    field_item *it = item;
    it->result = *gpu ? field_gpu_process(&it->params, &it->summary)
                      : field_process(&it->params, &it->summary);
    return it->result == 0 ? 0 : 1;
}

static int show_progress(const spacrbench_progress *p, void *payload)
{
    (void)payload;
    char line[256];
    if (spacrbench_format_progress(p, NULL, line, sizeof line) >= 0)
        fprintf(stderr, "%s\n", line);
    return 0;
}

static void describe(json_writer *w, const void *arg, const spacrbench_measurement *m)
{
    const demo_run *d = arg;
    const cli_args *a = d->args;
    spacrbench_figures f = {.size = sizeof f};
    spacrbench_measurement_figures(m, &f);
    json_begin_object(w, "workload");
    json_string(w, "name", "synthetic field: smooth, Otsu threshold, label, measure");
    json_string(w, "device", a->gpu ? "cuda" : "cpu");
    json_int(w, "width", a->field.width);
    json_int(w, "height", a->field.height);
    json_int(w, "channels", a->field.channels);
    json_int(w, "fields", a->fields);
    json_int(w, "warmup", f.warmup_items); /* as used: the library may clamp */
    json_int(w, "estimated_bytes_per_field", field_estimated_bytes(&a->field));
    if (a->gpu) /* the GPU check's truth for the measured VRAM peak */
        json_int(w, "device_bytes_per_field", field_gpu_device_bytes(&a->field));
    json_begin_array(w, "objects_per_field");
    for (int64_t i = 0; i < a->fields; i++)
        json_int(w, NULL, d->items[i].summary.objects);
    json_end_array(w);
    json_end_object(w);
}

/* Refuse a field that cannot fit rather than let the kernel kill us. */
static int check_fits(const cli_args *a, const spacrbench_machine *machine)
{
    int64_t need = field_estimated_bytes(&a->field);
    int64_t avail = machine ? machine->available_bytes : 0;
    if (avail <= 0 || need <= avail)
        return CLI_EXIT_OK;
    char n[32], av[32];
    spacrbench_format_bytes(need, n, sizeof n);
    spacrbench_format_bytes(avail, av, sizeof av);
    return cli_usage_error("--size",
                           "one %lldx%lldx%lld field needs about %s; only %s is "
                           "available",
                           (long long)a->field.width, (long long)a->field.height,
                           (long long)a->field.channels, n, av);
}

static int measure(const cli_args *a, demo_run *d, spacrbench_measurement **m)
{
    void **ptrs = calloc((size_t)a->fields, sizeof *ptrs);
    if (!ptrs) {
        fprintf(stderr, "spacrbench: out of memory\n");
        return CLI_EXIT_ERROR;
    }
    for (int64_t i = 0; i < a->fields; i++) {
        d->items[i].params = a->field;
        d->items[i].params.seed = a->field.seed + (uint64_t)i; /* a different field each */
        ptrs[i] = &d->items[i];
    }
    spacrbench_options opts;
    spacrbench_options_init(&opts, sizeof opts);
    opts.warmup = a->warmup;
    opts.flags |= SPACRBENCH_FLAG_TIMELINE; /* memory over time, for --json and --plot */
    if (!a->common.quiet && isatty(STDERR_FILENO))
        opts.progress = show_progress;
    int gpu = a->gpu;
    int rc = spacrbench_benchmark(field_work, ptrs, (size_t)a->fields, &gpu, &opts, m);
    free(ptrs);
    if (rc == 0)
        return CLI_EXIT_OK;
    int64_t stopped = spacrbench_last_stopped_item();
    if (rc == SPACRBENCH_EUSER && stopped >= 0 && stopped < a->fields &&
        d->items[stopped].result == -3)
        fprintf(stderr, "spacrbench: field %lld: CUDA error: %s\n", (long long)stopped + 1,
                field_gpu_error());
    else if (rc == SPACRBENCH_EUSER)
        fprintf(stderr, "spacrbench: field %lld: not enough memory for a %lldx%lldx%lld field\n",
                (long long)spacrbench_last_stopped_item() + 1, (long long)a->field.width,
                (long long)a->field.height, (long long)a->field.channels);
    else
        fprintf(stderr, "spacrbench: %s\n", spacrbench_last_error_message());
    return CLI_EXIT_ERROR;
}

int demo_main(int argc, char **argv)
{
    cli_args a;
    cli_args_init(&a, CLI_MODE_DEMO);
    int rc = cli_args_parse(&a, argc, argv);
    cli_args_free(&a); /* the demo takes no items */
    if (rc != CLI_EXIT_OK || a.done)
        return rc;
    char why[512];
    /* Before any CUDA context: a machine without a device stays untouched. */
    if (a.gpu && field_gpu_check(why, sizeof why) != 0)
        return cli_usage_error("--gpu", "%s", why);

    /* One discovery for the whole run: the size check, the recommendation
     * and the JSON "machine" all use this snapshot. */
    spacrbench_machine machine_value = {.size = sizeof machine_value};
    const spacrbench_machine *machine =
        spacrbench_discover(&machine_value) == 0 ? &machine_value : NULL;
    if ((rc = check_fits(&a, machine)) != CLI_EXIT_OK)
        return rc;
    demo_run d = {&a, calloc((size_t)a.fields, sizeof(field_item))};
    spacrbench_measurement *m = NULL;
    if (!d.items) {
        fprintf(stderr, "spacrbench: out of memory\n");
        return CLI_EXIT_ERROR;
    }
    rc = measure(&a, &d, &m);
    if (rc == CLI_EXIT_OK) {
        char note[256];
        snprintf(note, sizeof note,
                 "workload: built-in synthetic %lldx%lld field, %lld "
                 "channel(s), %lld field(s)%s",
                 (long long)a.field.width, (long long)a.field.height, (long long)a.field.channels,
                 (long long)a.fields, a.gpu ? "; smoothed and thresholded on the CUDA device" : "");
        spacrbench_measurement_add_note(m, note);
        cli_context ctx = {"demo", NULL, 0, describe, &d, NULL};
        rc = cli_finish(&a.common, m, machine, &ctx);
    }
    spacrbench_measurement_free(m);
    free(d.items);
    return rc;
}
