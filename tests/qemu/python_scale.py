"""Python's scaling check in the cgroup v2 VM, run by tests/qemu/inside.sh
as an unprivileged user: the count groups must be made where discovery
says (a delegated cgroup), measured exactly by the cgroup, and an
over-budget count OOM-killed inside its group while this process goes on.

    python_scale.py EXPECT_IN_NOTE

Prints PASS:/FAIL: lines (inside.sh counts them) and exits 0 either way,
1 only when it could not run at all."""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import scale_works  # noqa: E402  (top-level works a forked worker runs)

import spacrbench  # noqa: E402

EXACT = dict(warmup_items=0, min_seconds=0, min_repeats=1, max_repeats=1)


def check(what: str, ok: bool, detail: str) -> None:
    print(f"{'PASS' if ok else 'FAIL'}: python (uid {os.getuid()}): {what}: {detail}")


def main() -> int:
    expect = sys.argv[1]
    # One check, two counts (TCG is slow): 1 worker of 64 MiB fits a 100 MiB
    # budget, 2 do not and are OOM-killed inside their group.
    r = spacrbench.scale(scale_works.touch_64mib, [0, 1, 2, 3], workers=[1, 2],
                         start_method="fork", memory_budget_bytes=100 * 2**20, **EXACT)
    one, two = r.points
    check("1 worker measured by its cgroup", one.peak_method == "cgroup", str(one.peak_method))
    check("1 worker of 64 MiB: its peak", not one.failed and one.peak_bytes is not None and
          64 * 2**20 <= one.peak_bytes <= 72 * 2**20, f"failed {one.failed}, peak {one.peak_bytes}")
    check("2 workers OOM-killed in their group, the caller goes on",
          two.failed and two.oom_killed and r.verdict == "memory", r.reason)
    note = next((n for n in r.notes if n.startswith("group peak:")), "")
    check(f"the group note says '{expect}'", expect in note, note)
    deadline = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    check("no worker left", multiprocessing.active_children() == [],
          str(multiprocessing.active_children()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
