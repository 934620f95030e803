"""recommend_workers()'s keywords as the library's options; a negative spaCR figure becomes its budget."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional

from ._binding import AUTO, check, ffi, lib
from ._compat import (INT64_MAX, byte_size, upstream_byte_count, upstream_int,
                      upstream_maximum)


@dataclass(frozen=True)
class RecommendInputs:
    """What the library's rule is called with, and what spaCR keeps."""

    opts: Any  #: spacrbench_recommend_options *
    machine: Any  #: spacrbench_machine * to recommend on, or NULL (discover)
    kept: Dict[str, Any] = field(default_factory=dict)  #: fields as given
    note: str = ""  #: said after spaCR's words when a figure was negative

    def fields(self, fields: Dict[str, Any]) -> Dict[str, Any]:
        """recommendation_fields() of the result, with what spaCR keeps."""
        if self.note:
            fields = {**fields, **self.kept, "reason": fields["reason"] + "; " + self.note}
        return fields


def _signed_bytes(n: int) -> str:
    """A byte count of either sign in spaCR's GiB format."""
    return f"{n / 1024 ** 3:.2f} GiB" if abs(n) >= 1024 ** 2 else f"{n} B"


def _spacr_budget(opts: Any, available: Optional[int], reserve: Optional[int]) -> RecommendInputs:
    """Puts available and reserve into opts, spaCR's arithmetic kept."""
    negative_reserve = reserve is not None and reserve < 0
    negative_available = available is not None and available < 0
    opts.available_bytes = AUTO if available is None else max(0, available)
    opts.reserve_bytes = AUTO if reserve is None else max(0, reserve)
    if not (negative_reserve or negative_available):
        return RecommendInputs(opts, ffi.NULL)
    machine = ffi.NULL
    if available is None:  # the discovered figure, with its source
        machine = ffi.new("spacrbench_machine *")
        machine.size = ffi.sizeof("spacrbench_machine")
        check(lib.spacrbench_discover(machine), "recommend_workers")
        available = int(machine.available_bytes)
    kept = {"available_bytes": available}
    if reserve is None or reserve >= 0:
        return RecommendInputs(opts, machine, kept,
                               f"available_bytes {_signed_bytes(available)} is negative: as "
                               f"in spaCR, no memory is left for workers")
    budget = min(INT64_MAX, max(0, available - reserve))
    opts.reserve_bytes = 0
    if machine == ffi.NULL:
        opts.available_bytes = budget
    else:
        machine.available_bytes = budget
    return RecommendInputs(opts, machine, kept,
                           f"reserve_bytes {_signed_bytes(reserve)} is negative: as in "
                           f"spaCR, it adds to the memory ({_signed_bytes(budget)} in all)")


def recommend_options(*, cores: Any = None, available_bytes: Any = None,
                      reserve_bytes: Any = None, maximum: Any = 32,
                      vram_reserve_bytes: Any = 1024**3, free_vram_bytes: Any = None,
                      start_method: Optional[str] = None) -> RecommendInputs:
    """recommend_workers()'s keywords as spacrbench_recommend_options."""
    opts = ffi.new("spacrbench_recommend_options *")
    check(lib.spacrbench_recommend_options_init(opts, ffi.sizeof("spacrbench_recommend_options")),
          "spacrbench_recommend_options_init")
    opts.cores = AUTO if cores is None else max(1, upstream_int(cores, "cores"))
    available = (None if available_bytes is None
                 else upstream_byte_count(available_bytes, "available_bytes"))
    reserve = None if reserve_bytes is None else upstream_byte_count(reserve_bytes, "reserve_bytes")
    opts.maximum = max(1, upstream_maximum(maximum))
    opts.vram_reserve_bytes = byte_size(vram_reserve_bytes, "vram_reserve_bytes")
    opts.free_vram_bytes = (AUTO if free_vram_bytes is None
                            else byte_size(free_vram_bytes, "free_vram_bytes"))
    if start_method is not None:
        from ._convert import START_METHODS

        opts.start_method = START_METHODS.code(start_method, "start_method")
    return _spacr_budget(opts, available, reserve)
