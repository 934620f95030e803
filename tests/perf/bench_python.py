#!/usr/bin/env python3
"""Side-by-side figures for the Python binding, measured in one run.

1. Per-item overhead of spacrbench.benchmark() with an empty work function,
   against the C harness (spacrbench_benchmark with an empty C work
   function compiled here with cc, called in this process) and a bare
   Python loop; plus the footprint each reports for the empty work.
2. Peak-capture accuracy on spiky work (a short allocation among idle items):
   spacrbench vs psutil polling at 10 ms and 100 ms vs memory_profiler's
   memory_usage. A competitor that is not installed is skipped with a reason
   (pip install psutil memory_profiler).

Prints figures and ratios only; nothing here is a pass/fail test.
Usage: python tests/perf/bench_python.py [--items N] [--trials N]
"""

from __future__ import annotations

import argparse
import ctypes
import mmap
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from typing import Any, Callable, List, Optional, Tuple

import spacrbench

MiB = 2**20


# ------------------------------------------------------------------ overhead

EMPTY_WORK_C = "int sb_empty_work(void *item, void *payload) { (void)item; (void)payload; return 0; }\n"


_loaded: List[Any] = []


def c_empty_work(tmp: str) -> Tuple[Optional[Any], str]:
    """A C work function that does nothing, compiled here with cc, as a
    spacrbench_work_fn: the C harness measured in this process, through the
    same library. (None, why) without a compiler."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        return None, "no C compiler (cc) to build an empty C work function"
    src, so = os.path.join(tmp, "empty.c"), os.path.join(tmp, "libempty.so")
    with open(src, "w") as f:
        f.write(EMPTY_WORK_C)
    proc = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", so, src],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"cc failed: {proc.stderr.strip()[:200]}"
    from spacrbench._binding import ffi
    handle = ctypes.CDLL(so)
    address = ctypes.cast(handle.sb_empty_work, ctypes.c_void_p).value
    _loaded.append(handle)  # keeps the .so mapped while fn is used
    return ffi.cast("spacrbench_work_fn", address), ""


def c_harness(fn: Any, n: int, records: bool) -> Tuple[float, int]:
    """Seconds per item of spacrbench_benchmark over n NULL items with the C
    work function, and the run's work_rss_bytes."""
    from spacrbench._binding import ffi, lib, new_struct
    items = ffi.new("void *[]", n)
    opts = new_struct("spacrbench_options")
    lib.spacrbench_options_init(opts, ffi.sizeof("spacrbench_options"))
    opts.warmup = 0
    opts.item_records = 1 if records else 0
    out = ffi.new("spacrbench_measurement **")
    t0 = time.perf_counter()
    rc = lib.spacrbench_benchmark(fn, items, n, ffi.NULL, opts, out)
    seconds = time.perf_counter() - t0
    if rc != 0:
        raise RuntimeError(f"spacrbench_benchmark returned {rc}")
    work = lib.spacrbench_measurement_work_rss_bytes(out[0])
    lib.spacrbench_measurement_free(out[0])
    return seconds / n, int(work)


def python_harness(n: int) -> Tuple[float, int]:
    def nothing(item: object) -> None:
        return None

    items = list(range(n))
    t0 = time.perf_counter()
    m = spacrbench.benchmark(nothing, items, warmup=0)
    return (time.perf_counter() - t0) / n, m.work_rss_bytes


def overhead(n: int, trials: int) -> None:
    """Interleaved trials; medians. The C harness with records is the floor
    the binding adds to (goal: Python <= C + 1 us per item)."""
    def nothing(item: object) -> None:
        return None

    items = list(range(n))
    tmp = tempfile.mkdtemp(prefix="spacrbench-perf.")
    try:
        fn, why = c_empty_work(tmp)
        bare: List[float] = []
        py: List[Tuple[float, int]] = []
        c_rec: List[Tuple[float, int]] = []
        c_none: List[Tuple[float, int]] = []
        for _ in range(trials):
            t0 = time.perf_counter()
            for item in items:
                nothing(item)
            bare.append((time.perf_counter() - t0) / n)
            if fn is not None:
                c_rec.append(c_harness(fn, n, True))
                c_none.append(c_harness(fn, n, False))
            py.append(python_harness(n))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def us(values: List[float]) -> float:
        return statistics.median(values) * 1e6

    print(f"per-item cost over {n} empty items, median of {trials} interleaved trials")
    print(f"  bare Python loop                    {us(bare):8.2f} us")
    if fn is None:
        print(f"  C harness                           skipped: {why}")
    else:
        print(f"  C harness, no records               {us([t for t, _ in c_none]):8.3f} us")
        print(f"  C harness, records (the floor)      {us([t for t, _ in c_rec]):8.2f} us")
    print(f"  spacrbench.benchmark() (records)    {us([t for t, _ in py]):8.2f} us")
    if fn is not None:
        above = [p - c for (p, _), (c, _) in zip(py, c_rec)]
        print(f"  Python above the C harness          {us(above):+8.2f} us per item "
              f"(goal <= +1 us; median of per-trial differences)")
    print(f"  footprint (work_rss_bytes) of the empty work: Python "
          f"{max(w for _, w in py) / 1024:.0f} KiB" +
          ("" if fn is None else f", C harness {max(w for _, w in c_rec) / 1024:.0f} KiB") +
          " (largest over the trials)")


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
    parser.add_argument("--trials", type=int, default=5,
                        help="trials per peak-capture tool and overhead trials")
    args = parser.parse_args()
    print(f"spacrbench {spacrbench.__version__}\n")
    overhead(args.items, args.trials)
    accuracy(2 * MiB, 11, 0.020, args.trials)     # about 1 ms: a short spike
    accuracy(300 * MiB, 11, 0.020, args.trials)   # a decoded field, freed at once


if __name__ == "__main__":
    main()
