"""benchmark(): run the user's work through the library's serial runner.

Threading rule: peaks are per process, so the library refuses a second
concurrent run (SPACRBENCH_EBUSY). Python callers are serialised with a
module lock instead: a benchmark() from another thread waits its turn. A
benchmark() from inside the work (same thread) would wait for itself, so it
raises RuntimeError instead."""

from __future__ import annotations

import dataclasses
import sys
import threading
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from ._binding import NOT_MEASURED, check, codes, ffi, lib, new_struct, raise_for
from ._convert import measurement_from_c
from ._torch import TorchPeak
from ._types import Measurement, Progress

ProgressArg = Union[None, bool, Callable[[Progress], Any]]

_serial = threading.Lock()
_local = threading.local()  # .run: the _Run of this thread's benchmark()


class _Run:
    """State shared with the callbacks through ffi.new_handle."""

    __slots__ = ("work", "progress", "error")

    def __init__(self, work: Callable[[Any], Any],
                 progress: Optional[Callable[[Progress], Any]]) -> None:
        self.work = work
        self.progress = progress
        self.error: Optional[BaseException] = None


def _escaped(exc_type: Any, exc_value: Optional[BaseException], tb: Any) -> None:
    """cffi's onerror: an exception that got past a callback's own handler
    (e.g. KeyboardInterrupt delivered on its last line) still stops the run
    (error=1) and is re-raised by benchmark()."""
    run = getattr(_local, "run", None)
    if run is not None and run.error is None and exc_value is not None:
        run.error = exc_value


@ffi.def_extern(error=1, onerror=_escaped)  # type: ignore[untyped-decorator]
def _spacrbench_work(item: Any, payload: Any) -> int:
    run = ffi.from_handle(payload)
    try:
        run.work(ffi.from_handle(item))  # the return value is ignored
    except BaseException as exc:  # KeyboardInterrupt too: the C run must unwind
        run.error = exc
        return 1
    return 0


@ffi.def_extern(error=1, onerror=_escaped)  # type: ignore[untyped-decorator]
def _spacrbench_progress(p: Any, payload: Any) -> int:
    run = ffi.from_handle(payload)
    try:
        run.progress(Progress(
            index=int(p.index), total=int(p.total), is_warmup=bool(p.is_warmup),
            item_seconds=float(p.item_seconds), elapsed_seconds=float(p.elapsed_seconds),
            item_peak_rss_bytes=None if p.item_peak_rss_bytes == NOT_MEASURED
            else int(p.item_peak_rss_bytes)))
    except BaseException as exc:
        run.error = exc
        return 1
    return 0


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def _stderr_progress(p: Progress) -> None:
    """progress=True: one line per item; on a terminal, one line rewritten."""
    stream = sys.stderr
    if stream is None:  # pythonw and daemons may have no stderr
        return
    stage = "warm-up" if p.is_warmup else "measured"
    peak = "" if p.item_peak_rss_bytes is None else f", peak {_mib(p.item_peak_rss_bytes)}"
    last = p.index + 1 >= p.total
    end = "\r" if stream.isatty() and not last else "\n"
    stream.write(f"spacrbench: item {p.index + 1}/{p.total} ({stage}) "
                     f"{p.item_seconds:.3f} s{peak}{end}")
    stream.flush()


def _progress_function(progress: ProgressArg) -> Optional[Callable[[Progress], Any]]:
    if progress is None or progress is False:
        return None
    if progress is True:
        return _stderr_progress
    if callable(progress):
        return progress
    raise TypeError(f"progress must be None, a bool or a callable, not {type(progress).__name__}")


def benchmark(work: Callable[[Any], Any], items: Iterable[Any], *, warmup: int = 1,
              progress: ProgressArg = None) -> Measurement:
    """Run work(item) serially over items and measure one worker.

    The first `warmup` items run untimed (imports, caches, JIT); at least the
    last item is always measured. Returns a Measurement with wall time, the
    exact peak resident memory (warm-up included) and, where a GPU is visible,
    the peak VRAM. An exception raised by work or progress stops the run and
    is re-raised here unchanged.
    """
    if not callable(work):
        raise TypeError(f"work must be callable, not {type(work).__name__}")
    if isinstance(warmup, bool) or not isinstance(warmup, int):
        raise TypeError(f"warmup must be an int, not {type(warmup).__name__}")
    if warmup < 0:
        raise ValueError(f"warmup must be >= 0, not {warmup}")
    progress_fn = _progress_function(progress)
    try:
        iterator = iter(items)
    except TypeError:
        raise TypeError(f"items must be a sequence or iterable, not {type(items).__name__}") from None
    seq = list(iterator)  # an error raised by the caller's generator passes unchanged
    if not seq:
        raise ValueError("items must not be empty: there is nothing to measure")
    notes: List[str] = []
    if warmup >= len(seq):
        notes.append(f"warm-up clamped from {warmup} to {len(seq) - 1} item(s) "
                     f"so that the last of the {len(seq)} items is measured")
        warmup = len(seq) - 1
    if getattr(_local, "run", None) is not None:
        raise RuntimeError("benchmark() was called from inside the work or progress "
                           "function of a running benchmark(); peaks are per process, "
                           "so benchmarks cannot nest")
    with _serial:
        return _run_serialised(work, seq, warmup, progress_fn, notes)


def _run_serialised(work: Callable[[Any], Any], seq: List[Any], warmup: int,
                    progress_fn: Optional[Callable[[Progress], Any]],
                    notes: List[str]) -> Measurement:
    run = _Run(work, progress_fn)
    run_handle = ffi.new_handle(run)
    handles = [ffi.new_handle(item) for item in seq]  # alive until the call returns
    c_items = ffi.new("void *[]", handles)
    opts = new_struct("spacrbench_options")
    check(lib.spacrbench_options_init(opts, ffi.sizeof("spacrbench_options")),
          "spacrbench_options_init")
    opts.warmup = warmup
    if progress_fn is not None:
        opts.progress = lib._spacrbench_progress
        opts.progress_payload = run_handle
    out = ffi.new("spacrbench_measurement **")
    torch_peak = TorchPeak()
    torch_peak.start()
    _local.run = run
    try:
        code = lib.spacrbench_benchmark(lib._spacrbench_work, c_items, len(seq),
                                        run_handle, opts, out)
    finally:
        _local.run = None
    if code < 0:
        if out[0] != ffi.NULL:
            lib.spacrbench_measurement_free(out[0])
        error, run.error = run.error, None
        if error is not None:
            try:
                raise error  # the same object, its traceback kept
            finally:
                del error
        if code == codes.EBUSY:
            raise RuntimeError("benchmark(): another benchmark is running in this process "
                               "outside spacrbench's Python API (peaks are per process)")
        raise_for(code, "benchmark")
    try:
        m = measurement_from_c(out[0])
    finally:
        lib.spacrbench_measurement_free(out[0])
    return _merge_torch(m, notes, torch_peak)


def _merge_torch(m: Measurement, notes: List[str], torch_peak: TorchPeak) -> Measurement:
    """Add the Python-side notes and, where NVML gave nothing, torch's VRAM peak."""
    reserved = torch_peak.finish()
    notes = notes + torch_peak.notes
    changes: Dict[str, Any] = {}
    if reserved is not None:
        if m.peak_vram_bytes is None:
            changes.update(peak_vram_bytes=reserved, vram_source="torch")
            notes.append(f"VRAM peak from torch.cuda.max_memory_reserved(): {_mib(reserved)} "
                         "(the library had no per-process GPU figure)")
        else:
            notes.append(f"VRAM peak from {m.vram_source or 'the library'}: "
                         f"{_mib(m.peak_vram_bytes)}; torch.cuda.max_memory_reserved() "
                         f"reported {_mib(reserved)}")
    if not notes and not changes:
        return m
    return dataclasses.replace(m, notes=list(m.notes) + notes, **changes)
