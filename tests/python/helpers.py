"""Small real-world helpers shared by the test modules."""

from __future__ import annotations

import os

MiB = 2**20


def thread_count() -> int:
    """Threads of this process, C threads included (the library's sampler)."""
    return len(os.listdir("/proc/self/task"))


def touch_pages(size: int) -> bytearray:
    """A real allocation of `size` bytes, every page written (resident)."""
    buf = bytearray(size)
    for i in range(0, size, 4096):
        buf[i] = 1
    return buf
