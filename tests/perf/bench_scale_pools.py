#!/usr/bin/env python3
"""The scaling check against REAL pools, side by side.

For each small work: the knee and throughputs spacrbench.scale() measures
(today's timing: a warm-up item per worker, repeats of >= min_seconds),
the knee of the old timing (no warm-up, items_per_worker items, one
repeat), and what real ProcessPoolExecutor pools of 1..K workers really
give over N items, start-up included, as a user's run would. Prints figures
and the ratio throughput(knee) / best real throughput; nothing here is a
pass/fail test.

Usage: python tests/perf/bench_scale_pools.py [--items N] [--max-workers K]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scale_perf_works as works  # noqa: E402

import spacrbench  # noqa: E402


def real_pool(work: Callable[[int], Any], k: int, n: int, method: str) -> float:
    """items/s of a real pool of k workers over n items, pool start included."""
    ctx = multiprocessing.get_context(method)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=k, mp_context=ctx) as pool:
        list(pool.map(work, range(n)))
    return n / (time.perf_counter() - start)


def ips_by_k(r: Any) -> Dict[int, float]:
    return {p.workers: p.items_per_second for p in r.points if p.items_per_second}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=48)
    ap.add_argument("--max-workers", type=int, default=3)
    args = ap.parse_args()
    ks = list(range(1, args.max_workers + 1))
    cases = [("cpu 40 ms/item, fork", works.cpu_work, "fork"),
             ("model load 0.6 s + 40 ms/item, spawn", works.model_work, "spawn"),
             ("64 MiB write+read/item, fork", works.mem_work, "fork")]
    print(f"machine: {os.uname().sysname} {os.uname().release}, "
          f"{spacrbench.usable_cores() if hasattr(spacrbench, 'usable_cores') else os.cpu_count()}"
          f" usable cores; real pools over {args.items} items")
    rows: List[str] = []
    for name, work, method in cases:
        new = spacrbench.scale(work, list(range(8)), workers=ks, start_method=method)
        old = spacrbench.scale(work, list(range(8)), workers=ks, start_method=method,
                               items_per_worker=2, warmup_items=0, min_seconds=0,
                               min_repeats=1, max_repeats=1)
        real = {k: real_pool(work, k, args.items, method) for k in ks}
        best = max(real, key=lambda k: real[k])
        n_ips, o_ips = ips_by_k(new), ips_by_k(old)
        print(f"\n{name}")
        print("  workers   check now   (spread)   old check   real pool")
        for k in ks:
            sp = next((p.spread for p in new.points if p.workers == k), None)
            print(f"  {k:7d}  {n_ips.get(k, float('nan')):10.2f}  "
                  f"{'±%4.1f %%' % (100 * sp) if sp is not None else '     -':>9}  "
                  f"{o_ips.get(k, float('nan')):10.2f}  {real[k]:10.2f}")
        for label, r in (("knee now", new), ("knee old", old)):
            knee = r.chosen_workers
            ratio = real[knee] / real[best] if knee in real else float("nan")
            print(f"  {label}: {knee} ({r.verdict}); real throughput at it / best real "
                  f"({best}) = {ratio:.2f}")
        rows.append(f"{name}: knee now {new.chosen_workers}, old {old.chosen_workers}, "
                    f"best real {best}")
    print("\nsummary")
    for row in rows:
        print("  " + row)


if __name__ == "__main__":
    main()
