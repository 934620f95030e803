#!/usr/bin/env python3
"""Import time of spacrbench against spaCR's own spacr/benchmark.py, side by
side, in fresh interpreters.

spaCR's module is fetched with `pip download --no-deps spacr==1.5.1.5` into a
temporary directory (or taken from --spacr-wheel / --spacr-module) and
imported standalone (it needs only the standard library). Each round runs,
in an interleaved order, a bare interpreter and one interpreter per import
statement; the figure is the median over the rounds of (time - bare time).
Prints figures only; nothing here is a pass/fail test. Run it with the
interpreter that has spacrbench installed.

Usage: python tests/perf/bench_import.py [--rounds N] [--spacr-wheel PATH]
       [--spacr-module PATH] [--importtime]
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from typing import Dict, List, Optional, Tuple

SPACR = "spacr==1.5.1.5"


def fetch_spacr_module(dest: str, wheel: Optional[str]) -> Tuple[Optional[str], str]:
    """spacr/benchmark.py written to dest/spacr_benchmark.py, or None and why."""
    if wheel is None:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
               "--disable-pip-version-check", SPACR, "-d", dest]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, f"pip download {SPACR} failed: {exc}"
        wheels = glob.glob(os.path.join(dest, "spacr-*.whl"))
        if proc.returncode != 0 or not wheels:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return None, f"pip download {SPACR} failed (PyPI unreachable?): {tail}"
        wheel = wheels[0]
    with zipfile.ZipFile(wheel) as archive:
        source = archive.read("spacr/benchmark.py")
    path = os.path.join(dest, "spacr_benchmark.py")
    with open(path, "wb") as out:
        out.write(source)
    return path, f"spaCR's spacr/benchmark.py from {os.path.basename(wheel)}"


def one_run(code: str, cwd: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=cwd, check=True)
    return time.perf_counter() - t0


def measure(cases: Dict[str, str], cwd: str, rounds: int) -> Dict[str, List[float]]:
    """Seconds above a bare interpreter, per case, one list entry per round."""
    for code in cases.values():  # warm the page cache and write .pyc files
        one_run(code, cwd)
    over: Dict[str, List[float]] = {name: [] for name in cases}
    names = list(cases)
    for r in range(rounds):
        bare = one_run("pass", cwd)
        order = names if r % 2 == 0 else names[::-1]
        for name in order:
            over[name].append(one_run(cases[name], cwd) - bare)
    return over


def importtime(code: str, cwd: str, top: int) -> None:
    """The largest self times of -X importtime for one case."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=cwd,
                          capture_output=True, text=True, check=True)
    rows = []
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[0].split(":")[-1].strip().isdigit():
            rows.append((int(parts[0].split(":")[-1]), parts[2].strip()))
    for self_us, name in sorted(rows, reverse=True)[:top]:
        print(f"    {self_us / 1e3:6.2f} ms  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--spacr-wheel", help="a downloaded spacr-1.5.1.5 wheel")
    parser.add_argument("--spacr-module", help="spaCR's benchmark.py, already extracted")
    parser.add_argument("--importtime", action="store_true",
                        help="also list the largest -X importtime self times")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="spacrbench-import.")
    try:
        if args.spacr_module:
            spacr: Optional[str] = os.path.join(tmp, "spacr_benchmark.py")
            shutil.copyfile(args.spacr_module, spacr)
            origin = f"spaCR's module from {args.spacr_module}"
        else:
            spacr, origin = fetch_spacr_module(tmp, args.spacr_wheel)
        names = "Measurement, Recommendation, benchmark, recommend_workers, format_report"
        cases = {"import spacrbench": "import spacrbench",
                 f"from spacrbench import {names}": f"from spacrbench import {names}"}
        if spacr is not None:
            cases["spaCR: import spacr.benchmark (standalone)"] = "import spacr_benchmark"
            cases[f"spaCR: from spacr.benchmark import {names}"] = (
                f"from spacr_benchmark import {names}")
        print(f"{sys.version.split()[0]} {sys.executable}; {args.rounds} rounds")
        print(origin if spacr is not None else f"spaCR not measured: {origin}")
        over = measure(cases, tmp, args.rounds)
        print("\nmilliseconds above a bare interpreter (median; quartiles)")
        for name, values in over.items():
            q = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
            print(f"  {statistics.median(values) * 1e3:7.2f}  ({q[0] * 1e3:6.2f} .. "
                  f"{q[2] * 1e3:6.2f})  {name}")
        if spacr is not None:
            ours = statistics.median(over["import spacrbench"])
            theirs = statistics.median(over["spaCR: import spacr.benchmark (standalone)"])
            print(f"\n  spacrbench - spaCR: {(ours - theirs) * 1e3:+.2f} ms "
                  f"({ours / theirs:.2f}x)" if theirs > 0 else "")
        if args.importtime:
            for name, code in cases.items():
                print(f"\n  -X importtime, largest self times: {name}")
                importtime(code, tmp, 12)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
