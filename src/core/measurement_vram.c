/* spacrbench_measurement_set_vram: a VRAM peak from a source the library
 * does not read itself (a binding's torch.cuda.max_memory_reserved()),
 * where the run measured none. */
#include <stdlib.h>
#include <string.h>

#include "core.h"

int spacrbench_measurement_set_vram(spacrbench_measurement *m, int64_t peak_vram_bytes,
                                    int32_t source)
{
    sb_clear_error();
    if (!m || peak_vram_bytes < 0 ||
        (source != SPACRBENCH_SOURCE_TORCH && source != SPACRBENCH_SOURCE_CALLER))
        return sb_fail(SPACRBENCH_EINVAL,
                       "measurement must not be NULL, peak_vram_bytes must be >= 0 "
                       "and source TORCH or CALLER");
    if (m->fig.peak_vram_bytes >= 0)
        return sb_fail(SPACRBENCH_EINVAL, "the measurement's VRAM peak was measured already");
    /* The note that said why VRAM was not measured quotes the reason's own
     * words (after spaCR's "no CUDA device: "): it is no longer true. */
    const char *why = m->vram_reason ? m->vram_reason : "";
    size_t head = strlen(SB_WORDS_NO_CUDA ": ");
    if (strncmp(why, SB_WORDS_NO_CUDA ": ", head) == 0)
        why += head;
    size_t spacr = m->spacr_notes, kept = 0;
    for (size_t i = 0; i < m->note_count; i++) {
        if (*why && strstr(m->notes[i], why)) {
            free(m->notes[i]);
            if (i < spacr)
                m->spacr_notes--;
        } else
            m->notes[kept++] = m->notes[i];
    }
    m->note_count = kept;
    free(m->vram_reason);
    m->vram_reason = NULL;
    m->fig.peak_vram_bytes = peak_vram_bytes;
    m->fig.vram_source = source;
    return SPACRBENCH_OK;
}
