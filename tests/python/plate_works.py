"""Plates of fields for the plate tests (test_plate.py) and the advice's
score against real pools (tests/perf/bench_plate_pools.py).

A field is a file whose size is its content: the work reads the size and
needs memory in proportion to it (touched, so it is resident), holding it
while it spends CPU time in proportion too, as segmenting a dense field
does. The plates: "dense" (one well whose fields need 6x the memory of
the rest, as in issue 30), "gradient" (memory grows 1x to 6x across the
plate), "uniform" (every field alike; "sparse", alike and small) and
"equal" (every file the same
size, a dense well in the middle all the same: the file says nothing of
the memory; its need is written at its start, "NEED <bytes>").

Run as a script it is the experiment inside one memory cgroup: it joins
the cgroup, takes the advice (the first three fields, spacrbench's and
optionally spaCR's rule; the plate's), then runs real process pools of each
count over the whole plate and prints one JSON line."""

from __future__ import annotations

import json
import mmap
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

MiB = 2**20
KiB = 1024
BYTES_PER_FILE_BYTE = 1200  # a 20 KiB field needs 23.4 MiB, a 120 KiB one 140.6 MiB
CPU_SECONDS_PER_MIB = 0.0015  # 0.035 s for a sparse field, 0.21 s for a dense one


def field_need(path: str) -> int:
    """The bytes a field needs: written at its start ("NEED <bytes>"), else
    in proportion to its file's size."""
    with open(path, "rb") as f:
        head = f.read(32)
    if head.startswith(b"NEED "):
        return int(head[5:].split()[0])
    return os.path.getsize(path) * BYTES_PER_FILE_BYTE


# The CPU time of field_work, as a factor (the proof test halves it).
WORK_CPU = float(os.environ.get("PLATE_WORK_CPU", "1"))


def field_work(path: str) -> int:
    """Segment one field: memory and CPU time in proportion to its content."""
    return field_work_bytes(field_need(path), WORK_CPU)


def light_field_work(path: str) -> int:
    """field_work's memory with a tenth of its CPU time (the cheap tests)."""
    return field_work_bytes(field_need(path), 0.1)


def field_work_bytes(need: int, cpu: float = 1.0) -> int:
    """need bytes resident, and CPU time in proportion (times cpu), then
    given back."""
    # An anonymous mapping of its own, unmapped at the end: malloc would
    # keep a freed block of this size for the next field (glibc raises its
    # mmap threshold after a free), and the next measurement's baseline
    # would hold it.
    with mmap.mmap(-1, need) as buf:
        buf[::4096] = b"\x01" * len(range(0, need, 4096))  # every page resident
        deadline = time.process_time() + cpu * CPU_SECONDS_PER_MIB * need / MiB
        while time.process_time() < deadline:
            pass
        return len(buf)


def plate_sizes(shape: str, n: int = 12) -> List[int]:
    """File sizes of a plate's fields, in plate order (well by well)."""
    if shape == "dense":  # fields 6-8 are one dense well: 6x the content
        return [(120 if 6 <= i <= 8 else 20) * KiB + 97 * i for i in range(n)]
    if shape == "gradient":  # content grows across the plate, 1x to 6x
        return [20 * KiB + (100 * KiB * i) // (n - 1) for i in range(n)]
    if shape == "uniform":
        return [40 * KiB + 97 * i for i in range(n)]
    if shape == "sparse":  # every field a sparse one (24 MiB): a cheap uniform plate
        return [20 * KiB + 97 * i for i in range(n)]
    if shape == "equal":  # one size for every file; the needs are plate_needs()
        return [60 * KiB] * n
    raise ValueError(f"unknown plate shape {shape!r}")


def plate_needs(shape: str, n: int = 12) -> Optional[List[int]]:
    """What each field needs where its file does not say it (the "equal"
    plate: fields 6-8, a dense well, need the dense plate's 141 MiB, the
    rest 24 MiB), else None."""
    if shape != "equal":
        return None
    return [(120 if 6 <= i <= 8 else 20) * KiB * BYTES_PER_FILE_BYTE for i in range(n)]


def write_plate(directory: str, sizes: List[int],
                needs: Optional[List[int]] = None) -> List[str]:
    """The plate's field files (random bytes: they do not compress); with
    needs, each file starts with its need ("NEED <bytes>")."""
    paths = []
    for i, size in enumerate(sizes):
        path = os.path.join(directory, f"field_{i:03d}.tif")
        head = b"" if needs is None else f"NEED {needs[i]}\n".encode()
        with open(path, "wb") as f:
            f.write(head + os.urandom(size - len(head)))
        paths.append(path)
    return paths


class NoCgroup(Exception):
    """No limited v1 memory cgroup can be made here (the reason)."""


def own_memory_cgroup() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            own = Path("/sys/fs/cgroup/memory") / path.lstrip("/")
            if own.is_dir():
                return own
    raise NoCgroup("no v1 memory cgroup of ours under /sys/fs/cgroup/memory (cgroup v2 or none)")


@contextmanager
def memory_cgroup(limit: int, name: str) -> Iterator[Path]:
    """A v1 memory cgroup below ours named name-PID-N, limited to limit
    bytes, no swap; removed on every path, any process still in it (ours:
    the experiment and its workers) ended first. NoCgroup when it cannot
    be made (not root, cgroup v2)."""
    path = own_memory_cgroup() / f"{name}-{os.getpid()}-{time.monotonic_ns()}"
    try:
        path.mkdir()
        (path / "memory.limit_in_bytes").write_text(str(limit))
        (path / "memory.swappiness").write_text("0")
        if (path / "memory.memsw.limit_in_bytes").exists():
            (path / "memory.memsw.limit_in_bytes").write_text(str(limit))
    except OSError as exc:
        if path.exists():
            path.rmdir()
        raise NoCgroup(f"cannot create a limited memory cgroup {path}: {exc} (needs root)")
    try:
        yield path
    finally:
        for pid in (path / "cgroup.procs").read_text().split():
            try:
                os.kill(int(pid), 9)
            except ProcessLookupError:
                pass
        for _ in range(200):
            try:
                path.rmdir()
                break
            except OSError:
                time.sleep(0.01)


def oom_kills(cgroup: str) -> int:
    with open(os.path.join(cgroup, "memory.oom_control")) as f:
        for line in f:
            if line.startswith("oom_kill "):
                return int(line.split()[1])
    return -1


def pool_run(count: int, fields: List[str], cgroup: str) -> Dict[str, Any]:
    """A real pool of `count` fork workers over the whole plate: its
    throughput, or that it broke (a worker was killed) and the OOM kills."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    before = oom_kills(cgroup)
    start = time.perf_counter()
    ok = True
    try:
        with ProcessPoolExecutor(max_workers=count,
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            list(pool.map(field_work, fields))
    except BrokenProcessPool:
        ok = False
    seconds = time.perf_counter() - start
    return {"workers": count, "completed": ok, "seconds": seconds,
            "items_per_second": len(fields) / seconds if ok else None,
            "oom_kills": oom_kills(cgroup) - before}


def spacr_advice(module_path: str, fields: List[str]) -> Dict[str, Any]:
    """spaCR 1.5.1.5's own rule (its benchmark.py) on the first three."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("spacr_benchmark_upstream", module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    m = module.benchmark(field_work, fields[:3], warmup=1)
    rec = module.recommend_workers(m)
    return {"workers": rec.workers, "reason": rec.reason}


def experiment(cgroup: str, plate_dir: str, counts: List[int],
               spacr: Optional[str]) -> Dict[str, Any]:
    import spacrbench

    fields = sorted(os.path.join(plate_dir, f) for f in os.listdir(plate_dir))
    out: Dict[str, Any] = {}
    if spacr:  # first: spaCR reads ru_maxrss, the process's peak since it began
        out["spacr"] = spacr_advice(spacr, fields)
    m3 = spacrbench.benchmark(field_work, fields[:3], warmup=1)
    r3 = spacrbench.recommend_workers(m3)
    out["first_three"] = {"workers": r3.workers, "reason": r3.reason,
                          "memory_source": r3.memory_source, "notes": m3.notes}
    plate = spacrbench.benchmark_plate(field_work, fields)
    out["plate"] = {"workers": plate.workers, "reason": plate.recommendation.reason,
                    "largest_bytes": plate.prediction.largest_bytes,
                    "fit": plate.prediction.fit, "eta_seconds": plate.eta_seconds,
                    "measured": [p.index for p in plate.sample],
                    "report": spacrbench.format_report(plate),
                    "notes": plate.measurement.notes}
    repeats = int(os.environ.get("PLATE_POOL_REPEATS", "1"))
    out["pools"] = pools_interleaved(counts, fields, cgroup, repeats)
    return out


def pools_interleaved(counts: List[int], fields: List[str], cgroup: str,
                      repeats: int) -> List[Dict[str, Any]]:
    """Pools of each count, `repeats` rounds of every count in turn (1, 2,
    3, 1, 2, 3: a load that comes and goes on the machine shows in every
    count's runs, as their spread, not as one count's speed); a count once
    OOM-killed is not run again. Per count: the fastest run, every run's
    throughput ("runs"), completed only when every run did."""
    result: Dict[int, Dict[str, Any]] = {}
    for _ in range(repeats):
        for k in counts:
            if k in result and not result[k]["completed"]:
                continue
            run = pool_run(k, fields, cgroup)
            if not run["completed"]:
                result[k] = dict(run, runs=[])
                continue
            kept = result.get(k)
            runs = (kept["runs"] if kept else []) + [run["items_per_second"]]
            best = run if not kept or run["items_per_second"] > kept["items_per_second"] else kept
            result[k] = dict(best, runs=runs)
    return [result[k] for k in counts]


def main() -> None:
    cgroup, plate_dir, counts = sys.argv[1], sys.argv[2], sys.argv[3]
    spacr = sys.argv[4] if len(sys.argv) > 4 else None
    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
    cpus = sorted(os.sched_getaffinity(0))[:2]  # two cores, wherever it runs
    os.sched_setaffinity(0, cpus)
    result = experiment(cgroup, plate_dir, [int(k) for k in counts.split(",")], spacr)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
