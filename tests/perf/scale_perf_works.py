"""Top-level works for the scaling benchmarks under tests/perf (a spawn
worker imports them by module and name)."""

from __future__ import annotations

import time

_loaded = False


def cpu_work(item: int) -> int:
    """About 40 ms of pure-Python arithmetic: scales with the cores."""
    total = 0
    for i in range(200_000 + item):
        total += i * i % 7
    return total


def model_work(item: int) -> int:
    """The first item of each worker 'loads a model' (0.6 s, as a spawn
    worker that imports and loads its model does), later ones ~40 ms of CPU."""
    global _loaded
    if not _loaded:
        time.sleep(0.6)
        _loaded = True
    return cpu_work(item)


def mem_work(item: int) -> int:
    """Writes then reads 64 MiB per item: shares memory bandwidth."""
    buf = bytearray(64 * 2**20)
    for off in range(0, len(buf), 4096):
        buf[off] = 1
    return sum(buf[::4096])


def slow_item(item: int) -> None:
    time.sleep(0.5)
