"""Top-level work functions for test_scale.py: a spawn or forkserver worker
unpickles them by module and name, so they cannot live in a test body."""

from __future__ import annotations

import mmap
import time
from typing import Iterator

MiB = 2**20
STREAM_BYTES = 256 * MiB


def sleep_work(item: int) -> None:
    time.sleep(0.1)


def fail_on_two(item: int) -> None:
    if item == 2:
        raise ValueError("item 2 is bad")


def stream_work(item: int) -> int:
    """Memory-bandwidth-heavy: write, then read back, a 256 MiB mapping."""
    buf = mmap.mmap(-1, STREAM_BYTES)
    try:
        block = b"\x01" * MiB
        for off in range(0, STREAM_BYTES, MiB):
            buf[off:off + MiB] = block
        total = 0
        for off in range(0, STREAM_BYTES, MiB):
            total += buf[off]
        return total
    finally:
        buf.close()


async def async_work(item: int) -> None:
    """Refused by scale() and benchmark(): calling it runs nothing."""


def generator_work(item: int) -> Iterator[int]:
    """Refused by scale() and benchmark(): calling it runs nothing."""
    yield item


_started_here = False


def cold_start_work(item: int) -> None:
    """The first item in each worker pays a start-up (0.3 s), later ones 20 ms:
    a check that times the first item measures the start-up."""
    global _started_here
    time.sleep(0.02 if _started_here else 0.3)
    _started_here = True


def short_sleep(item: int) -> None:
    time.sleep(0.02)


def touch_64mib(item: int) -> int:
    """Holds 64 MiB (every page written) for 0.2 s."""
    buf = bytearray(64 * MiB)
    for off in range(0, len(buf), 4096):
        buf[off] = 1
    time.sleep(0.2)
    return len(buf)
