#!/usr/bin/env python3
"""The advice's score against REAL pools on three plate shapes (issue 30).

For each plate (tests/python/plate_works.py: "dense", one well whose
fields need 6x the memory of the rest; "equal", the same with every file
the same size; "gradient", memory growing 1x to 6x across the plate;
"uniform") in a real v1 memory cgroup of its own: the
advice of spaCR 1.5.1.5's rule and of spacrbench.benchmark() on the first
three fields (as spaCR's docs say to measure), and of
spacrbench.benchmark_plate() on the whole plate; then real fork
ProcessPoolExecutor pools of 1, 2 and 3 workers over the whole plate, in
the same cgroup (the faster of two runs of each count that completes). Score = throughput at the advised count / the best count
that completes (0 when the advised count is OOM-killed). Also the
selection's time at 100,000 items from Python. Prints a table; nothing
here is a pass/fail test. Needs root (cgroups) and a v1 memory hierarchy.

Usage: python tests/perf/bench_plate_pools.py [--spacr PATH/benchmark.py]
  (default: spaCR's wheel from $SPACRBENCH_SPACR_WHEELS or pip download)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional

HERE = Path(__file__).resolve().parent
WORKS = HERE.parent / "python" / "plate_works.py"
sys.path.insert(0, str(WORKS.parent))
import plate_works  # noqa: E402

MiB = 2**20
# One limit for every shape (not tuned per shape), and the gradient once
# more where its two largest fields just fit together: the plate's
# conservative side.
SHAPES = [("dense", 256 * MiB), ("equal", 256 * MiB), ("gradient", 256 * MiB),
          ("gradient", 288 * MiB), ("uniform", 256 * MiB)]
COUNTS = "1,2,3"


def spacr_module(given: Optional[str], scratch: Path) -> Optional[str]:
    if given:
        return given
    where = Path(os.environ.get("SPACRBENCH_SPACR_WHEELS") or scratch)
    wheels = sorted(where.glob("spacr-1.5.1.5-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                        "--disable-pip-version-check", "-d", str(where), "spacr==1.5.1.5"],
                       capture_output=True, timeout=300)
        wheels = sorted(where.glob("spacr-1.5.1.5-*.whl"))
    if not wheels:
        print("spaCR 1.5.1.5 could not be downloaded: its column is left out")
        return None
    out = scratch / "spacr_benchmark.py"
    with zipfile.ZipFile(wheels[0]) as wheel:
        out.write_bytes(wheel.read("spacr/benchmark.py"))
    return str(out)


def run_shape(shape: str, limit: int, spacr: Optional[str], scratch: Path) -> Dict[str, Any]:
    plate = scratch / f"plate-{shape}-{limit // MiB}"
    plate.mkdir()
    plate_works.write_plate(str(plate), plate_works.plate_sizes(shape),
                            plate_works.plate_needs(shape))
    with plate_works.memory_cgroup(limit, f"sbperf-plate-{shape}") as cg:
        args = [sys.executable, str(WORKS), str(cg), str(plate), COUNTS] + ([spacr] if spacr else [])
        env = dict(os.environ, PLATE_POOL_REPEATS="2")  # the faster of two pools per count
        got = subprocess.run(args, capture_output=True, text=True, timeout=900, env=env)
    if got.returncode != 0:
        raise SystemExit(f"{shape}: the experiment failed:\n{got.stderr}")
    result: Dict[str, Any] = json.loads(got.stdout.splitlines()[-1])
    return result


def score(workers: int, pools: List[Dict[str, Any]]) -> str:
    done = [p for p in pools if p["completed"]]
    best = max(done, key=lambda p: p["items_per_second"]) if done else None
    mine = next((p for p in pools if p["workers"] == workers), None)
    if mine is None:
        return f"{workers} (not run)"
    if not mine["completed"]:
        return f"{workers}: 0.00, OOM-killed ({mine['oom_kills']} kill(s))"
    assert best is not None
    return (f"{workers}: {mine['items_per_second'] / best['items_per_second']:.2f} "
            f"(best {best['workers']}), no OOM kill")


def selection_time() -> float:
    import spacrbench
    from spacrbench import _plate

    keys = [float((i * 7919) % 100003) for i in range(100_000)]
    best = 1e9
    for _ in range(5):
        start = time.perf_counter()
        _plate._select(keys, len(keys), 2, "key", _plate._options(5, 1, 0.05))
        best = min(best, time.perf_counter() - start)
    assert spacrbench.__version__
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spacr", help="spaCR 1.5.1.5's spacr/benchmark.py")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        spacr = spacr_module(args.spacr, scratch)
        print(f"machine: {os.uname().sysname} {os.uname().release}, pools of "
              f"{COUNTS} fork workers pinned to 2 cores, 12 fields per plate")
        rows = []
        for shape, limit in SHAPES:
            r = run_shape(shape, limit, spacr, scratch)
            pools = r["pools"]
            print(f"\n{shape} plate, {limit // MiB} MiB cgroup")
            for p in pools:
                ips = f"{p['items_per_second']:.2f} item/s" if p["completed"] else "OOM-killed"
                print(f"  pool of {p['workers']}: {ips} ({p['seconds']:.2f} s, "
                      f"{p['oom_kills']} OOM kill(s))")
            advice = [("spaCR 1.5.1.5, first three", r.get("spacr")),
                      ("spacrbench, first three", r["first_three"]),
                      ("spacrbench, plate", r["plate"])]
            for label, a in advice:
                if a is None:
                    continue
                print(f"  {label:28s} {score(a['workers'], pools)}")
                print(f"    {a['reason']}")
                rows.append((f"{shape}, {limit // MiB} MiB", label, score(a["workers"], pools)))
        print("\nsummary (advised workers: throughput / best count that completes)")
        print("| plate, cgroup | advice | advised: score |")
        print("| --- | --- | --- |")
        for shape, label, s in rows:
            print(f"| {shape} | {label} | {s} |")
    print(f"\nselection of 6 among 100,000 items from Python (keys given): "
          f"{selection_time() * 1e3:.1f} ms (best of 5)")


if __name__ == "__main__":
    main()
