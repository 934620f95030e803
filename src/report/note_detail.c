/* The notes on method: see note_detail.h. Matched by their first words,
 * which the code that writes each note keeps; a note not listed is shown,
 * so a new one is never lost, only too visible. */
#include "report.h"

#include <string.h>

static const char *const k_detail[] = {
    /* the in-process runner (core/) */
    "the warm-up item(s)' memory counts toward the peak RSS",
    "warm-up of ",
    "peak RSS is exact: ",
    "side effect: resetting VmHWM",
    "peak VRAM is this process's GPU memory",
    "VRAM not measured: ",
    SB_WORDS_NO_CUDA ", so VRAM was not measured", /* the VRAM line says it */
    /* `spacrbench run` */
    "peak RSS: the larger of wait4's",
    "peak memory = the larger of wait4's", /* the report's "no cgroup: sampled" */
    "memory charged: each item's whole process tree",
    "cgroup v1 memory: groups in",
    "cgroup v2: groups in",
    "peak VRAM of each command's whole process tree",
    "each item ran as its own process, serially",
    "each measured item ran ",
    "timeline downsampled: ",
    /* the demo */
    "workload: ",
};

int sb_note_is_detail(const char *note)
{
    if (!note)
        return 0;
    for (size_t i = 0; i < sizeof k_detail / sizeof *k_detail; i++)
        if (strncmp(note, k_detail[i], strlen(k_detail[i])) == 0)
            return 1;
    return 0;
}
