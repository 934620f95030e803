"""Small real-world helpers shared by the test modules."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence

import pytest

if TYPE_CHECKING:
    from spacrbench._scale_result import ScaleResult

MiB = 2**20

# The suite runs on every platform a wheel is built for (cibuildwheel's
# test-command, see pyproject.toml). A test that needs Linux itself (/proc,
# cgroups, the forked scaling check, SLURM's bash scripts, the C command)
# carries linux_only(WHY) and is reported as skipped, with WHY, elsewhere;
# on Linux it runs exactly as before.
LINUX = sys.platform.startswith("linux")


def linux_only(why: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not LINUX, reason=f"Linux only, this is {sys.platform}: {why}")


def thread_count() -> int:
    """Threads of this process, C threads included (the library's sampler).
    Reads /proc: callers are Linux-only."""
    return len(os.listdir("/proc/self/task"))


def touch_pages(size: int) -> bytearray:
    """A real allocation of `size` bytes, every page written (resident)."""
    buf = bytearray(size)
    for i in range(0, size, 4096):
        buf[i] = 1
    return buf


#: The report's value column: a line wider than 79 columns goes on there.
_CONTINUED = "\n" + " " * 22


def unwrapped(report: str) -> str:
    """The report with each of its wrapped lines joined again, for a test
    that looks for a sentence in it (the library wraps at 79 columns)."""
    out, at = [], 0
    while True:
        k = report.find(_CONTINUED, at)
        if k < 0:
            return "".join(out) + report[at:]
        end = k + len(_CONTINUED)
        if end < len(report) and report[end] == " ":  # deeper: a table's own indent
            out.append(report[at:end])
        else:
            out.append(report[at:k] + " ")
        at = end


def result_from_points(points: Sequence[Dict[str, Any]], budget_bytes: Optional[int],
                       notes: Sequence[str] = ()) -> "ScaleResult":
    """Apply the library's rule to measured points (dicts with workers, items,
    seconds and optionally peak_bytes, peak_method, failed,
    mean_item_seconds, vram_peak_bytes, and the spread of their repeats:
    repeats, spread, items_per_second_min, items_per_second_max,
    warmup_items, oom_killed, limit_bytes): the rule on constructed
    points, for the tests (the package reaches it through scale())."""
    from spacrbench._binding import NOT_MEASURED, check, ffi, lib
    from spacrbench._scale_result import result_from_c

    n = len(points)
    arr = ffi.new("spacrbench_scale_point[]", max(n, 1))
    size = ffi.sizeof("spacrbench_scale_point")
    spreads = ffi.new("spacrbench_scale_spread[]", max(n, 1))
    spread_size = ffi.sizeof("spacrbench_scale_spread")
    for i, src in enumerate(points):
        p = arr[i]
        lib.spacrbench_scale_point_init(ffi.addressof(arr, i), size)
        sp = spreads[i]
        lib.spacrbench_scale_spread_init(ffi.addressof(spreads, i), spread_size)
        sp.repeats = src.get("repeats", 0)
        for key in ("spread", "items_per_second_min", "items_per_second_max"):
            if src.get(key) is not None:
                setattr(sp, key, src[key])
        sp.warmup_items = -1 if src.get("warmup_items") is None else src["warmup_items"]
        sp.oom_killed = 1 if src.get("oom_killed") else 0
        sp.limit_bytes = -1 if src.get("limit_bytes") is None else src["limit_bytes"]
        p.workers = src["workers"]
        p.items = src["items"]
        p.seconds = src["seconds"]
        peak = src.get("peak_bytes")
        p.peak_bytes = NOT_MEASURED if peak is None else peak
        p.peak_method = src.get("peak_method", lib.SPACRBENCH_PEAK_NONE)
        p.failed = 1 if src.get("failed") else 0
        vram = src.get("vram_peak_bytes")
        p.vram_peak_bytes = NOT_MEASURED if vram is None else vram
        mean = src.get("mean_item_seconds")
        if mean is not None:
            p.mean_item_seconds = mean
    out = ffi.new("spacrbench_scale_result **")
    check(lib.spacrbench_scale_from_points_spread(
        arr, n, size, spreads, spread_size, -1 if budget_bytes is None else budget_bytes, out),
        "scale")
    for note in notes:
        code = lib.spacrbench_scale_add_note(out[0], note.encode("utf-8", "replace"))
        if code < 0:
            lib.spacrbench_scale_free(out[0])
            check(code, "scale")
    return result_from_c(out[0])
