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
