/* Default mode: benchmark the built-in synthetic field workload in this
 * process with spacrbench_benchmark (whose runner clamps the warm-up and
 * says so), then report and recommend on one machine snapshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
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

/* --size WxH sets both sides; --width and --height one each. */
static int opt_size(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    if (cli_parse_size(v, &a->field.width, &a->field.height) != 0)
        return cli_usage_error(name,
                               "expected WIDTHxHEIGHT such as 2048x2048, each a whole number "
                               "from 1 to 2147483647, got '%s'",
                               v);
    a->width_from = a->height_from = "--size";
    return CLI_EXIT_OK;
}

static int opt_side(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    int width = o->min == 'w';
    if (cli_parse_int(v, 1, INT32_MAX, width ? &a->field.width : &a->field.height) != 0)
        return cli_usage_error(
            name, "expected a whole number of pixels from 1 to 2147483647, got '%s'", v);
    *(width ? &a->width_from : &a->height_from) = width ? "--width" : "--height";
    return CLI_EXIT_OK;
}

static const cli_option k_workload[] = {
    {"size", 0, "WxH", "field size in pixels (default 2048x2048)", opt_size, 0, 0, 0,
     CLI_COMPLETE_NONE, NULL},
    {"width", 0, "N", "field width in pixels (as --size)", opt_side, 0, 'w', 0, CLI_COMPLETE_NONE,
     NULL},
    {"height", 0, "N", "field height in pixels (as --size)", opt_side, 0, 'h', 0, CLI_COMPLETE_NONE,
     NULL},
    {"channels", 0, "N", "channels per field (default 4)", cli_opt_int, CLI_FIELD(field.channels),
     1, 64, CLI_COMPLETE_NONE, NULL},
    {"fields", 0, "N", "fields to process, warm-up included (default 3)", cli_opt_int,
     CLI_FIELD(fields), 1, 100000, CLI_COMPLETE_NONE, NULL},
    {"gpu", 0, NULL, "smooth and threshold each field on a CUDA device", cli_opt_flag,
     CLI_FIELD(gpu), 0, 0, CLI_COMPLETE_NONE, NULL},
    {"warmup", 0, "N", "first N fields excluded from the timing (default 1)", cli_opt_int,
     CLI_FIELD(warmup), 0, 100000, CLI_COMPLETE_NONE, NULL},
    {"interval", 0, "PERIOD",
     "how often the sampler reads memory where the peak is not the kernel's "
     "exact high-water mark, and VRAM with --gpu: 10ms (the default), 500us, 0.5s",
     cli_opt_interval, CLI_FIELD(interval_us), 1, 10000000, CLI_COMPLETE_NONE, NULL},
};

static const cli_section k_workload_section =
    CLI_SECTION("default mode (synthetic 16-bit fields: smooth, Otsu threshold, label, "
                "measure)",
                k_workload);
static const cli_section *const k_sections[] = {&k_workload_section, &cli_common_section,
                                                &cli_info_section};

/* Checks that need the whole command line. */
static int check_demo(cli_args *a, int argc, char **argv, int first_arg)
{
    if (first_arg < argc || strcmp(argv[argc - 1], "--") == 0)
        return cli_usage_error("--", "only 'spacrbench run' takes a command");
    const char *problem = field_params_problem(&a->field);
    if (problem)
        return cli_usage_error(strncmp(problem, "width", 5) == 0    ? a->width_from
                               : strncmp(problem, "height", 6) == 0 ? a->height_from
                                                                    : "--channels",
                               "%s", problem);
    /* With several fields, a warm-up covering them all is a mistake; a
     * single field is simply measured (the library clamps and says so). */
    if (a->warmup >= a->fields && a->fields > 1)
        return cli_usage_error("--warmup",
                               "%lld warm-up field(s) leave none of the %lld to measure",
                               (long long)a->warmup, (long long)a->fields);
    return CLI_EXIT_OK;
}

const cli_command cli_demo_command = {
    NULL,
    "[options]",
    "benchmark a built-in field workload",
    "Measures what ONE worker needs (time, peak memory, cores kept busy) by running "
    "items serially, reads what this machine, container or job can give, and "
    "recommends a worker count = min(usable cores / cores per worker, (available "
    "memory - reserve) / per-worker need, (free VRAM - VRAM reserve) / per-worker "
    "VRAM where a GPU was used, maximum). It measures; it never changes a setting. "
    "With no command it measures a built-in synthetic field workload.",
    CLI_SECTIONS(k_sections),
    0,
    check_demo,
    NULL,
};

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
        cli_progress("%s", line);
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
    if (!ptrs)
        return cli_error(CLI_EXIT_ERROR, "out of memory");
    for (int64_t i = 0; i < a->fields; i++) {
        d->items[i].params = a->field;
        d->items[i].params.seed = a->field.seed + (uint64_t)i; /* a different field each */
        ptrs[i] = &d->items[i];
    }
    spacrbench_options opts;
    spacrbench_options_init(&opts, sizeof opts);
    opts.warmup = a->warmup;
    opts.flags |= SPACRBENCH_FLAG_TIMELINE;   /* memory over time, for --json and --plot */
    opts.sample_interval_us = a->interval_us; /* 0: the library's 10 ms */
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
        return cli_error(CLI_EXIT_ERROR, "field %lld: CUDA error: %s", (long long)stopped + 1,
                         field_gpu_error());
    if (rc == SPACRBENCH_EUSER)
        return cli_error(CLI_EXIT_ERROR, "field %lld: not enough memory for a %lldx%lldx%lld field",
                         (long long)spacrbench_last_stopped_item() + 1, (long long)a->field.width,
                         (long long)a->field.height, (long long)a->field.channels);
    return cli_library_error(CLI_EXIT_ERROR, NULL);
}

int demo_main(int argc, char **argv)
{
    cli_args a;
    cli_args_init(&a, CLI_MODE_DEMO);
    int rc = cli_args_parse(&a, argc, argv);
    cli_args_free(&a); /* the demo takes no items */
    if (rc != CLI_EXIT_OK || a.done)
        return rc;
    /* A plot that cannot be drawn is refused before the run, not after it
     * (elsewhere than Linux, cmd_run.c's words). */
    if (a.common.plot_path && (rc = run_plot_ready()) != CLI_EXIT_OK)
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
    if (!d.items)
        return cli_error(CLI_EXIT_ERROR, "out of memory");
    rc = measure(&a, &d, &m);
    if (rc == CLI_EXIT_OK) {
        cli_note(m,
                 "workload: built-in synthetic %lldx%lld field, %lld "
                 "channel(s), %lld field(s)%s",
                 (long long)a.field.width, (long long)a.field.height, (long long)a.field.channels,
                 (long long)a.fields, a.gpu ? "; smoothed and thresholded on the CUDA device" : "");
        cli_context ctx = {.mode = "demo", .describe = describe, .describe_arg = &d};
        spacrbench_recommendation rec;
        rc = cli_finish(&a.common, m, machine, cli_recommend(&a.common, m, machine, &rec), &ctx);
    }
    spacrbench_measurement_free(m);
    free(d.items);
    return rc;
}
