"""recommend_workers(), available_memory_bytes() and format_report(): the library's rules and words."""

from __future__ import annotations

import os
from typing import (TYPE_CHECKING, Any, Dict, List, Optional, Sequence, SupportsFloat,
                    SupportsInt, Union)

from ._binding import check, ffi, format_text, lib
from ._compat import as_measurement, as_recommendation, optional_measurement, unread_reserve
from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._results import Measurement, Recommendation
from ._types import MeasurementLike, RecommendationLike

if TYPE_CHECKING:
    from ._plate import PlateResult
    from ._scale import ScaleResult

# The annotations name only what `spacrbench` exports (help() shows them as
# written): Measurement and Recommendation, and the protocols
# spacrbench.MeasurementLike / RecommendationLike that spaCR's objects meet.


def available_memory_bytes() -> int:
    """Memory the next workers can get: MemAvailable capped by every cgroup limit; 0 if unreadable."""
    return int(lib.spacrbench_available_memory_bytes())


def recommend_workers(measurement: Union[Measurement, MeasurementLike, None] = None, *,
                      cores: Union[None, str, SupportsInt] = None,
                      available_bytes: Union[None, str, SupportsInt] = None,
                      reserve_bytes: Union[None, str, SupportsInt] = None,
                      maximum: SupportsFloat = 32,
                      vram_reserve_bytes: Union[str, SupportsInt] = 1024**3,
                      free_vram_bytes: Union[None, str, SupportsInt] = None,
                      start_method: Optional[str] = None,
                      scaling: Optional[ScaleResult] = None) -> Recommendation:
    """Recommend a worker count for the measured work on this machine:
    ``rec = recommend_workers(benchmark(work, items))``, then ``rec.workers``
    and ``rec.reason``.

    The count is min(cores / cores per worker, (available memory -
    reserve_bytes) / one worker's need, the VRAM bound, maximum), at least 1;
    cores and available_bytes default to what this machine or job allows.
    scaling: a ScaleResult of scale() on the same work, whose knee then
    decides. A measurement with a plate section is advised for its largest.

    As in spaCR, numbers are read with int() and any object with spaCR's
    Measurement attributes is a measurement; byte arguments also take text
    ("4G", "4GB"; docs/python.md)."""
    if scaling is not None and getattr(scaling, "_c", None) is None:
        raise SpacrbenchTypeError(f"recommend_workers(): scaling must be a ScaleResult from "
                                  f"spacrbench.scale(), not {type(scaling).__name__}")
    supplied = measurement
    measurement = optional_measurement(measurement)  # a spaCR object: checked, converted
    if measurement is None:
        reserve_bytes = unread_reserve(reserve_bytes)
    from ._options import recommend_options

    inputs = recommend_options(cores=cores, available_bytes=available_bytes,
                               reserve_bytes=reserve_bytes, maximum=maximum,
                               vram_reserve_bytes=vram_reserve_bytes,
                               free_vram_bytes=free_vram_bytes, start_method=start_method)
    from ._convert import c_measurement, recommendation_fields

    out = ffi.new("spacrbench_recommendation *")
    out.size = ffi.sizeof("spacrbench_recommendation")
    with c_measurement(measurement) as cm:
        check(lib.spacrbench_plate_recommend_measurement(cm, inputs.opts, inputs.machine, out),
              "recommend_workers")
    if scaling is not None:
        check(lib.spacrbench_recommend_apply_scaling(out, scaling._c), "recommend_workers")
    # spaCR keeps the very object it was given as rec.measurement.
    kept: Any = supplied
    return Recommendation(measurement=kept, **inputs.fields(recommendation_fields(out)))




def format_report(measurement: Union[Measurement, MeasurementLike, PlateResult],
                  recommendation: Union[Recommendation, RecommendationLike, None] = None, *,
                  format: str = "text",
                  item_labels: Optional[Sequence[Union[str, os.PathLike[str]]]] = None,
                  verbose: bool = False) -> str:
    """The plain-text report (throughput, peak RSS, VRAM, recommended workers
    and why), spaCR's lines first; verbose=True adds how each figure was
    obtained. format="markdown" or "csv" gives one row per item, labelled by
    item_labels or the records' labels. A PlateResult is given alone."""
    if not isinstance(verbose, bool):
        raise SpacrbenchTypeError(f"format_report(): verbose must be True or False, not "
                                  f"{type(verbose).__name__}")
    from ._plate import PlateResult

    labels_of_plate: Optional[List[str]] = None
    if isinstance(measurement, PlateResult):
        if recommendation is not None:
            raise SpacrbenchValueError("format_report(result): a PlateResult carries its "
                                       "recommendation; pass the result alone")
        from ._plate import plate_labels

        labels_of_plate = plate_labels(measurement) if item_labels is None else None
        result = measurement
        measurement, recommendation = result.measurement, result.recommendation
    m = as_measurement(measurement)
    rec = as_recommendation(recommendation)
    if format != "text":
        labels = (labels_of_plate if labels_of_plate is not None else
                  None if item_labels is None else given_labels(m, item_labels))
        return export_text(m, rec, format, labels)
    if item_labels is not None:
        raise SpacrbenchValueError("item_labels: the text report has no item column; pass "
                                   "format='markdown' or format='csv'")
    from ._convert import format_report as _format_report, plate_text

    # The whole text is the library's (spacrbench_format_report_with): the
    # whole reason, and spaCR's arithmetic on a time it cannot hold.
    report = _format_report(m, rec, verbose)
    if getattr(m, "plate", None) is None:
        return report
    return report + "\n\n" + plate_text(m, labels_of_plate)


FORMATS: Dict[str, int] = {"markdown": lib.SPACRBENCH_FORMAT_MARKDOWN,
                           "csv": lib.SPACRBENCH_FORMAT_CSV}


def given_labels(m: Measurement, labels: Any) -> List[str]:
    """format_report()'s item_labels: one str or os.PathLike per record."""
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__"):
        raise SpacrbenchTypeError(f"item_labels must be a sequence of str (one per record), "
                                  f"not {type(labels).__name__}")
    shown: List[str] = []
    for i, label in enumerate(labels):
        if isinstance(label, os.PathLike):
            label = os.fspath(label)
        if not isinstance(label, str):
            raise SpacrbenchTypeError(f"item_labels[{i}] must be a str or os.PathLike, "
                                      f"not {type(label).__name__}")
        shown.append(label)
    if len(shown) != len(m.records):
        raise SpacrbenchValueError(f"item_labels has {len(shown)} label(s); the measurement has "
                                   f"{len(m.records)} record(s), warm-up included")
    return shown


def export_text(m: Measurement, rec: Optional[Recommendation], format: Any,
                item_labels: Optional[Sequence[str]] = None) -> str:
    """m (and rec) in one of FORMATS; ValueError/TypeError naming format."""
    if not isinstance(format, str):
        raise SpacrbenchTypeError(f"format must be a str, not {type(format).__name__}")
    code = FORMATS.get(format.lower())
    if code is None:
        raise SpacrbenchValueError(f"format must be one of 'text', {', '.join(map(repr, FORMATS))}; "
                         f"got {format!r}")
    from ._convert import c_measurement, c_recommendation, c_texts, record_labels

    cr = c_recommendation(rec)
    with c_measurement(m) as cm:  # the records checked first
        labels = c_texts(record_labels(m) if item_labels is None else item_labels, "item_labels[{}]")
        return format_text(lambda buf, cap: lib.spacrbench_format_export(
            cm, cr, code, labels[0], len(labels[1]), buf, cap),
            f"format_report(format={format!r})")
