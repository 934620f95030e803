"""PyTorch's own VRAM peak, consulted only when the work already uses CUDA
through torch. torch is never imported here: importing it inside a
measurement would add hundreds of MB to the very peak being measured."""

from __future__ import annotations

import sys
from typing import Any, List, Optional


def _cuda_in_use() -> Optional[Any]:
    """torch.cuda if torch is loaded and has already initialised CUDA."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        cuda = torch.cuda
        return cuda if cuda.is_initialized() else None
    except Exception:  # a broken or partial torch must not break a measurement
        return None


class TorchPeak:
    """torch's VRAM peak over the run. When CUDA is already in use at
    start(), the peak since start is max_memory_reserved() read at the end
    if torch's reserved memory is at its peak now (the caching allocator
    keeps what it reserved, so this is the usual case): the caller's peak
    statistics are left alone. Only when an earlier, higher peak would hide
    the run's (after torch.cuda.empty_cache()) are the current device's peak
    statistics reset, and a note says so. When CUDA is not in use yet,
    check() after each item, since work often initialises CUDA lazily in
    its first item (torch's counters then start with CUDA, inside the run,
    so nothing needs resetting). finish() reads the peak."""

    def __init__(self) -> None:
        self._cuda: Optional[Any] = None
        self.waiting = False  # CUDA not yet in use: check() after each item
        self.started_late = False
        self.notes: List[str] = []

    def start(self) -> None:
        cuda = _cuda_in_use()
        if cuda is None:
            self.waiting = True
            return
        try:
            if int(cuda.max_memory_reserved()) <= int(cuda.memory_reserved()):
                self._cuda = cuda  # the peak so far is now: no reset needed
                return
        except Exception:  # an older or partial torch: reset as before
            pass
        try:
            cuda.reset_peak_memory_stats()
        except Exception as exc:
            self.notes.append(f"torch: could not reset CUDA peak statistics ({exc!r})")
            return
        self.notes.append("torch: the current device's peak memory statistics were reset "
                          "(torch.cuda.reset_peak_memory_stats()): an earlier peak above the "
                          "memory torch holds now would have hidden this run's")
        self._cuda = cuda

    def check(self) -> None:
        """After an item: has the work started CUDA through torch?"""
        cuda = _cuda_in_use()
        if cuda is not None:
            self._cuda, self.waiting, self.started_late = cuda, False, True

    def finish(self, cm: Any) -> None:
        """Into the runner's C measurement (not yet shared, so written in
        place): torch.cuda.max_memory_reserved() since start() (or since
        CUDA started during the run) as its VRAM peak where the library
        measured none, else beside it in a note; and this run's notes."""
        from ._binding import check, lib, new_struct
        from ._convert import SOURCES, format_bytes, utf8

        self.waiting = False
        reserved = None
        try:
            reserved = None if self._cuda is None else int(self._cuda.max_memory_reserved())
        except Exception as exc:
            self.notes.append(f"torch: could not read max_memory_reserved ({exc!r})")
        fig = new_struct("spacrbench_figures")
        check(lib.spacrbench_measurement_figures(cm, fig), "benchmark")
        if reserved is not None and fig.peak_vram_bytes < 0:
            check(lib.spacrbench_measurement_set_vram(cm, reserved, lib.SPACRBENCH_SOURCE_TORCH),
                  "benchmark")
            late = " (CUDA was started by the work during the run)" if self.started_late else ""
            self.notes.append(f"VRAM peak from torch.cuda.max_memory_reserved(): "
                              f"{format_bytes(reserved)}{late}; the library had no per-process "
                              f"GPU figure")
        elif reserved is not None:
            source = (SOURCES.name(fig.vram_source)
                      if fig.vram_source != lib.SPACRBENCH_SOURCE_UNKNOWN else "the library")
            self.notes.append(f"VRAM peak from {source}: {format_bytes(fig.peak_vram_bytes)}; "
                              f"torch.cuda.max_memory_reserved() reported "
                              f"{format_bytes(reserved)}")
        for note in self.notes:
            check(lib.spacrbench_measurement_add_note(cm, utf8(note)), "benchmark")
