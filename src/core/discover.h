/* Machine discovery, split in two: a platform probe that reads what the
 * operating system says (probe.h, one file per platform in os/), and a
 * pure rule that turns those figures into a spacrbench_machine. Not
 * installed. */
#ifndef SPACRBENCH_DISCOVER_H
#define SPACRBENCH_DISCOVER_H

#include <stdint.h>

#include "probe.h"
#include "spacrbench.h"

/* available = min(host, container headroom), never negative, 0 when
 * neither is known; cores = min(affinity, cpuset, ceil(quota)), >= 1.
 * Ties go to the host / the affinity mask. out->size is set to ours. */
void sb_machine_from_probe(const sb_probe *probe, spacrbench_machine *out);

/* Probe (env NULL: the running system) and combine. */
void sb_discover_with(const struct sb_probe_env *env, spacrbench_machine *out);

#endif
