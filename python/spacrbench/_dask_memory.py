"""Dask's worker memory fractions (target, spill, pause, terminate) of the
installed distributed, and the memory_limit that keeps a measured peak
(with the library's margin) below the smallest of them. A leaf: both the
plain Dask settings and SLURMCluster's (_handoff) use it."""

from __future__ import annotations

from typing import Any

from ._binding import check, ffi, lib

_FRACTIONS = ("target", "spill", "pause", "terminate")
_DEFAULT_FRACTION = 0.6  # distributed's default target, the smallest of the four


def dask_fraction() -> float:
    """The smallest enabled worker memory fraction of the installed
    distributed (distributed.worker.memory.target/spill/pause/terminate;
    False disables one); 0.6, distributed's default, without dask."""
    import importlib

    try:  # the config alone: no cluster, no worker; distributed loads its defaults
        config: Any = importlib.import_module("dask.config")
        importlib.import_module("distributed")
    except ImportError:
        return _DEFAULT_FRACTION
    found = []
    for name in _FRACTIONS:
        value = config.get(f"distributed.worker.memory.{name}", default=None)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1:
            found.append(float(value))
    return min(found) if found else 1.0


def dask_memory_limit(sched: Any, what: str) -> int:
    """memory_limit for a worker: the schedule's memory per task (peak +
    margin) below the smallest fraction of the installed configuration."""
    out = ffi.new("int64_t *")
    check(lib.spacrbench_dask_memory_limit(sched.mem_per_task_bytes, dask_fraction(), out), what)
    return int(out[0])
