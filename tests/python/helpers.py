"""Small real-world helpers shared by the test modules."""

from __future__ import annotations

import os
import sys

import pytest

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
