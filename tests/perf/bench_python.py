#!/usr/bin/env python3
"""Side-by-side figures for the Python binding, measured in one run.

1. Per-item overhead of spacrbench.benchmark() with an empty work function,
   against a bare Python loop calling the same function.
2. Peak-capture accuracy on spiky work (a short allocation among idle items):
   spacrbench vs psutil polling at 10 ms and 100 ms vs memory_profiler's
   memory_usage. A competitor that is not installed is skipped with a reason
   (pip install psutil memory_profiler).

Prints figures and ratios only; nothing here is a pass/fail test.
Usage: python tests/perf/bench_python.py [--items N] [--trials N]
"""

from __future__ import annotations

import argparse
import mmap
import statistics
import threading
import time
from typing import Callable, List, Optional

import spacrbench

MiB = 2**20


# ------------------------------------------------------------------ overhead

def overhead(n: int) -> None:
    def nothing(item: object) -> None:
        return None

    items = list(range(n))
    t0 = time.perf_counter()
    for item in items:
        nothing(item)
    bare = (time.perf_counter() - t0) / n
    t0 = time.perf_counter()
    spacrbench.benchmark(nothing, items, warmup=0)
    total = (time.perf_counter() - t0) / n
    print(f"per-item cost over {n} empty items")
    print(f"  bare Python loop        {bare * 1e6:8.2f} us")
    print(f"  spacrbench.benchmark()  {total * 1e6:8.2f} us  "
          f"(+{(total - bare) * 1e6:.2f} us per item, {total / bare:.0f}x the bare loop)")


# ------------------------------------------------------------- spiky workload

def spike(size: int) -> None:
    """Map size bytes, kernel-faulted at once (MAP_POPULATE), then unmap."""
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_POPULATE", 0)
    region = mmap.mmap(-1, size, flags=flags)
    if not hasattr(mmap, "MAP_POPULATE"):
        region.write(b"\x01" * size)
    region.close()


def make_work(size: int, idle_s: float, spike_at: int, durations: List[float]) -> Callable[[int], None]:
    def work(item: int) -> None:
        if item == spike_at:
            t0 = time.perf_counter()
            spike(size)
            durations.append(time.perf_counter() - t0)
        else:
            time.sleep(idle_s)
    return work


def current_rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * mmap.PAGESIZE


def by_spacrbench(work: Callable[[int], None], items: List[int]) -> int:
    return spacrbench.benchmark(work, items, warmup=0).work_rss_bytes


def by_psutil(interval: float) -> Optional[Callable[[Callable[[int], None], List[int]], int]]:
    try:
        import psutil
    except ImportError:
        return None

    def measure(work: Callable[[int], None], items: List[int]) -> int:
        proc = psutil.Process()
        baseline = proc.memory_info().rss
        peak = [baseline]
        stop = threading.Event()

        def poll() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], proc.memory_info().rss)
                stop.wait(interval)

        poller = threading.Thread(target=poll)
        poller.start()
        try:
            for item in items:
                work(item)
        finally:
            stop.set()
            poller.join()
        return max(0, peak[0] - baseline)
    return measure


def by_memory_profiler(interval: float) -> Optional[Callable[[Callable[[int], None], List[int]], int]]:
    try:
        from memory_profiler import memory_usage
    except ImportError:
        return None

    def measure(work: Callable[[int], None], items: List[int]) -> int:
        def run_all() -> None:
            for item in items:
                work(item)
        baseline = current_rss()
        peak_mib = memory_usage((run_all, (), {}), interval=interval, max_usage=True)
        return max(0, int(float(peak_mib) * MiB) - baseline)
    return measure


def accuracy(size: int, n_items: int, idle_s: float, trials: int) -> None:
    tools = [
        ("spacrbench (kernel high-water mark)", by_spacrbench, ""),
        ("psutil polling every 10 ms", by_psutil(0.010), "psutil not installed"),
        ("psutil polling every 100 ms", by_psutil(0.100), "psutil not installed"),
        ("memory_profiler memory_usage(0.1 s)", by_memory_profiler(0.1),
         "memory_profiler not installed"),
        ("memory_profiler memory_usage(0.01 s)", by_memory_profiler(0.01),
         "memory_profiler not installed"),
    ]
    items = list(range(n_items))
    durations: List[float] = []
    work = make_work(size, idle_s, n_items // 2, durations)
    print(f"\npeak capture: a {size / MiB:.0f} MiB spike among {n_items - 1} idle items "
          f"of {idle_s * 1e3:.0f} ms, {trials} trials each (fraction of the true spike seen)")
    results = {}
    for name, measure, missing in tools:
        if measure is None:
            results[name] = None
            continue
        results[name] = [measure(work, items) / size for _ in range(trials)]
    print(f"  spike lasted {statistics.median(durations) * 1e3:.2f} ms (median)")
    for name, _, missing in tools:
        seen = results[name]
        if seen is None:
            print(f"  {name:38s} skipped: {missing}")
            continue
        print(f"  {name:38s} mean {statistics.mean(seen) * 100:6.1f} %   "
              f"min {min(seen) * 100:6.1f} %   max {max(seen) * 100:6.1f} %")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20000, help="items for the overhead run")
    parser.add_argument("--trials", type=int, default=5, help="trials per peak-capture tool")
    args = parser.parse_args()
    print(f"spacrbench {spacrbench.__version__}\n")
    overhead(args.items)
    accuracy(2 * MiB, 11, 0.020, args.trials)     # about 1 ms: a short spike
    accuracy(300 * MiB, 11, 0.020, args.trials)   # a decoded field, freed at once


if __name__ == "__main__":
    main()
