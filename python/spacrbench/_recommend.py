"""recommend_workers(), available_memory_bytes() and format_report(): thin
wrappers whose wording and arithmetic come from the C library, so the
command, C users and Python users get the same answer for the same input."""

from __future__ import annotations

import operator
from typing import Any, Optional

from ._binding import AUTO, check, ffi, lib
from ._types import Measurement, Recommendation


def available_memory_bytes() -> int:
    """Memory the next workers can get: MemAvailable, capped by every cgroup
    limit above this process (container, SLURM job, systemd slice); 0 if
    unreadable."""
    return int(lib.spacrbench_available_memory_bytes())


_INT64_MAX = 2**63 - 1


def _int_arg(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not bool")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    return max(-_INT64_MAX, min(n, _INT64_MAX))  # the C fields are int64


def _non_negative(value: Any, name: str) -> int:
    n = _int_arg(value, name)
    if n < 0:
        raise ValueError(f"{name} must be >= 0, not {n}")
    return n


def recommend_workers(measurement: Optional[Measurement] = None, *,
                      cores: Optional[int] = None,
                      available_bytes: Optional[int] = None,
                      reserve_bytes: Optional[int] = None,
                      maximum: int = 32,
                      vram_reserve_bytes: int = 1024**3,
                      free_vram_bytes: Optional[int] = None,
                      start_method: Optional[str] = None) -> Recommendation:
    """Recommend a worker count: min(usable cores / the cores one worker
    keeps busy, (available memory - reserve_bytes) / one worker's need, the
    VRAM bound, maximum), never below 1. cores and available_bytes default
    to what this machine, container or job really allows; cores <= 0 counts
    as 1. reserve_bytes None keeps 2 GiB on a host and 10% of a binding
    cgroup limit (64 MiB to 2 GiB) inside a SLURM job or container; a number
    always wins. start_method ("fork", the default, "spawn" or
    "forkserver") says how the pool starts its workers: with spawn and
    forkserver each worker also pays the measured baseline. free_vram_bytes
    defaults to the free memory NVML saw on the measured GPUs."""
    if measurement is not None and not isinstance(measurement, Measurement):
        raise TypeError(f"measurement must be a spacrbench Measurement or None, "
                        f"not {type(measurement).__name__}")
    opts = ffi.new("spacrbench_recommend_options *")
    check(lib.spacrbench_recommend_options_init(opts, ffi.sizeof("spacrbench_recommend_options")),
          "spacrbench_recommend_options_init")
    opts.cores = AUTO if cores is None else max(1, _int_arg(cores, "cores"))
    opts.available_bytes = (AUTO if available_bytes is None
                            else _non_negative(available_bytes, "available_bytes"))
    opts.reserve_bytes = (AUTO if reserve_bytes is None
                          else _non_negative(reserve_bytes, "reserve_bytes"))
    opts.maximum = _int_arg(maximum, "maximum")
    if opts.maximum < 1:
        raise ValueError(f"maximum must be >= 1, not {opts.maximum}")
    opts.vram_reserve_bytes = _non_negative(vram_reserve_bytes, "vram_reserve_bytes")
    opts.free_vram_bytes = (AUTO if free_vram_bytes is None
                            else _non_negative(free_vram_bytes, "free_vram_bytes"))
    if start_method is not None:
        from ._convert import START_METHODS

        opts.start_method = START_METHODS.code(start_method, "start_method")
    from ._convert import c_measurement, recommendation_from_c

    out = ffi.new("spacrbench_recommendation *")
    out.size = ffi.sizeof("spacrbench_recommendation")
    with c_measurement(measurement) as cm:
        check(lib.spacrbench_recommend(cm, opts, out), "recommend_workers")
    return recommendation_from_c(out, measurement)


def format_report(measurement: Measurement,
                  recommendation: Optional[Recommendation] = None) -> str:
    """The plain-text report (throughput, peak RSS, VRAM, recommended workers
    and why) to paste into an issue or a log."""
    if not isinstance(measurement, Measurement):
        raise TypeError(f"measurement must be a spacrbench Measurement, "
                        f"not {type(measurement).__name__}")
    from ._convert import format_report as _format_report

    return _format_report(measurement, recommendation)
