"""recommend_workers(), available_memory_bytes() and format_report(): thin
wrappers whose wording and arithmetic come from the C library, so the
command, C users and Python users get the same answer for the same input."""

from __future__ import annotations

import os
from typing import (TYPE_CHECKING, Any, Dict, Optional, Sequence, SupportsFloat, SupportsIndex,
                    SupportsInt, Tuple, Union)

from ._binding import AUTO, check, ffi, lib
from ._compat import (INT64_MAX, as_measurement, as_recommendation, byte_size,
                      optional_measurement, upstream_byte_count, upstream_int,
                      upstream_maximum)
from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._results import Measurement, Recommendation
from ._types import MeasurementLike, RecommendationLike

if TYPE_CHECKING:
    from ._scale import ScaleResult

# The annotations name only what `spacrbench` exports (help() shows them as
# written): Measurement and Recommendation, and the protocols
# spacrbench.MeasurementLike / RecommendationLike that spaCR's objects meet.


def available_memory_bytes() -> int:
    """Memory the next workers can get: MemAvailable, capped by every cgroup
    limit above this process (container, SLURM job, systemd slice); 0 if
    unreadable."""
    return int(lib.spacrbench_available_memory_bytes())


def recommend_workers(measurement: Union[Measurement, MeasurementLike, None] = None, *,
                      cores: Union[None, int, float, str, SupportsInt, SupportsIndex] = None,
                      available_bytes: Union[None, int, float, str, SupportsInt,
                                             SupportsIndex] = None,
                      reserve_bytes: Union[None, int, float, str, SupportsInt,
                                           SupportsIndex] = None,
                      maximum: Union[int, float, SupportsFloat] = 32,
                      vram_reserve_bytes: Union[int, float, str, SupportsInt,
                                                SupportsIndex] = 1024**3,
                      free_vram_bytes: Union[None, int, float, str, SupportsInt,
                                             SupportsIndex] = None,
                      start_method: Optional[str] = None,
                      scaling: Optional[ScaleResult] = None) -> Recommendation:
    """Recommend a worker count: min(usable cores / the cores one worker
    keeps busy, (available memory - reserve_bytes) / one worker's need, the
    VRAM bound, maximum), never below 1. cores and available_bytes default
    to what this machine, container or job really allows; cores <= 0 counts
    as 1. reserve_bytes None keeps 2 GiB on a host and 10% of a binding
    cgroup limit (64 MiB to 2 GiB) inside a SLURM job or container; a number
    always wins. start_method ("fork", the default, "spawn" or
    "forkserver") says how the pool starts its workers: with spawn and
    forkserver each worker also pays the measured baseline. free_vram_bytes
    defaults to the free memory NVML saw on the measured GPUs.

    As in spaCR, the numbers are read with int() (2.5 cores is 2, 3.4e10
    bytes is fine), cores below 1 count as 1, and any object with spaCR's
    Measurement attributes is a measurement (kept as rec.measurement).
    Maximum below 1 counts as 1. spaCR's arithmetic holds for its own byte
    arguments: a negative available_bytes leaves no budget (1 worker) and
    is kept in rec.available_bytes, a negative reserve_bytes adds to the
    budget (spaCR's max(0, available - reserve)), and the reason says so
    after spaCR's words. The byte arguments (available_bytes,
    reserve_bytes, vram_reserve_bytes, free_vram_bytes) also take a size as
    text, read as the command reads --reserve: "4G" and "4GiB" are 4 GiB
    (powers of 1024), "4GB" is 4e9 bytes (powers of 1000, as Dask's
    parse_bytes); such text, and spacrbench's own VRAM arguments, are
    never negative: a ValueError naming the argument (docs/python.md lists
    where this differs from spaCR).

    scaling: a ScaleResult of spacrbench.scale() on the same work. Its
    measured knee, within the serial bounds (memory, VRAM, maximum), is
    then the recommendation; the reason starts "measured: " where the knee
    decides (docs/advice.md)."""
    if scaling is not None and getattr(scaling, "_c", None) is None:
        raise SpacrbenchTypeError(f"recommend_workers(): scaling must be a ScaleResult from "
                                  f"spacrbench.scale(), not {type(scaling).__name__}")
    supplied = measurement
    measurement = optional_measurement(measurement)  # a spaCR object: checked, converted
    opts = ffi.new("spacrbench_recommend_options *")
    check(lib.spacrbench_recommend_options_init(opts, ffi.sizeof("spacrbench_recommend_options")),
          "spacrbench_recommend_options_init")
    opts.cores = AUTO if cores is None else max(1, upstream_int(cores, "cores"))
    available = (None if available_bytes is None
                 else upstream_byte_count(available_bytes, "available_bytes"))
    reserve = None if reserve_bytes is None else upstream_byte_count(reserve_bytes, "reserve_bytes")
    machine, kept = _spacr_budget(opts, available, reserve)
    opts.maximum = max(1, upstream_maximum(maximum))
    opts.vram_reserve_bytes = byte_size(vram_reserve_bytes, "vram_reserve_bytes")
    opts.free_vram_bytes = (AUTO if free_vram_bytes is None
                            else byte_size(free_vram_bytes, "free_vram_bytes"))
    if start_method is not None:
        from ._convert import START_METHODS

        opts.start_method = START_METHODS.code(start_method, "start_method")
    from ._convert import c_measurement, recommendation_fields

    out = ffi.new("spacrbench_recommendation *")
    out.size = ffi.sizeof("spacrbench_recommendation")
    with c_measurement(measurement) as cm:
        check(lib.spacrbench_recommend_on(cm, opts, machine, out), "recommend_workers")
    if scaling is not None:
        check(lib.spacrbench_recommend_apply_scaling(out, scaling._c), "recommend_workers")
    fields = recommendation_fields(out)
    if kept:
        note = kept.pop("note")
        fields.update(kept)
        fields["reason"] += "; " + note
    # spaCR keeps the very object it was given as rec.measurement.
    given: Any = supplied
    return Recommendation(measurement=given, **fields)


def _signed_bytes(n: int) -> str:
    """A byte count of either sign in spaCR's GiB format (the library's
    own formatter reads a negative one as "not measured")."""
    return f"{n / 1024 ** 3:.2f} GiB" if abs(n) >= 1024 ** 2 else f"{n} B"


def _spacr_budget(opts: Any, available: Optional[int],
                  reserve: Optional[int]) -> Tuple[Any, Dict[str, Any]]:
    """Puts available and reserve into opts. The library takes neither
    negative; spaCR's rule is budget = max(0, available - reserve) whatever
    their signs, so a negative one becomes that budget with no reserve.
    available_bytes as given is kept for the Recommendation, as spaCR keeps
    it, with a note for the reason. Returns the machine to recommend on
    (NULL: discover) and those kept fields (empty when nothing was
    negative)."""
    negative_reserve = reserve is not None and reserve < 0
    negative_available = available is not None and available < 0
    opts.available_bytes = AUTO if available is None else max(0, available)
    opts.reserve_bytes = AUTO if reserve is None else max(0, reserve)
    if not (negative_reserve or negative_available):
        return ffi.NULL, {}
    machine = ffi.NULL
    if available is None:  # the discovered figure, with its source
        machine = ffi.new("spacrbench_machine *")
        machine.size = ffi.sizeof("spacrbench_machine")
        check(lib.spacrbench_discover(machine), "recommend_workers")
        available = int(machine.available_bytes)
    if not negative_reserve:
        return machine, {"available_bytes": available,
                         "note": (f"available_bytes {_signed_bytes(available)} is negative: as "
                                  f"in spaCR, no memory is left for workers")}
    assert reserve is not None
    budget = min(INT64_MAX, max(0, available - reserve))
    opts.reserve_bytes = 0
    if machine == ffi.NULL:
        opts.available_bytes = budget
    else:
        machine.available_bytes = budget
    return machine, {"available_bytes": available,
                     "note": (f"reserve_bytes {_signed_bytes(reserve)} is negative: as in "
                              f"spaCR, it adds to the memory ({_signed_bytes(budget)} in all)")}


def format_report(measurement: Union[Measurement, MeasurementLike],
                  recommendation: Union[Recommendation, RecommendationLike, None] = None, *,
                  format: str = "text",
                  item_labels: Optional[Sequence[Union[str, os.PathLike[str]]]] = None) -> str:
    """The plain-text report (throughput, peak RSS, VRAM, recommended workers
    and why) to paste into an issue or a log. Each of spaCR's lines keeps
    its label and number format; spacrbench's detail follows. Objects with
    the attributes of spaCR's Measurement and Recommendation are accepted.

    format="markdown" gives the same figures as a Markdown summary, one
    table row per item and the recommendation with its evidence (to paste
    into a GitHub issue); format="csv" one row per item (see _export.py).
    Their item column shows item_labels (one str or path per record, warm-up
    included, e.g. the file names given to benchmark()), else the labels
    the records carry (ItemRecord.item, as in the command's JSON); the
    text report has no item column, so item_labels there is a ValueError."""
    m = as_measurement(measurement)
    rec = as_recommendation(recommendation)
    if format != "text":
        from ._export import export_text, given_labels

        labels = None if item_labels is None else given_labels(m, item_labels)
        return export_text(m, rec, format, labels)
    if item_labels is not None:
        raise SpacrbenchValueError("item_labels: the text report has no item column; pass "
                                   "format='markdown' or format='csv'")
    from ._convert import format_report as _format_report

    # The whole text is the library's (spacrbench_format_report_with): the
    # whole reason, and spaCR's arithmetic on a time it cannot hold.
    return _format_report(m, rec)
