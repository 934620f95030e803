"""benchmark(): the user's work through the library's serial runner, one run at a time (a module lock)."""

from __future__ import annotations

import _thread
import inspect
import os
import sys
from typing import (TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional, SupportsIndex,
                    SupportsInt, Union)

from ._binding import check, codes, ffi, lib, new_struct, raise_for
from ._errors import SpacrbenchRuntimeError, SpacrbenchTypeError, SpacrbenchValueError
from ._results import Measurement
from ._types import Progress

if TYPE_CHECKING:
    from ._torch import TorchPeak

_serial = _thread.allocate_lock()
_owner: Optional[int] = None  # the thread holding _serial (its get_ident())


class _Run:
    """The running benchmark's state, read by the callbacks."""

    __slots__ = ("work", "items", "count", "progress", "error", "thread", "torch", "line_open")

    def __init__(self, work: Callable[[Any], Any], items: Iterator[Any], count: Optional[int],
                 progress: Optional[Callable[[Any], Any]], torch: "TorchPeak") -> None:
        self.work, self.torch, self.progress = work, torch, progress
        self.items = items  # pulled as each item is processed
        self.count = count  # None: unknown until the items end (a generator)
        self.line_open = False  # progress=True left a "\r" line of unknown total
        self.error: Optional[BaseException] = None
        self.thread = _thread.get_ident()


_active: Optional[_Run] = None  # set while the lock's holder is inside the C call
_END = object()  # what next() returns past the last item


def _after_fork_in_child() -> None:
    global _serial, _owner, _active
    if _owner != _thread.get_ident():  # also a holder that had not yet set _owner
        _serial = _thread.allocate_lock()
        _owner = None
        _active = None


if hasattr(os, "register_at_fork"):  # POSIX; Windows has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _escaped(exc_type: Any, exc_value: Optional[BaseException], tb: Any) -> None:
    """cffi's onerror: an exception past a callback's handler still stops the run."""
    run = _active
    if run is not None and run.error is None and exc_value is not None:
        run.error = exc_value


@ffi.def_extern(error=1, onerror=_escaped)  # type: ignore[untyped-decorator]
def _spacrbench_work(item: Any, payload: Any) -> int:
    run: Any = _active  # never None while the C call runs
    try:
        item = next(run.items, _END)
        if item is _END:
            if run.count is None:  # a generator's end: no item, not timed
                return int(lib.SPACRBENCH_ITEMS_END)
            run.error = SpacrbenchValueError(
                f"items ended early: len(items) said {run.count}, but fewer items came")
            return 1
        run.work(item)  # the return value is ignored
        if run.torch.waiting:  # CUDA may have been started by this item
            run.torch.check()
    except BaseException as exc:  # KeyboardInterrupt too: the C run must unwind
        run.error = exc
        return 1
    return 0


@ffi.def_extern(error=1, onerror=_escaped)  # type: ignore[untyped-decorator]
def _spacrbench_progress(p: Any, payload: Any) -> int:
    run: Any = _active
    try:
        run.progress(p)
    except BaseException as exc:
        run.error = exc
        return 1
    return 0


def _stderr_progress(p: Any) -> None:
    """progress=True: the library's progress line on stderr."""
    stream = sys.stderr
    if stream is None:  # pythonw and daemons may have no stderr
        return
    from ._convert import progress_line

    unknown = p.total < 0  # a generator: any item may be the last
    end = "\r" if (unknown or p.index + 1 < p.total) and stream.isatty() else "\n"
    if unknown and _active is not None:
        _active.line_open = end == "\r"
    stream.write(progress_line(p) + end)
    stream.flush()


def _progress_function(progress: Any) -> Optional[Callable[[Any], Any]]:
    if progress is None or progress is False:
        return None
    if progress is True:
        return _stderr_progress
    if callable(progress):
        from ._convert import from_struct

        user = progress
        return lambda p: user(from_struct(Progress, p))
    raise SpacrbenchTypeError(f"progress must be None, a bool or a callable, not {type(progress).__name__}")


def benchmark(work: Callable[[Any], Any], items: Iterable[Any], *,
              warmup: Union[str, SupportsInt, SupportsIndex] = 1,
              progress: Union[None, bool, Callable[[Progress], Any]] = None,
              timeline: bool = False) -> Measurement:
    """Run work(item) serially over items and measure one worker.

    The first ``warmup`` items run untimed; at least the last is measured.
    Returns a Measurement with the wall time, the exact peak resident memory
    (warm-up included) and, where a GPU is visible, the peak VRAM; an
    exception from work, progress or the items is re-raised unchanged.
    timeline=True also records memory over time (Measurement.timeline).
    Resetting the kernel's high-water mark for an exact peak also lowers
    this process's ru_maxrss (docs/python.md)."""
    return measure(work, items, warmup=warmup, progress=progress, timeline=timeline,
                   spread_note=True)


def measure(work: Callable[[Any], Any], items: Iterable[Any], *, warmup: Any, progress: Any,
            timeline: Any, spread_note: bool,
            finish: Optional[Callable[[Any], None]] = None) -> Measurement:
    """benchmark(), with the caller's spread note choice and a finish(cm) hook before reading."""
    check_plain_callable(work, "work")
    from ._compat import upstream_int

    warmup = max(0, upstream_int(warmup, "warmup"))  # as spaCR: int(), clamped
    progress_fn = _progress_function(progress)
    if not isinstance(timeline, bool):
        raise SpacrbenchTypeError(f"timeline must be a bool, not {type(timeline).__name__}")
    try:
        iterator = iter(items)
    except TypeError:
        raise SpacrbenchTypeError(f"items must be a sequence or iterable, "
                                  f"not {type(items).__name__}") from None
    try:  # None: found by running (spacrbench_benchmark_stream)
        count: Optional[int] = len(items)  # type: ignore[arg-type]
    except TypeError:
        count = None
    if count == 0:
        raise SpacrbenchValueError("benchmark needs at least one item to measure (items is "
                                   "empty)")
    running = _active
    if running is not None and running.thread == _thread.get_ident():
        raise SpacrbenchRuntimeError("benchmark() was called from inside the work or progress "
                                     "function of a running benchmark(); peaks are per process, "
                                     "so benchmarks cannot nest")
    from ._torch import TorchPeak

    global _owner
    with _serial:
        _owner = _thread.get_ident()
        try:
            run = _Run(work, iterator, count, progress_fn, TorchPeak())
            return _run_serialised(run, count, warmup, timeline, spread_note, finish)
        finally:
            _owner = None


def check_plain_callable(work: Any, name: str, what: str = "") -> None:
    """work must run its body when called (not an async def or generator function)."""
    if not callable(work):
        raise SpacrbenchTypeError(f"{what}{name} must be callable, not {type(work).__name__}")
    kind = _lazy_kind(work)
    if kind is None and not (inspect.isroutine(work) or isinstance(work, type)):
        kind = _lazy_kind(getattr(work, "__call__", None))  # an object's async __call__
    if kind is not None:
        raise SpacrbenchTypeError(f"{what}{name} must be a plain function, not {kind} ({work!r}): calling "
                                  f"it only creates a coroutine or generator and runs none of its body, "
                                  f"so nothing would be measured; wrap it, e.g. "
                                  f"lambda item: asyncio.run(f(item)) or lambda item: list(f(item))")


def _run_serialised(run: _Run, n_items: Optional[int], warmup: int, timeline: bool,
                    spread_note: bool, finish: Optional[Callable[[Any], None]]) -> Measurement:
    global _active
    from ._convert import keep_c_measurement, measurement_fields

    opts = new_struct("spacrbench_options")
    check(lib.spacrbench_options_init(opts, ffi.sizeof("spacrbench_options")),
          "spacrbench_options_init")
    opts.warmup = min(warmup, 2**63 - 1)  # the library clamps and notes
    if timeline:
        opts.flags |= lib.SPACRBENCH_FLAG_TIMELINE
    if run.progress is not None:
        opts.progress = lib._spacrbench_progress
    out = ffi.new("spacrbench_measurement **")
    torch_peak = run.torch
    torch_peak.start()
    _active = run
    try:
        if n_items is None:  # the callback says when the items end
            code = lib.spacrbench_benchmark_stream(lib._spacrbench_work, ffi.NULL, opts, out)
        else:
            c_items = ffi.new("void *[]", n_items)  # all NULL: the callback iterates
            code = lib.spacrbench_benchmark(lib._spacrbench_work, c_items, n_items, ffi.NULL,
                                            opts, out)
    finally:
        _active = None
        if run.line_open and sys.stderr is not None:  # end progress=True's last line
            sys.stderr.write("\n")
            sys.stderr.flush()
    if code < 0:
        if out[0] != ffi.NULL:
            lib.spacrbench_measurement_free(out[0])
        error, run.error = run.error, None
        if error is not None:
            try:
                raise error  # the same object, its traceback kept
            finally:
                del error
        if code == codes.ENOITEMS and n_items is None:  # a generator that was empty
            raise SpacrbenchValueError("benchmark needs at least one item to measure (items "
                                       "is empty)")
        if code == codes.EBUSY:
            raise SpacrbenchRuntimeError("benchmark(): another benchmark is running in this process "
                                         "outside spacrbench's Python API (peaks are per process)")
        raise_for(code, "benchmark")
    cm = out[0]
    try:
        if n_items is not None:
            # A for loop's last step, which the C loop (it knows the count)
            # never takes: the iterator ends, so a tqdm bar counts the last
            # item and closes.
            next(run.items, None)
        if spread_note:  # after spaCR's notes, as every spacrbench note
            check(lib.spacrbench_measurement_note_spread(cm, b"spacrbench.benchmark_plate()"),
                  "spacrbench_measurement_note_spread")
        torch_peak.finish(cm)
        if finish is not None:
            finish(cm)
        m = Measurement(**measurement_fields(cm))
    except BaseException:
        lib.spacrbench_measurement_free(cm)
        raise
    keep_c_measurement(m, cm)  # every later call reads this one
    return m


def _lazy_kind(function: Any) -> Optional[str]:
    """What calling function returns instead of running it, if anything."""
    for test, kind in ((inspect.iscoroutinefunction, "an async def function"),
                       (inspect.isasyncgenfunction, "an async generator function"),
                       (inspect.isgeneratorfunction, "a generator function")):
        if test(function):
            return kind
    return None
