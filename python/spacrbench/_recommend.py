"""recommend_workers(), available_memory_bytes() and format_report(): thin
wrappers whose wording and arithmetic come from the C library, so the
command, C users and Python users get the same answer for the same input."""

from __future__ import annotations

import math
from typing import Any, Optional, SupportsFloat, SupportsIndex, SupportsInt, Union

from ._binding import AUTO, check, ffi, lib
from ._compat import (INT64_MAX, as_measurement, as_recommendation, exact_int,
                      optional_measurement, upstream_int, upstream_maximum)
from ._types import MeasurementLike, Recommendation, RecommendationLike

#: A number read with int(), as spaCR read it (docs/python.md): an int, a
#: float (truncated), a numpy integer, a numeric string.
IntArg = Union[int, float, str, SupportsInt, SupportsIndex]


def available_memory_bytes() -> int:
    """Memory the next workers can get: MemAvailable, capped by every cgroup
    limit above this process (container, SLURM job, systemd slice); 0 if
    unreadable."""
    return int(lib.spacrbench_available_memory_bytes())


def _non_negative(value: Any, name: str) -> int:
    """A spacrbench-only figure (not one of spaCR's arguments): int() as
    for spaCR's, and a negative one is refused (the message quotes the value
    given, not a clamped one)."""
    n = exact_int(value, name)
    if n < 0:
        raise ValueError(f"{name} must be >= 0, not {value!r}")
    return min(n, INT64_MAX)


def recommend_workers(measurement: Optional[MeasurementLike] = None, *,
                      cores: Optional[IntArg] = None,
                      available_bytes: Optional[IntArg] = None,
                      reserve_bytes: Optional[IntArg] = None,
                      maximum: Union[int, float, SupportsFloat] = 32,
                      vram_reserve_bytes: IntArg = 1024**3,
                      free_vram_bytes: Optional[IntArg] = None,
                      start_method: Optional[str] = None,
                      scaling: Optional[Any] = None) -> Recommendation:
    """Recommend a worker count: min(usable cores / the cores one worker
    keeps busy, (available memory - reserve_bytes) / one worker's need, the
    VRAM bound, maximum), never below 1. cores and available_bytes default
    to what this machine, container or job really allows; cores <= 0 counts
    as 1. reserve_bytes None keeps 2 GiB on a host and 10% of a binding
    cgroup limit (64 MiB to 2 GiB) inside a SLURM job or container; a number
    always wins. start_method ("fork", the default, "spawn" or
    "forkserver") says how the pool starts its workers: with spawn and
    forkserver each worker also pays the measured baseline. free_vram_bytes
    defaults to the free memory NVML saw on the measured GPUs.

    As in spaCR, the numbers are read with int() (2.5 cores is 2, 3.4e10
    bytes is fine), cores below 1 count as 1, and any object with spaCR's
    Measurement attributes is a measurement (kept as rec.measurement).
    Negative available_bytes and reserve_bytes count as 0 and maximum below
    1 as 1 (docs/python.md lists where this differs from spaCR).

    scaling: a ScaleResult of spacrbench.scale() on the same work. Its
    measured knee, within the serial bounds (memory, VRAM, maximum), is
    then the recommendation; the reason starts "measured: " where the knee
    decides (docs/advice.md)."""
    if scaling is not None and getattr(scaling, "_c", None) is None:
        raise TypeError(f"recommend_workers(): scaling must be a ScaleResult from "
                        f"spacrbench.scale(), not {type(scaling).__name__}")
    supplied = measurement
    measurement = optional_measurement(measurement)
    opts = ffi.new("spacrbench_recommend_options *")
    check(lib.spacrbench_recommend_options_init(opts, ffi.sizeof("spacrbench_recommend_options")),
          "spacrbench_recommend_options_init")
    opts.cores = AUTO if cores is None else max(1, upstream_int(cores, "cores"))
    opts.available_bytes = (AUTO if available_bytes is None
                            else max(0, upstream_int(available_bytes, "available_bytes")))
    opts.reserve_bytes = (AUTO if reserve_bytes is None
                          else max(0, upstream_int(reserve_bytes, "reserve_bytes")))
    opts.maximum = max(1, upstream_maximum(maximum))
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
    if scaling is not None:
        check(lib.spacrbench_recommend_apply_scaling(out, scaling._c), "recommend_workers")
    rec = recommendation_from_c(out, measurement)
    if supplied is not measurement:  # spaCR keeps the very object it was given
        object.__setattr__(rec, "measurement", supplied)
    return rec


_THROUGHPUT = "  throughput          "
_BECAUSE = "    because           "


def format_report(measurement: MeasurementLike,
                  recommendation: Optional[RecommendationLike] = None) -> str:
    """The plain-text report (throughput, peak RSS, VRAM, recommended workers
    and why) to paste into an issue or a log. Each of spaCR's lines keeps
    its label and number format; spacrbench's detail follows. Objects with
    the attributes of spaCR's Measurement and Recommendation are accepted."""
    m = as_measurement(measurement)
    rec = as_recommendation(recommendation)
    from ._convert import format_report as _format_report

    lines = _format_report(m, rec).split("\n")
    seconds = m.seconds
    if (isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
            and not (math.isfinite(seconds) and seconds >= 0)):
        # The library holds finite, non-negative times only (it was given
        # 0): the line is spaCR's arithmetic on the value as given.
        ips = m.items / seconds if seconds > 0 else math.nan
        each = seconds / m.items if m.items else math.nan
        lines = [f"{_THROUGHPUT}{ips:.2f} item/s ({each:.2f} s each); not measured "
                 f"(seconds is {seconds!r})" if line.startswith(_THROUGHPUT) else line
                 for line in lines]
    if rec is not None:
        # The library's reason field holds 511 bytes; the report shows the
        # whole reason the Recommendation holds.
        from ._convert import utf8

        reason = utf8(str(rec.reason))
        if len(reason) >= ffi.sizeof(ffi.new("spacrbench_recommendation *").reason):
            whole = _BECAUSE + reason.decode("utf-8", "replace")  # as the library shows it
            lines = [whole if line.startswith(_BECAUSE) else line for line in lines]
    return "\n".join(lines)
