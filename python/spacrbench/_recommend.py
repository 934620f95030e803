"""recommend_workers(), available_memory_bytes() and format_report(): thin
wrappers whose wording and arithmetic come from the C library, so the
command, C users and Python users get the same answer for the same input."""

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
    """Memory the next workers can get: MemAvailable, capped by every cgroup
    limit above this process (container, SLURM job, systemd slice); 0 if
    unreadable."""
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
    ``rec = recommend_workers(benchmark(work, items))``, then
    ``rec.workers`` and ``rec.reason``. available_bytes="16G" asks the
    same for another machine's memory.

    The count is min(usable cores / the cores one worker
    keeps busy, (available memory - reserve_bytes) / one worker's need, the
    VRAM bound, maximum), never below 1. cores and available_bytes default
    to what this machine, container or job really allows; cores <= 0 counts
    as 1. reserve_bytes None keeps 2 GiB on a host and 10% of a binding
    cgroup limit (64 MiB to 2 GiB) inside a SLURM job or container; a number
    always wins. start_method ("fork", the default, "spawn" or
    "forkserver") says how the pool starts its workers: with spawn and
    forkserver each worker also pays the measured baseline. free_vram_bytes
    defaults to the free memory NVML saw on the measured GPUs.

    scaling: a ScaleResult of spacrbench.scale() on the same work. Its
    measured knee, within the serial bounds (memory, VRAM, maximum), is
    then the recommendation; the reason starts "measured: " where the knee
    decides (docs/advice.md).

    A measurement that carries a plate section (``Measurement.plate``:
    benchmark_plate()'s, a ``spacrbench run --sample`` report read back)
    is advised as the plate was: for its predicted largest item.

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
    where this differs from spaCR)."""
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
    and why) to paste into an issue or a log. Each of spaCR's lines keeps
    its label and number format; spacrbench's detail follows. Objects with
    the attributes of spaCR's Measurement and Recommendation are accepted.

    The report is short: the figures, the advice and the notes a user acts
    on (a stop, an OOM kill, a spread that calls for benchmark_plate(), a
    peak that is not exact). verbose=True adds the notes on how each figure
    was obtained (the kernel mark, the cgroup, the sampling); m.notes, the
    JSON and the Markdown always have them all.

    format="markdown" gives the same figures as a Markdown summary, one
    table row per item and the recommendation with its evidence (to paste
    into a GitHub issue); format="csv" one row per item (the library's
    spacrbench_format_export, as the command's --export-markdown/--export-csv).
    Their item column shows item_labels (one str or path per record, warm-up
    included, e.g. the file names given to benchmark()), else the labels
    the records carry (ItemRecord.item, as in the command's JSON); the
    text report has no item column, so item_labels there is a ValueError.

    A measurement that carries a plate section (``Measurement.plate``:
    benchmark_plate()'s, a ``spacrbench run --sample`` report read back)
    gets the plate's section in every format: in text after the report
    (how many items, which were measured and why, the predicted largest
    footprint and the plate's time with the recommended workers, the ETA),
    in Markdown a table and the prediction, in CSV its place in the plate
    on each row. A PlateResult of benchmark_plate() is given alone (it
    carries its recommendation); its measured items are labelled as they
    ran (only those: the plate's other items are never repr()'d)."""
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
    """m (and rec) in one of FORMATS; ValueError/TypeError naming format.
    The item column shows item_labels, else the labels m's records carry."""
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
