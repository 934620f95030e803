/* Default mode: benchmark the built-in synthetic field workload in this
 * process with spacrbench_benchmark, then report and recommend. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_modes.h"
#include "cli_options.h"
#include "cli_output.h"
#include "field_workload.h"

typedef struct field_item {
    field_params params;
    field_summary summary;
    int result;
} field_item;

typedef struct demo_config {
    field_params field; /* seed is the base seed */
    int64_t fields;
    int64_t warmup;
    field_item *items;
} demo_config;

static int field_work(void *item, void *payload)
{
    (void)payload;
    field_item *it = item;
    it->result = field_process(&it->params, &it->summary);
    return it->result == 0 ? 0 : 1;
}

static int show_progress(const spacrbench_progress *p, void *payload)
{
    (void)payload;
    char peak[32];
    cli_format_bytes(peak, sizeof peak, p->item_peak_rss_bytes);
    fprintf(stderr, "field %lld/%lld%s done in %.2f s, peak %s\n", (long long)p->index + 1,
            (long long)p->total, p->is_warmup ? " (warm-up)" : "", p->item_seconds, peak);
    return 0;
}

static void describe(json_writer *w, const void *arg)
{
    const demo_config *d = arg;
    json_begin_object(w, "workload");
    json_string(w, "name", "synthetic field: smooth, Otsu threshold, label, measure");
    json_int(w, "width", d->field.width);
    json_int(w, "height", d->field.height);
    json_int(w, "channels", d->field.channels);
    json_int(w, "fields", d->fields);
    json_int(w, "warmup", d->warmup);
    json_int(w, "estimated_bytes_per_field", field_estimated_bytes(&d->field));
    json_begin_array(w, "objects_per_field");
    for (int64_t i = 0; i < d->fields; i++)
        json_int(w, NULL, d->items[i].summary.objects);
    json_end_array(w);
    json_end_object(w);
}

static int parse_demo(int argc, char **argv, demo_config *d, cli_common *c)
{
    /* Which option last set each side, to name it in an error. */
    const char *width_from = "--size", *height_from = "--size";
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *v;
        int used = cli_parse_common(argc, argv, &i, c);
        if (used < 0)
            return -used;
        if (used)
            continue;
        if (cli_is_option(arg, "--size")) {
            if (!(v = cli_option_value(argc, argv, &i, "--size")))
                return CLI_EXIT_USAGE;
            if (cli_parse_size(v, &d->field.width, &d->field.height) != 0)
                return cli_usage_error("--size", "expected WIDTHxHEIGHT such as 2048x2048, got '%s'", v);
            width_from = height_from = "--size";
        } else if (cli_is_option(arg, "--width") || cli_is_option(arg, "--height")) {
            const char *name = cli_is_option(arg, "--width") ? "--width" : "--height";
            if (!(v = cli_option_value(argc, argv, &i, name)))
                return CLI_EXIT_USAGE;
            int64_t *dst = name[2] == 'w' ? &d->field.width : &d->field.height;
            if (cli_parse_int(v, 1, INT32_MAX, dst) != 0)
                return cli_usage_error(name, "expected a whole number of pixels, got '%s'", v);
            if (name[2] == 'w')
                width_from = name;
            else
                height_from = name;
        } else if (cli_is_option(arg, "--channels")) {
            if (!(v = cli_option_value(argc, argv, &i, "--channels")))
                return CLI_EXIT_USAGE;
            if (cli_parse_int(v, 1, 64, &d->field.channels) != 0)
                return cli_usage_error("--channels", "expected a whole number from 1 to 64, got '%s'", v);
        } else if (cli_is_option(arg, "--fields")) {
            if (!(v = cli_option_value(argc, argv, &i, "--fields")))
                return CLI_EXIT_USAGE;
            if (cli_parse_int(v, 1, 100000, &d->fields) != 0)
                return cli_usage_error("--fields", "expected a whole number from 1 to 100000, got '%s'", v);
        } else if (cli_is_option(arg, "--warmup")) {
            if (!(v = cli_option_value(argc, argv, &i, "--warmup")))
                return CLI_EXIT_USAGE;
            if (cli_parse_int(v, 0, 100000, &d->warmup) != 0)
                return cli_usage_error("--warmup", "expected a whole number >= 0, got '%s'", v);
        } else if (arg[0] == '-')
            return cli_usage_error(arg, "unknown option");
        else
            return cli_usage_error(arg, "unexpected argument (did you mean 'spacrbench run'?)");
    }
    const char *problem = field_params_problem(&d->field);
    if (problem)
        return cli_usage_error(strncmp(problem, "width", 5) == 0    ? width_from
                               : strncmp(problem, "height", 6) == 0 ? height_from
                                                                    : "--channels",
                               "%s", problem);
    if (d->warmup >= d->fields && d->fields > 1)
        return cli_usage_error("--warmup", "%lld warm-up field(s) leave none of the %lld to measure",
                               (long long)d->warmup, (long long)d->fields);
    /* A single field is always measured: report the warm-up actually used. */
    if (d->warmup >= d->fields)
        d->warmup = d->fields - 1;
    if (c->json && c->emit != CLI_EMIT_REPORT)
        return cli_usage_error("--emit", "cannot be combined with --json (the JSON document "
                                         "already holds the schedule)");
    return CLI_EXIT_OK;
}

int demo_main(int argc, char **argv)
{
    demo_config d = {{2048, 2048, 4, 1}, 3, 1, NULL};
    cli_common c;
    cli_common_init(&c);
    int rc = parse_demo(argc, argv, &d, &c);
    if (rc != CLI_EXIT_OK)
        return rc;

    /* Refuse a field that cannot fit rather than let the kernel kill us. */
    int64_t need = field_estimated_bytes(&d.field), avail = spacrbench_available_memory_bytes();
    if (avail > 0 && need > avail) {
        char a[32], b[32];
        cli_format_bytes(a, sizeof a, need);
        cli_format_bytes(b, sizeof b, avail);
        return cli_usage_error("--size", "one %lldx%lldx%lld field needs about %s; only %s is "
                                         "available",
                               (long long)d.field.width, (long long)d.field.height,
                               (long long)d.field.channels, a, b);
    }
    d.items = calloc((size_t)d.fields, sizeof *d.items);
    void **ptrs = calloc((size_t)d.fields, sizeof *ptrs);
    if (!d.items || !ptrs) {
        free(d.items), free(ptrs);
        fprintf(stderr, "spacrbench: out of memory\n");
        return CLI_EXIT_ERROR;
    }
    for (int64_t i = 0; i < d.fields; i++) {
        d.items[i].params = d.field;
        d.items[i].params.seed = d.field.seed + (uint64_t)i; /* a different field each */
        ptrs[i] = &d.items[i];
    }
    spacrbench_options opts;
    spacrbench_options_init(&opts, sizeof opts);
    opts.warmup = d.warmup;
    if (!c.quiet && isatty(STDERR_FILENO))
        opts.progress = show_progress;

    spacrbench_measurement *m = NULL;
    rc = spacrbench_benchmark(field_work, ptrs, (size_t)d.fields, NULL, &opts, &m);
    if (rc != 0) {
        if (rc == SPACRBENCH_EUSER)
            fprintf(stderr, "spacrbench: field %lld: not enough memory for a %lldx%lldx%lld field\n",
                    (long long)spacrbench_last_stopped_item() + 1, (long long)d.field.width,
                    (long long)d.field.height, (long long)d.field.channels);
        else
            fprintf(stderr, "spacrbench: %s\n", spacrbench_last_error_message());
        free(d.items), free(ptrs);
        return CLI_EXIT_ERROR;
    }
    char note[160];
    snprintf(note, sizeof note, "workload: built-in synthetic %lldx%lld field, %lld channel(s), "
                                "%lld field(s)",
             (long long)d.field.width, (long long)d.field.height, (long long)d.field.channels,
             (long long)d.fields);
    spacrbench_measurement_add_note(m, note);
    cli_context ctx = {"demo", NULL, 0, describe, &d};
    rc = cli_finish(&c, m, &ctx);
    spacrbench_measurement_free(m);
    free(d.items), free(ptrs);
    return rc;
}
