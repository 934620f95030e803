"""PyTorch's own VRAM peak, when the work already uses CUDA; torch is never imported here."""

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
    """torch's VRAM peak over the run, read without resetting the caller's
    statistics unless an earlier higher peak would hide it (noted)."""

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
        """torch's peak into the runner's C measurement (as VRAM or a note), and this run's notes."""
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
