"""scale(): the scaling check with a real process pool.

For every worker count k a ``concurrent.futures.ProcessPoolExecutor`` with
the chosen start method is started and warmed (every worker has run one
barrier task, so all k exist), the workers' pids are put into a
``spacrbench_group`` (a memory cgroup of their own where the machine allows,
with the memory budget as its limit, else a sampled sum of their PSS). Each
worker then runs its warm-up items untimed (held by a barrier, so every
worker runs its own), and timed repeats follow: each keeps 2k items in
flight until at least k * min_items items and min_seconds, timed from the
first submit to the last result; more repeats while they differ by more
than the target spread. The points and their spreads go to the C library,
which computes speed-up, efficiency, the memory fit and the knee: the same
rule as ``spacrbench_scale`` and the command.

Safety: a count whose group exceeds its limit is OOM-killed inside the
group (reported as a ``memory`` point), never the caller; a pool that
cannot start all its workers (fork failing under pids.max), a work that
raises, or Ctrl-C ends every worker of the pool at once (no queued item
runs after it) and joins them; pool workers die with the caller
(PR_SET_PDEATHSIG).

What is and is not counted (also written into ``notes``): with a cgroup,
memory a worker used before it joined the group (a spawn worker's
interpreter start-up, the pool's own import of the work's module) is not in
the group's peak; with the PSS fallback it is. Item times include pickling
each item to the worker and the result back.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import multiprocessing
import os
import signal
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from ._binding import NOT_MEASURED, c_text, check, ffi, format_text, lib
from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._results import _cut
from ._words import counted

_barrier: Any = None


#: The command's and the C harness's cap (SB_SCALE_MAX_WORKERS).
MAX_WORKERS = 1024


def _die_with_parent() -> None:
    """A worker ends when its parent does (Linux prctl PR_SET_PDEATHSIG),
    and is the OOM killer's first choice (oom_score_adj 1000)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
    try:  # a job-wide OOM kill picks a worker, never the caller (no group limit)
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


def _init_worker(barrier: Any) -> None:
    global _barrier
    _barrier = barrier
    _die_with_parent()
    # Ctrl-C goes to the caller, which ends the pool: a worker does not
    # print its own KeyboardInterrupt traceback meanwhile.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _warm(_: int) -> int:
    """Held until all k workers run one: each warm task lands on its own."""
    _barrier.wait(timeout=120)
    return os.getpid()


def _warm_item(work: Callable[[Any], Any], item: Any) -> None:
    """One untimed item, then held until all k ran theirs: one per worker."""
    work(item)
    _barrier.wait(timeout=600)


def _timed(work: Callable[[Any], Any], item: Any) -> float:
    start = time.perf_counter()
    work(item)
    return time.perf_counter() - start


@dataclasses.dataclass(frozen=True)
class ScalePoint:
    workers: int
    items: int
    seconds: float
    items_per_second: Optional[float]
    speedup: Optional[float]
    efficiency: Optional[float]
    mean_item_seconds: Optional[float]
    peak_bytes: Optional[int]
    peak_method: str
    fits: Optional[bool]
    failed: bool
    #: The workers' GPU memory together (NVML); None when not measured.
    vram_peak_bytes: Optional[int] = None
    #: Timed repeats, and their spread: (max - min) / (2 * mean) of items/s.
    repeats: int = 0
    spread: Optional[float] = None
    items_per_second_min: Optional[float] = None
    items_per_second_max: Optional[float] = None
    #: Untimed items per worker before the repeats; None unknown.
    warmup_items: Optional[int] = None
    #: The kernel's OOM killer ended the point's group at its limit (the budget).
    oom_killed: bool = False


@dataclasses.dataclass(frozen=True, repr=False)
class ScaleResult:
    points: Tuple[ScalePoint, ...]
    chosen_workers: Optional[int]
    best_workers: Optional[int]
    reason: str
    verdict: str
    notes: Tuple[str, ...]
    peak_method: str
    memory_budget_bytes: Optional[int]
    table: str = dataclasses.field(repr=False)
    json_text: str = dataclasses.field(repr=False)
    #: The library's result (recommend_workers(scaling=...) reads it).
    _c: Any = dataclasses.field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        """The decision only (as Measurement's and Recommendation's);
        to_dict(), .points and str() have everything."""
        counts = [p.workers for p in self.points]
        span = (f"{min(counts)}-{max(counts)} workers" if len(set(counts)) > 1
                else counted(counts[0], "worker") if counts else "none")
        return (f"ScaleResult(chosen_workers={self.chosen_workers!r}, verdict={self.verdict!r}, "
                f"{len(self.points)} point(s): {span}, reason={_cut(self.reason, 48)!r})")

    def __str__(self) -> str:
        return self.table

    def to_dict(self) -> Dict[str, Any]:
        """The library's JSON: {"scaling": [...], "scaling_workers": N, ...}."""
        result: Dict[str, Any] = json.loads(self.json_text)
        return result

    def plot(self, path: Optional[str] = None) -> Any:
        """Throughput and group peak against the worker count, the ideal
        linear line and the knee marked. Needs matplotlib
        (``pip install spacrbench[plot]``). Returns the Figure; with a path,
        also saves it there (format from the suffix)."""
        try:
            Figure = importlib.import_module("matplotlib.figure").Figure
        except ImportError as exc:
            raise ImportError(
                "ScaleResult.plot() needs matplotlib: pip install spacrbench[plot]") from exc
        ok = [p for p in self.points if p.items_per_second is not None]
        fig = Figure(figsize=(9, 3.6))
        ax, mem = fig.subplots(1, 2)
        ks = [p.workers for p in ok]
        ax.plot(ks, [p.items_per_second for p in ok], "o-", label="measured")
        one = next((p for p in ok if p.workers == 1), None)
        if one is not None and one.items_per_second is not None:
            base = one.items_per_second
            ax.plot(ks, [base * k for k in ks], ":", color="grey", label="linear")
        for p in ok:
            if p.workers == self.chosen_workers:
                ax.plot([p.workers], [p.items_per_second], "*", markersize=16, color="C3",
                        label=f"knee: {p.workers}")
        ax.set_xlabel("workers")
        ax.set_ylabel("items/s")
        ax.set_title("throughput")
        ax.legend()
        measured = [p for p in self.points if p.peak_bytes is not None]
        mem.plot([p.workers for p in measured],
                 [(p.peak_bytes or 0) / 2**20 for p in measured], "s-", color="C1")
        budget = self.memory_budget_bytes
        highest = max((p.peak_bytes or 0 for p in measured), default=0)
        if budget is not None and highest > 0 and budget > _BUDGET_ON_SCALE * highest:
            # A line far above the peaks would flatten them: named, not drawn.
            mem.annotate(f"budget {budget / 2**20:,.0f} MiB (above the scale)",
                         xy=(0.98, 0.96), xycoords="axes fraction", ha="right", va="top",
                         fontsize=8, color="C3")
        elif budget is not None:
            mem.axhline(budget / 2**20, color="C3", linestyle="--", label="budget")
            mem.legend()
        mem.set_xlabel("workers")
        mem.set_ylabel("MiB")
        mem.set_title(f"group peak ({self.peak_method})")
        from ._plot import wrapped

        fig.suptitle(wrapped(self.reason, 150), fontsize=8)  # whole, never cut off
        fig.tight_layout()
        if path is not None:
            fig.savefig(path)
        return fig


# The budget line is drawn when it is at most this many times the highest
# group peak; above it, it is named in the panel instead.
_BUDGET_ON_SCALE = 4


def _opt_float(v: float) -> Optional[float]:
    return None if v != v else float(v)  # NaN -> None


def _point_from_c(p: Any, sp: Any) -> ScalePoint:
    return ScalePoint(
        repeats=int(sp.repeats), spread=_opt_float(sp.spread),
        items_per_second_min=_opt_float(sp.items_per_second_min),
        items_per_second_max=_opt_float(sp.items_per_second_max),
        warmup_items=None if sp.warmup_items < 0 else int(sp.warmup_items),
        oom_killed=bool(sp.oom_killed),
        workers=int(p.workers), items=int(p.items), seconds=float(p.seconds),
        items_per_second=_opt_float(p.items_per_second), speedup=_opt_float(p.speedup),
        efficiency=_opt_float(p.efficiency), mean_item_seconds=_opt_float(p.mean_item_seconds),
        peak_bytes=None if p.peak_bytes == NOT_MEASURED else int(p.peak_bytes),
        peak_method=_method_name(int(p.peak_method)),
        fits=None if p.fits < 0 else bool(p.fits), failed=bool(p.failed),
        vram_peak_bytes=None if p.vram_peak_bytes == NOT_MEASURED else int(p.vram_peak_bytes))


def _method_name(method: int) -> str:
    return {lib.SPACRBENCH_PEAK_CGROUP: "cgroup", lib.SPACRBENCH_PEAK_PSS_SUM: "pss_sum",
            lib.SPACRBENCH_PEAK_SUPPLIED: "supplied"}.get(method, "none")


def result_from_points(points: Sequence[Dict[str, Any]], budget_bytes: Optional[int],
                       notes: Sequence[str] = ()) -> ScaleResult:
    """Apply the library's rule to measured points (dicts with workers, items,
    seconds and optionally peak_bytes, peak_method, failed,
    mean_item_seconds, vram_peak_bytes, and the spread of their repeats:
    repeats, spread, items_per_second_min, items_per_second_max,
    warmup_items, oom_killed, limit_bytes)."""
    n = len(points)
    arr = ffi.new("spacrbench_scale_point[]", max(n, 1))
    size = ffi.sizeof("spacrbench_scale_point")
    spreads = ffi.new("spacrbench_scale_spread[]", max(n, 1))
    spread_size = ffi.sizeof("spacrbench_scale_spread")
    for i, src in enumerate(points):
        p = arr[i]
        lib.spacrbench_scale_point_init(ffi.addressof(arr, i), size)
        sp = spreads[i]
        lib.spacrbench_scale_spread_init(ffi.addressof(spreads, i), spread_size)
        sp.repeats = src.get("repeats", 0)
        for key in ("spread", "items_per_second_min", "items_per_second_max"):
            if src.get(key) is not None:
                setattr(sp, key, src[key])
        sp.warmup_items = -1 if src.get("warmup_items") is None else src["warmup_items"]
        sp.oom_killed = 1 if src.get("oom_killed") else 0
        sp.limit_bytes = -1 if src.get("limit_bytes") is None else src["limit_bytes"]
        p.workers = src["workers"]
        p.items = src["items"]
        p.seconds = src["seconds"]
        peak = src.get("peak_bytes")
        p.peak_bytes = NOT_MEASURED if peak is None else peak
        p.peak_method = src.get("peak_method", lib.SPACRBENCH_PEAK_NONE)
        p.failed = 1 if src.get("failed") else 0
        vram = src.get("vram_peak_bytes")
        p.vram_peak_bytes = NOT_MEASURED if vram is None else vram
        mean = src.get("mean_item_seconds")
        if mean is not None:
            p.mean_item_seconds = mean
    out = ffi.new("spacrbench_scale_result **")
    check(lib.spacrbench_scale_from_points_spread(
        arr, n, size, spreads, spread_size, -1 if budget_bytes is None else budget_bytes, out),
        "scale")
    r = ffi.gc(out[0], lib.spacrbench_scale_free)
    for note in notes:
        check(lib.spacrbench_scale_add_note(r, note.encode("utf-8", "replace")), "scale")
    s = ffi.new("spacrbench_scale_summary *")
    s.size = ffi.sizeof("spacrbench_scale_summary")
    check(lib.spacrbench_scale_summary_get(r, s), "scale")
    cp = ffi.new("spacrbench_scale_point *")
    cp.size = size
    csp = ffi.new("spacrbench_scale_spread *")
    csp.size = spread_size
    pts: List[ScalePoint] = []
    for i in range(int(s.point_count)):
        check(lib.spacrbench_scale_point_get(r, i, cp), "scale")
        check(lib.spacrbench_scale_spread_get(r, i, csp), "scale")
        pts.append(_point_from_c(cp, csp))
    all_notes = tuple(c_text(lib.spacrbench_scale_note(r, i)) for i in range(int(s.note_count)))
    return ScaleResult(
        points=tuple(pts),
        chosen_workers=None if s.chosen_workers < 0 else int(s.chosen_workers),
        best_workers=None if s.best_workers < 0 else int(s.best_workers),
        reason=c_text(s.reason), verdict=c_text(lib.spacrbench_scale_verdict_name(s.verdict)),
        notes=all_notes, peak_method=_method_name(int(s.peak_method)),
        memory_budget_bytes=None if s.memory_budget_bytes < 0 else int(s.memory_budget_bytes),
        table=format_text(lambda buf, cap: lib.spacrbench_format_scaling(r, buf, cap), "scale"),
        json_text=format_text(lambda buf, cap: lib.spacrbench_scale_to_json(r, buf, cap),
                              "scale"), _c=r)


class _Group:
    def __init__(self) -> None:
        out = ffi.new("spacrbench_group **")
        check(lib.spacrbench_group_open(0, out), "scale: group")
        self._g = out[0]

    def note(self) -> str:
        return c_text(lib.spacrbench_group_note(self._g))

    def add(self, pid: int) -> None:
        check(lib.spacrbench_group_add_process(self._g, pid), "scale: group")

    def limit(self, bytes_: int) -> bool:
        """The budget as the group's memory limit; False where it has no cgroup."""
        return int(lib.spacrbench_group_set_limit(self._g, bytes_)) == 0

    def oom_kills(self) -> int:
        return int(lib.spacrbench_group_oom_kills(self._g))

    def sampling(self) -> str:
        """How often the PSS sampler really sampled ("" with a cgroup)."""
        return c_text(lib.spacrbench_group_sampling_note(self._g))

    def peak(self) -> Tuple[Optional[int], int]:
        b = ffi.new("int64_t *")
        m = ffi.new("int32_t *")
        check(lib.spacrbench_group_peak(self._g, b, m), "scale: group")
        return (None if b[0] < 0 else int(b[0])), int(m[0])

    def close(self) -> None:
        if self._g != ffi.NULL:
            g, self._g = self._g, ffi.NULL
            check(lib.spacrbench_group_close(g), "scale: group")


@dataclasses.dataclass(frozen=True)
class _Timing:
    warmup_items: int
    min_items: int
    min_seconds: float
    min_repeats: int
    max_repeats: int
    target_spread: float


def _end_pool(pool: ProcessPoolExecutor, barrier: Any) -> None:
    """Stop a pool now: nothing queued runs, every worker is killed and
    joined (a worker held at the barrier is released first)."""
    try:
        barrier.abort()
    except Exception:  # already broken or gone
        pass
    procs = list(getattr(pool, "_processes", {}).values())
    for proc in procs:
        try:
            proc.kill()
        except Exception:  # already gone
            pass
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.join(timeout=5)
    pool.shutdown(wait=True, cancel_futures=True)


def _repeat(pool: ProcessPoolExecutor, work: Callable[[Any], Any], items: List[Any], k: int,
            timing: _Timing, cursor: List[int]) -> Tuple[int, float, List[float]]:
    """One timed repeat: 2k items in flight until k * min_items items and
    min_seconds. (items, seconds, item times); raises what the work raised."""
    n = len(items)
    want = k * timing.min_items
    times: List[float] = []
    flying: Set[Future[float]] = set()
    submitted = 0
    start = time.perf_counter()
    while True:
        enough = submitted >= want and time.perf_counter() - start >= timing.min_seconds
        while not enough and len(flying) < 2 * k:
            flying.add(pool.submit(_timed, work, items[cursor[0] % n]))
            cursor[0] += 1
            submitted += 1
            enough = submitted >= want and time.perf_counter() - start >= timing.min_seconds
        if not flying:
            break
        done, flying = wait(flying, return_when=FIRST_COMPLETED)
        for f in done:
            times.append(f.result())
    return len(times), time.perf_counter() - start, times


def _spread_of(ips: List[float]) -> Optional[float]:
    if len(ips) < 2 or sum(ips) <= 0:
        return None
    return (max(ips) - min(ips)) / (2 * sum(ips) / len(ips))


def _measure(work: Callable[[Any], Any], items: List[Any], k: int, timing: _Timing,
             ctx: Any, budget: int, notes: List[str]) -> Dict[str, Any]:
    point: Dict[str, Any] = {"workers": k, "items": 0, "seconds": 0.0, "failed": False,
                             "warmup_items": timing.warmup_items}
    barrier = ctx.Barrier(k)
    pool = ProcessPoolExecutor(max_workers=k, mp_context=ctx, initializer=_init_worker,
                               initargs=(barrier,))
    group: Optional[_Group] = None
    ended = False
    try:
        try:
            list(pool.map(_warm, range(k)))
        except Exception as exc:  # fork/spawn failed (pids.max, memory): a failed point
            notes.append(f"{counted(k, 'worker')}: the pool could not start them all: {exc!r}")
            point["failed"] = True
            _end_pool(pool, barrier)
            ended = True
            return point
        group = _Group()
        if not notes:
            notes.append(group.note())
        if budget > 0 and group.limit(budget):
            point["limit_bytes"] = budget
        for pid in list(pool._processes):  # every worker of the pool, warm
            group.add(pid)
        n = len(items)
        cursor = [0]
        try:
            for _ in range(timing.warmup_items):
                list(pool.map(_warm_item, [work] * k,
                              [items[(cursor[0] + w * n // k) % n] for w in range(k)]))
                cursor[0] += 1
            ips: List[float] = []
            times: List[float] = []
            while True:
                count, seconds, item_times = _repeat(pool, work, items, k, timing, cursor)
                point["items"] += count
                point["seconds"] += seconds
                times += item_times
                ips.append(count / seconds)
                spread = _spread_of(ips)
                if len(ips) >= timing.max_repeats or (
                        len(ips) >= timing.min_repeats
                        and (spread is None or spread <= timing.target_spread)):
                    break
            point["repeats"] = len(ips)
            point["spread"] = _spread_of(ips)
            point["items_per_second_min"], point["items_per_second_max"] = min(ips), max(ips)
            if times:
                point["mean_item_seconds"] = sum(times) / len(times)
        except Exception as exc:  # the work raised, or the pool broke (a worker died)
            point["failed"] = True
            kills = group.oom_kills()
            if kills > 0 and point.get("limit_bytes"):
                point["oom_killed"] = True
                notes.append(f"{counted(k, 'worker')}: OOM-killed in {'its' if k == 1 else 'their'} "
                             f"group at its limit "
                             f"(the budget); the caller is above the group and was not touched")
            else:
                notes.append(f"{counted(k, 'worker')}: the work raised {exc!r}")
            _end_pool(pool, barrier)
            ended = True
        point["peak_bytes"], point["peak_method"] = group.peak()
        if group.sampling():
            notes.append(f"{counted(k, 'worker')}: {group.sampling()}")
    except BaseException:  # Ctrl-C, SystemExit: end the pool now, then go on up
        _end_pool(pool, barrier)
        ended = True
        raise
    finally:
        if not ended:
            pool.shutdown(wait=True)
        if group is not None:
            group.close()
    return point


def _check_count(name: str, value: Any, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpacrbenchTypeError(f"scale(): {name} must be an int, not {type(value).__name__}")
    if value < low:
        raise SpacrbenchValueError(f"scale(): {name} must be >= {low}, got {value}")
    return value


def _check_picklable(work: Callable[[Any], Any], items: List[Any]) -> None:
    """ProcessPoolExecutor pickles every call it sends to a worker, whatever
    the start method (fork only spares the pool's initializer): an
    unpicklable work or item would fail every point, each item alike. The
    pool's own pickler is used (multiprocessing's reducers included)."""
    from multiprocessing.reduction import ForkingPickler

    try:
        ForkingPickler.dumps(work)
    except Exception as exc:
        raise SpacrbenchTypeError(f"scale(): work must be picklable (a top-level function of an "
                        f"importable module, not a lambda or a nested function): the process "
                        f"pool sends it to its workers with pickle under every start method, "
                        f"fork included; pickling {work!r} failed: {exc!r}") from exc
    for i, item in enumerate(items):
        try:
            ForkingPickler.dumps(item)
        except Exception as exc:
            raise SpacrbenchTypeError(f"scale(): items[{i}] must be picklable: the process pool sends "
                            f"each item to a worker with pickle; pickling it failed: "
                            f"{exc!r}") from exc


def _timing_defaults() -> Any:
    t = ffi.new("spacrbench_scale_timing *")
    check(lib.spacrbench_scale_timing_init(t, ffi.sizeof("spacrbench_scale_timing")), "scale")
    return t


def _check_seconds(name: str, value: Any, top: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpacrbenchTypeError(f"scale(): {name} must be a number, not {type(value).__name__}")
    if not 0 <= value <= top:
        raise SpacrbenchValueError(f"scale(): {name} must be between 0 and {top}, got {value}")
    return float(value)


def scale(work: Callable[[Any], Any], items: Sequence[Any], *,
          workers: Optional[Sequence[int]] = None, start_method: Optional[str] = None,
          items_per_worker: Optional[int] = None,
          memory_budget_bytes: Optional[int] = None,
          warmup_items: Optional[int] = None, min_seconds: Optional[float] = None,
          min_repeats: Optional[int] = None, max_repeats: Optional[int] = None,
          target_spread: Optional[float] = None) -> ScaleResult:
    """Run ``work`` over ``items`` with several worker counts in real process
    pools and find the knee. ``workers`` defaults to 1, 2, 4, ... up to
    min(usable cores, workers whose 1-worker group peak fits the budget, + 1)
    (at most 1024); ``memory_budget_bytes`` defaults to available memory
    less the reserve, and is each count's group memory limit.

    Timing (the library's defaults, docs/scaling.md): each worker first runs
    ``warmup_items`` untimed items (1); each timed repeat then runs at least
    ``items_per_worker`` items per worker (3) and ``min_seconds`` (1.0);
    ``min_repeats`` to ``max_repeats`` repeats (2 to 5), more while they
    differ by more than ``target_spread`` (0.05, i.e. +-5 %).
    ``work`` and the items must be picklable under EVERY start method, fork
    included: ProcessPoolExecutor sends each call (the function and its
    item) to a worker through a pipe with pickle. So ``work`` is a
    top-level function of an importable module (not a lambda or a nested
    function); spawn and forkserver workers also import that module. Both
    are checked before any pool starts (a TypeError naming them)."""
    from ._run import check_plain_callable

    check_plain_callable(work, "work", "scale(): ")
    try:
        iterator = iter(items)
    except TypeError:
        raise SpacrbenchTypeError(f"scale(): items must be a sequence or iterable, not {items!r} "
                        f"({type(items).__name__})") from None
    item_list = list(iterator)
    if not item_list:
        raise SpacrbenchValueError("scale(): items must not be empty")
    counts: Optional[List[int]] = None
    if workers is not None:
        if isinstance(workers, (str, bytes)) or not hasattr(workers, "__iter__"):
            raise SpacrbenchTypeError("scale(): workers must be a sequence of ints")
        counts = [_check_count("workers", k) for k in workers]
        if not counts:
            raise SpacrbenchValueError("scale(): workers must not be empty")
        if len(set(counts)) != len(counts):
            raise SpacrbenchValueError(f"scale(): workers has a repeated count: {counts}")
    if start_method is not None and not isinstance(start_method, str):
        raise SpacrbenchTypeError(f"scale(): start_method must be a str or None, not {start_method!r} "
                        f"({type(start_method).__name__})")
    if start_method is not None and start_method not in multiprocessing.get_all_start_methods():
        raise SpacrbenchValueError(f"scale(): start_method must be one of "
                         f"{multiprocessing.get_all_start_methods()}, got {start_method!r}")
    if counts is not None and max(counts) > MAX_WORKERS:
        raise SpacrbenchValueError(f"scale(): workers has {max(counts)}; at most {MAX_WORKERS} "
                         f"(the command's cap)")
    d = _timing_defaults()
    timing = _Timing(
        warmup_items=int(d.warmup_items) if warmup_items is None else _check_count(
            "warmup_items", warmup_items, low=0),
        min_items=int(d.min_items) if items_per_worker is None else _check_count(
            "items_per_worker", items_per_worker),
        min_seconds=float(d.min_seconds) if min_seconds is None else _check_seconds(
            "min_seconds", min_seconds, 86400.0),
        min_repeats=int(d.min_repeats) if min_repeats is None else _check_count(
            "min_repeats", min_repeats),
        max_repeats=int(d.max_repeats) if max_repeats is None else _check_count(
            "max_repeats", max_repeats),
        target_spread=float(d.target_spread) if target_spread is None else _check_seconds(
            "target_spread", target_spread, 100.0))
    if timing.max_repeats < timing.min_repeats or timing.max_repeats > 100:
        raise SpacrbenchValueError(f"scale(): max_repeats must be >= min_repeats and <= 100, got "
                         f"min_repeats={timing.min_repeats}, max_repeats={timing.max_repeats}")
    if memory_budget_bytes is None:
        budget = int(lib.spacrbench_scale_memory_budget())
    else:
        if isinstance(memory_budget_bytes, bool) or not isinstance(memory_budget_bytes, int):
            raise SpacrbenchTypeError("scale(): memory_budget_bytes must be an int")
        if memory_budget_bytes < 0:
            raise SpacrbenchValueError(f"scale(): memory_budget_bytes must be >= 0, "
                             f"got {memory_budget_bytes}")
        budget = memory_budget_bytes
    _check_picklable(work, item_list)
    ctx = multiprocessing.get_context(start_method)
    notes: List[str] = []
    points = []
    if counts is None:
        points.append(_measure(work, item_list, 1, timing, ctx, budget, notes))
        cores = int(lib.spacrbench_usable_cores())
        top = cores
        peak1 = points[0].get("peak_bytes")
        if budget >= 0 and peak1:
            top = min(top, budget // peak1 + 1)
        top = min(top, MAX_WORKERS)
        counts = [1] + [k for k in (2 ** i for i in range(1, 11)) if k < top] + (
            [top] if top > 1 else [])
        notes.append(f"worker counts up to {top}: {counted(cores, 'usable core')}")
        rest = counts[1:]
    else:
        rest = counts
    for k in rest:
        points.append(_measure(work, item_list, k, timing, ctx, budget, notes))
    notes.append(f"timing: {timing.warmup_items} warm-up item(s) per worker untimed; each "
                 f"timed repeat runs at least {timing.min_items} item(s) per worker and "
                 f"{timing.min_seconds:.2f} s; {timing.min_repeats} to {timing.max_repeats} "
                 f"repeats (more while they differ by more than "
                 f"\u00b1{100 * timing.target_spread:.0f} %)")
    notes.append(f"Python pool: concurrent.futures.ProcessPoolExecutor, start method "
                 f"{ctx.get_start_method()}; item times include pickling the item and result; "
                 f"with a cgroup, memory a worker used before it joined the group (its start-up) "
                 f"is not counted")
    return result_from_points(points, None if budget < 0 else budget, notes)


__all__ = ["MAX_WORKERS", "ScalePoint", "ScaleResult", "scale"]
