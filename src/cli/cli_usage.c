/* Help and version texts; see cli_usage.h. */
#include "cli_usage.h"

#include "spacrbench.h"

static const char usage[] =
    "usage: spacrbench [options]                      benchmark a built-in field workload\n"
    "       spacrbench run [options] [--items FILE | ITEM...] -- CMD ARG... {}\n"
    "                                                 benchmark CMD once per item\n"
    "       spacrbench summarize DIR [--json]         read the task reports of a SLURM array\n"
    "\n"
    "Measures what ONE worker needs (time, peak memory, cores kept busy) by running\n"
    "items serially, reads what this machine, container or job can give, and\n"
    "recommends a worker count = min(usable cores / cores per worker,\n"
    "(available memory - reserve) / per-worker need, maximum).\n"
    "It measures; it never changes a setting.\n"
    "\n"
    "default mode (synthetic 16-bit fields: smooth, Otsu threshold, label, measure):\n"
    "  --size WxH          field size in pixels (default 2048x2048)\n"
    "  --width N, --height N\n"
    "  --channels N        channels per field (default 4)\n"
    "  --fields N          fields to process, warm-up included (default 3)\n"
    "  --gpu               smooth and threshold each field on a CUDA device\n"
    "  --warmup N          first N items excluded from the timing (default 1; run: 0)\n"
    "\n"
    "run mode:\n"
    "  ITEM...             items as arguments; or --items FILE ('-' = stdin);\n"
    "                      with neither, one item per line on standard input\n"
    "  --no-cgroup         measure with wait4 + /proc sampling, not a cgroup of its own\n"
    "  --timeout DURATION  kill an item (and its processes) running longer: 10, 1.5, 2m, 1h\n"
    "  -- CMD ARG...       the command; every {} is replaced by the item (appended\n"
    "                      when no argument holds {}); no shell is involved\n"
    "  --scale LIST        after the serial run, run k copies at once for each k in\n"
    "                      LIST (1,2,4 or auto: 1, 2, 4, ... up to the recommendation\n"
    "                      + 1, capped by the cores), each group in a cgroup of its own;\n"
    "                      reports throughput, speed-up, group peak and the knee\n"
    "  --scale-items N     items each copy runs (default 1)\n"
    "  --plot FILE         with --scale: draw it to FILE.png or FILE.svg (needs Python\n"
    "                      with spacrbench[plot]; $SPACRBENCH_PYTHON or python3)\n"
    "\n"
    "both modes:\n"
    "  --reserve BYTES     memory kept free for everything else (512M, 1.5G...; default\n"
    "                      2G on a host, 10% of a binding cgroup limit, 64M..2G, in a job)\n"
    "  --start-method fork|spawn|forkserver\n"
    "                      how the workers will start (default fork); spawn and\n"
    "                      forkserver add the baseline to each worker's need\n"
    "  --cores N           usable cores (default: discovered)\n"
    "  --maximum N         never recommend more workers (default 32)\n"
    "  --json              print one JSON document with every figure\n"
    "  --report FILE       also write the report to FILE (JSON when FILE ends in .json)\n"
    "  --emit slurm|dask   print scheduler settings on stdout (report on stderr)\n"
    "  --quiet             no progress, and no report next to --emit\n"
    "  --help, --version\n"
    "\n"
    "exit status: 0 ok, 1 measurement failed, 2 bad command line,\n"
    "             3 a measured command failed (the partial report is printed)\n";

void cli_print_usage(FILE *out) { fputs(usage, out); }

void cli_print_version(FILE *out)
{
    fprintf(out, "spacrbench %s (library %s)\n", SPACRBENCH_VERSION_STRING,
            spacrbench_version_string());
}
