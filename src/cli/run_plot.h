/* `spacrbench run --scale ... --plot FILE`: the drawing is Python's
 * (ScaleResult.plot, matplotlib), so the command hands the scaling JSON to
 * `PYTHON -m spacrbench._plot_cli JSON FILE`, PYTHON being
 * $SPACRBENCH_PYTHON or python3 on PATH. */
#ifndef SPACRBENCH_CLI_RUN_PLOT_H
#define SPACRBENCH_CLI_RUN_PLOT_H

#include "spacrbench.h"

/* CLI_EXIT_OK when the Python that draws (the same) has the spacrbench
 * package and matplotlib: asked before anything runs, so a run is never
 * lost to a plot that cannot be drawn. Else CLI_EXIT_USAGE after the
 * message (and where the help is). */
int run_plot_ready(int stdout_is_output);
/* CLI_EXIT_OK when FILE was written; otherwise CLI_EXIT_ERROR after one
 * line on stderr naming what is missing and how to get it. */
int run_plot(const spacrbench_scale_result *r, const char *path, int stdout_is_output);
/* The same for a JSON document already made (a serial run's --json
 * document: the helper draws Measurement.plot() from it). */
int run_plot_document(const char *json, const char *path, int stdout_is_output);

#endif
