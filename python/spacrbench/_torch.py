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
    """Reset torch's peak statistics at start() when CUDA is already in use;
    otherwise check() after each item, since work often initialises CUDA
    lazily in its first item (torch's counters then start with CUDA, inside
    the run, so nothing needs resetting). finish() reads the peak."""

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
            cuda.reset_peak_memory_stats()
        except Exception as exc:
            self.notes.append(f"torch: could not reset CUDA peak statistics ({exc!r})")
            return
        self._cuda = cuda

    def check(self) -> None:
        """After an item: has the work started CUDA through torch?"""
        cuda = _cuda_in_use()
        if cuda is not None:
            self._cuda, self.waiting, self.started_late = cuda, False, True

    def finish(self) -> Optional[int]:
        """torch.cuda.max_memory_reserved() since start() (or since CUDA
        started during the run), or None."""
        self.waiting = False
        if self._cuda is None:
            return None
        try:
            return int(self._cuda.max_memory_reserved())
        except Exception as exc:
            self.notes.append(f"torch: could not read max_memory_reserved ({exc!r})")
            return None
