"""scale(): the executor (process pools through cffi callbacks) of the library's scaling driver."""

from __future__ import annotations

import _thread
import multiprocessing
import os
import signal
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from ._binding import check, codes, ffi, lib
from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._scale_result import ScalePoint, ScaleResult, result_from_c

_barrier: Any = None
_INT64 = 2**63 - 1


def _init_worker(barrier: Any, parent: int) -> None:
    global _barrier
    _barrier = barrier
    if hasattr(lib, "spacrbench_scale_worker_begin"):
        lib.spacrbench_scale_worker_begin(parent)  # dies with the caller, OOM's first pick
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


def _timed(work: Callable[[Any], Any], item: Any) -> Tuple[float, int]:
    start = time.perf_counter()
    work(item)
    return time.perf_counter() - start, os.getpid()


class _Pool:
    """The executor: one pool per count, the driver's rounds run on it."""

    def __init__(self, work: Callable[[Any], Any], items: List[Any], ctx: Any) -> None:
        self.work, self.items, self.ctx = work, items, ctx
        self.pool: Optional[ProcessPoolExecutor] = None
        self.barrier: Any = None
        self.slot: Dict[int, int] = {}  # a worker's pid -> its index in the count
        self.error: Optional[BaseException] = None  # Ctrl-C and the like: re-raised

    def open(self, k: int, pids: Any, out: Any) -> int:
        self.barrier = self.ctx.Barrier(k)
        self.pool = ProcessPoolExecutor(max_workers=k, mp_context=self.ctx,
                                        initializer=_init_worker,
                                        initargs=(self.barrier, os.getpid()))
        try:
            list(self.pool.map(_warm, range(k)))
        except Exception as exc:  # fork/spawn failed (pids.max, memory): a failed point
            _say(out, f"the pool could not start them all: {exc!r}")
            self.end()
            return 1
        workers = list(self.pool._processes)  # every worker of the pool, warm
        self.slot = {pid: i for i, pid in enumerate(workers)}
        for i, pid in enumerate(workers[:k]):
            pids[i] = pid
        return 0

    def round(self, r: Any, done: Any, out: Any) -> None:
        k, m, n = int(r.workers), int(r.items), len(self.items)
        first = [int(r.first[w]) for w in range(k)]
        pool: Any = self.pool
        if r.warmup:
            start = time.perf_counter()
            for j in range(m):
                batch = [self.items[(first[w] + j) % n] for w in range(k)]
                if not self._ran(lambda: list(pool.map(_warm_item, [self.work] * k, batch)),
                                 out):
                    return
            for w in range(k):  # the barrier gave each worker one per turn
                done[w].items, done[w].end = m, lib.SPACRBENCH_SCALE_WORKER_DONE
            out.seconds = time.perf_counter() - start
            return
        order = [self.items[(first[w] + j) % n] for j in range(m) for w in range(k)]
        flying: Set[Future[Tuple[float, int]]] = set()
        queued = iter(order)
        start = time.perf_counter()
        ended = 0
        while ended < len(order):
            for item in queued:
                flying.add(pool.submit(_timed, self.work, item))
                if len(flying) >= 2 * k:
                    break
            finished, flying = wait(flying, return_when=FIRST_COMPLETED)
            for f in finished:
                got: List[Tuple[float, int]] = []
                if not self._ran(lambda: got.append(f.result()), out):
                    return
                seconds, pid = got[0]
                w = self.slot.get(pid, 0)
                done[w].items += 1
                done[w].item_seconds += seconds
                ended += 1
        out.seconds = time.perf_counter() - start
        for w in range(k):
            done[w].end = lib.SPACRBENCH_SCALE_WORKER_DONE

    def _ran(self, call: Callable[[], Any], out: Any) -> bool:
        """call(); False when the work raised or the pool broke."""
        try:
            call()
        except BrokenProcessPool as exc:
            out.failed = 1
            _say(out, f"a worker of the pool died: {exc!r}")
            return False
        except Exception as exc:
            out.failed = 1
            _say(out, f"the work raised {exc!r}")
            return False
        return True

    def close(self, failed: bool) -> None:
        if failed:
            self.end()
        elif self.pool is not None:
            self.pool.shutdown(wait=True)
            self.pool = None

    def end(self) -> None:
        """Stop the pool now: every worker is killed and joined."""
        pool, self.pool = self.pool, None
        if pool is None:
            return
        with suppress(Exception):  # already broken or gone
            self.barrier.abort()
        procs = list(getattr(pool, "_processes", {}).values())
        for proc in procs:
            with suppress(Exception):  # already gone
                proc.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            proc.join(timeout=5)
        pool.shutdown(wait=True, cancel_futures=True)


def _say(out: Any, text: str) -> None:
    from ._convert import _put_text

    _put_text(out.why, text, "why")


_serial = _thread.allocate_lock()  # one check at a time; the callbacks read _running
_running: Optional[_Pool] = None


def _after_fork_in_child() -> None:
    """A pool worker forked while the check held the lock: never its own."""
    global _serial, _running
    _serial = _thread.allocate_lock()
    _running = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _escaped(exc_type: Any, exc_value: Optional[BaseException], tb: Any) -> None:
    """cffi's onerror: an exception past a callback's handler still aborts the check."""
    if _running is not None and _running.error is None and exc_value is not None:
        _running.error = exc_value


def _on_pool(call: Callable[[Any], Optional[int]]) -> int:
    """call(the running pool); anything it raises ends the pool and is re-raised by scale()."""
    pool: Any = _running
    try:
        return int(call(pool) or 0)
    except BaseException as exc:
        pool.error = exc
        pool.end()
        return int(codes.EUSER)


@ffi.def_extern(error=int(codes.EUSER), onerror=_escaped)  # type: ignore[untyped-decorator]
def _spacrbench_scale_open(driver: Any, workers: int, budget: int, pids: Any, out: Any,
                           payload: Any) -> int:
    return _on_pool(lambda pool: pool.open(int(workers), pids, out))


@ffi.def_extern(error=int(codes.EUSER), onerror=_escaped)  # type: ignore[untyped-decorator]
def _spacrbench_scale_round(driver: Any, r: Any, done: Any, out: Any, payload: Any) -> int:
    return _on_pool(lambda pool: pool.round(r, done, out))


@ffi.def_extern(error=int(codes.EUSER), onerror=_escaped)  # type: ignore[untyped-decorator]
def _spacrbench_scale_close(driver: Any, failed: int, count: Any, payload: Any) -> int:
    return _on_pool(lambda pool: pool.close(bool(failed)))


def _check_int(name: str, value: Any) -> Optional[int]:
    """An int argument or None; the library checks the range."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpacrbenchTypeError(f"scale(): {name} must be an int, not {type(value).__name__}")
    if not -_INT64 <= value <= _INT64:
        raise SpacrbenchValueError(f"scale(): {name} is {value}, out of range")
    return value


def _check_number(name: str, value: Any) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpacrbenchTypeError(f"scale(): {name} must be a number, not {type(value).__name__}")
    return float(value)


def _check_counts(workers: Any) -> Optional[List[int]]:
    """The counts as ints, checked by the library (its words name workers)."""
    if workers is None:
        return None
    if isinstance(workers, (str, bytes)) or not hasattr(workers, "__iter__"):
        raise SpacrbenchTypeError("scale(): workers must be a sequence of ints")
    counts = [_check_int("workers", k) for k in workers]
    if not counts or None in counts:
        raise SpacrbenchValueError(f"scale(): workers must not be empty nor hold None: {counts}")
    check(lib.spacrbench_scale_check_counts(ffi.new("int64_t[]", counts), len(counts),
                                            b"workers"), "scale()")
    return counts  # type: ignore[return-value]


def _check_picklable(work: Callable[[Any], Any], items: List[Any]) -> None:
    """The pool pickles every call under every start method: check work and an item first."""
    from multiprocessing.reduction import ForkingPickler

    try:
        ForkingPickler.dumps(work)
    except Exception as exc:
        raise SpacrbenchTypeError(
            f"scale(): work must be picklable (a top-level function of an importable module, "
            f"not a lambda or a nested function): the process pool sends it to its workers "
            f"with pickle under every start method, fork included; pickling {work!r} failed: "
            f"{exc!r}") from exc
    for i, item in enumerate(items):
        try:
            ForkingPickler.dumps(item)
        except Exception as exc:
            raise SpacrbenchTypeError(
                f"scale(): items[{i}] must be picklable: the process pool sends each item to a "
                f"worker with pickle; pickling it failed: {exc!r}") from exc


def _context(start_method: Any) -> Any:
    if start_method is not None and not isinstance(start_method, str):
        raise SpacrbenchTypeError(f"scale(): start_method must be a str or None, not "
                                  f"{start_method!r} ({type(start_method).__name__})")
    if start_method is not None and start_method not in multiprocessing.get_all_start_methods():
        raise SpacrbenchValueError(f"scale(): start_method must be one of "
                                   f"{multiprocessing.get_all_start_methods()}, got "
                                   f"{start_method!r}")
    return multiprocessing.get_context(start_method)


def _options(counts: Optional[List[int]], items_per_worker: Optional[int],
             budget: Optional[int]) -> Tuple[Any, Any]:
    opts = ffi.new("spacrbench_scale_options *")
    check(lib.spacrbench_scale_options_init(opts, ffi.sizeof("spacrbench_scale_options")),
          "scale")
    keep = ffi.new("int64_t[]", counts or [0])
    if counts:
        opts.worker_counts, opts.n_worker_counts = keep, len(counts)
    if items_per_worker is not None:
        opts.items_per_worker = items_per_worker
    if budget is not None:
        if budget < 0:
            raise SpacrbenchValueError(f"scale(): memory_budget_bytes must be >= 0, "
                                       f"got {budget}")
        opts.memory_budget_bytes = budget
    return opts, keep


def scale(work: Callable[[Any], Any], items: Sequence[Any], *,
          workers: Optional[Sequence[int]] = None, start_method: Optional[str] = None,
          items_per_worker: Optional[int] = None,
          memory_budget_bytes: Optional[int] = None,
          warmup_items: Optional[int] = None, min_seconds: Optional[float] = None,
          min_repeats: Optional[int] = None, max_repeats: Optional[int] = None,
          target_spread: Optional[float] = None) -> ScaleResult:
    """Run ``work`` over ``items`` with several worker counts in real process
    pools and find the knee (docs/scaling.md). ``workers`` defaults to 1, 2,
    4, ... up to what the cores and ``memory_budget_bytes`` (default:
    available memory less the reserve) allow. ``work`` and the items must be
    picklable (a top-level function of an importable module): a TypeError
    naming them before any pool starts."""
    global _running
    from ._run import check_plain_callable

    check_plain_callable(work, "work", "scale(): ")
    try:
        iterator = iter(items)
    except TypeError:
        raise SpacrbenchTypeError(f"scale(): items must be a sequence or iterable, not "
                                  f"{items!r} ({type(items).__name__})") from None
    item_list = list(iterator)
    if not item_list:
        raise SpacrbenchValueError("scale(): items must not be empty")
    counts = _check_counts(workers)
    ctx = _context(start_method)
    opts, keep = _options(counts, _check_int("items_per_worker", items_per_worker),
                          _check_int("memory_budget_bytes", memory_budget_bytes))
    timing = ffi.new("spacrbench_scale_timing *")
    check(lib.spacrbench_scale_timing_init(timing, ffi.sizeof("spacrbench_scale_timing")),
          "scale")
    for name, value in (("warmup_items", _check_int("warmup_items", warmup_items)),
                        ("min_seconds", _check_number("min_seconds", min_seconds)),
                        ("min_repeats", _check_int("min_repeats", min_repeats)),
                        ("max_repeats", _check_int("max_repeats", max_repeats)),
                        ("target_spread", _check_number("target_spread", target_spread))):
        if value is not None:
            setattr(timing, name, value)
    _check_picklable(work, item_list)
    ex = ffi.new("spacrbench_scale_executor *")
    check(lib.spacrbench_scale_executor_init(ex, ffi.sizeof("spacrbench_scale_executor")),
          "scale")
    ex.flags = lib.SPACRBENCH_SCALE_EXECUTOR_GROUP
    ex.open, ex.round, ex.close = (lib._spacrbench_scale_open, lib._spacrbench_scale_round,
                                   lib._spacrbench_scale_close)
    out = ffi.new("spacrbench_scale_result **")
    with _serial:
        _running = pool = _Pool(work, item_list, ctx)
        try:
            code = lib.spacrbench_scale_execute(ex, len(item_list), opts, timing, out)
        finally:
            pool.end()
            _running = None
    del keep
    if pool.error is not None:
        if out[0] != ffi.NULL:
            lib.spacrbench_scale_free(out[0])
        raise pool.error
    check(code, "scale")
    note = (f"Python pool: concurrent.futures.ProcessPoolExecutor, start method "
            f"{ctx.get_start_method()}; item times include pickling the item and result; with "
            f"a cgroup, memory a worker used before it joined the group (its start-up) is not "
            f"counted")
    code = lib.spacrbench_scale_add_note(out[0], note.encode())
    if code < 0:
        lib.spacrbench_scale_free(out[0])
        check(code, "scale")
    return result_from_c(out[0])


__all__ = ["ScalePoint", "ScaleResult", "scale"]
