#!/usr/bin/env python3
"""Ctrl-C latency: SIGINT to a process running spacrbench.scale() (0.5 s
items, 2 workers, a 60 s minimum repeat) and, side by side, to one running
spacrbench.benchmark() on the same work. Prints the time from the signal to
the process's exit and how many of its pool workers outlived it. Before
issue #22 scale() took 7.6 s (every queued item ran first). Not a test.

Usage: python tests/perf/bench_scale_sigint.py [--trials N]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import textwrap
import time
from typing import List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))

SCALE = """
import sys; sys.path.insert(0, {here!r})
import scale_perf_works as w, spacrbench
spacrbench.scale(w.slow_item, list(range(40)), workers=[2], start_method="fork",
                 warmup_items=0, min_seconds=60, min_repeats=1, max_repeats=1)
"""
BENCH = """
import sys; sys.path.insert(0, {here!r})
import scale_perf_works as w, spacrbench
spacrbench.benchmark(w.slow_item, list(range(120)))
"""


def children(pid: int) -> List[int]:
    out: List[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def trial(code: str) -> Tuple[float, int]:
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code.format(here=HERE))],
                         stderr=subprocess.DEVNULL)
    time.sleep(3.0)  # the pool (or the loop) is running items
    kids = children(p.pid)
    start = time.perf_counter()
    p.send_signal(signal.SIGINT)
    p.wait(timeout=120)
    took = time.perf_counter() - start
    time.sleep(0.2)
    left = sum(alive(k) for k in kids)
    for k in kids:
        if alive(k):
            os.kill(k, signal.SIGKILL)
    return took, left


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    for name, code in (("scale()", SCALE), ("benchmark()", BENCH)):
        results = [trial(code) for _ in range(args.trials)]
        print(f"{name:12s} SIGINT -> exit: "
              + ", ".join(f"{t:.2f} s" for t, _ in results)
              + f"; workers left alive: {max(n for _, n in results)}")


if __name__ == "__main__":
    main()
