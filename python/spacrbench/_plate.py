"""benchmark_plate(): advice that holds for the whole plate, not only for
the fields that were measured.

The fields of one plate share their dimensions, not their content: a dense
well needs several times the memory of a sparse one, so the first few
fields say little about the largest. benchmark_plate() lets the library
choose which items to measure across a size key (the largest always),
measures them with benchmark()'s runner, predicts every item from them and
recommends for the plate's largest (docs/advice.md, "The plate"). The
selection, the model, the recommendation and every word of the report are
the library's (spacrbench_plate_*); this module finds the keys and turns
the C objects into frozen results."""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
import stat
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple, Union

from ._binding import check, ffi, format_text, lib, new_struct
from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._results import Measurement, Recommendation
from ._types import Progress

_RECOMMEND_KEYWORDS = frozenset({"cores", "available_bytes", "reserve_bytes", "maximum",
                                 "vram_reserve_bytes", "free_vram_bytes", "start_method"})


@dataclass(frozen=True)
class PlateItem:
    """One item the library chose to measure, in the order they ran.

    :param index: the item's position in ``items``.
    :param item: the item itself.
    :param key: its key (file size, ``nbytes`` or ``key(item)``), or
        ``None`` without a key.
    :param why: why it was chosen: ``"largest_key"`` (always measured),
        ``"smallest_key"``, ``"spread"`` (nearest an even step across the
        key's range), ``"warmup"`` (nearest the median key) or ``"even"``
        (no key: evenly spaced).
    :param is_warmup: a warm-up item (excluded from the timing).
    :param footprint_bytes: its measured peak above the baseline, or ``None``.
    :param seconds: its measured wall time, or ``None``.
    """

    index: int
    item: Any
    key: Optional[float]
    why: str
    is_warmup: bool
    footprint_bytes: Optional[int]
    seconds: Optional[float]


@dataclass(frozen=True)
class PlatePrediction:
    """What the measured items predict for the whole plate.

    :param items: the plate's items.
    :param measured: items measured (the warm-up included).
    :param key: ``"bytes"``, ``"number"`` (``key=``) or ``"none"``.
    :param key_name: what the key is (``"file size"``, ``"nbytes"``, ``"key"``).
    :param fit: how the footprints of the items not measured were
        predicted: ``"key"`` (a line against the key plus its 95 % margin),
        ``"uniform"`` (the measured ones agree within 10 %),
        ``"unexplained"`` (the key does not explain them), ``"keyless"``,
        ``"few"`` (fewer than 3 measured beside the warm-up); the last
        three take the largest measured plus the spread across the measured.
    :param time_fit: the same for wall times.
    :param correlation: r of footprint and key over the measured, or ``None``.
    :param largest_index: the item predicted to need the most, or ``None``.
    :param largest_key: its key, or ``None``.
    :param median_key: the plate's median key, or ``None``.
    :param largest_bytes: the footprint predicted for the plate's largest
        item, or ``None``: what the recommendation divides by.
    :param largest_measured_bytes: the largest measured footprint, or ``None``.
    :param spread_bytes: largest - smallest measured footprint, or ``None``.
    :param slowest_seconds: the plate's slowest item, predicted, or ``None``.
    :param total_seconds: every item one after another, predicted, or ``None``.
    :param notes: why the prediction is what it is, in the library's words.
    """

    items: int
    measured: int
    key: str
    key_name: str
    fit: str
    time_fit: str
    correlation: Optional[float]
    largest_index: Optional[int]
    largest_key: Optional[float]
    median_key: Optional[float]
    largest_bytes: Optional[int]
    largest_measured_bytes: Optional[int]
    spread_bytes: Optional[int]
    slowest_seconds: Optional[float]
    total_seconds: Optional[float]
    notes: Tuple[str, ...] = ()


@dataclass(frozen=True, repr=False)
class PlateResult:
    """benchmark_plate()'s answer.

    :param measurement: the measured items' Measurement (in the order they
        ran, warm-up first).
    :param recommendation: the worker count for the plate: its memory bound
        divides by the plate's predicted largest footprint.
    :param sample: the measured items (:class:`PlateItem`), in that order.
    :param prediction: the plate's prediction (:class:`PlatePrediction`).
    :param eta_seconds: the plate's predicted wall time with
        ``recommendation.workers`` workers, or ``None``.
    """

    measurement: Measurement
    recommendation: Recommendation
    sample: Tuple[PlateItem, ...]
    prediction: PlatePrediction
    eta_seconds: Optional[float]
    _plate: Any = field(compare=False)  # the library's plate (spacrbench_plate *)
    _labels: Tuple[str, ...] = field(compare=False, default=())

    @property
    def workers(self) -> int:
        """The recommended worker count (``recommendation.workers``)."""
        return self.recommendation.workers

    def item_prediction(self, index: int) -> Tuple[Optional[int], Optional[float]]:
        """Item ``index``'s predicted footprint (bytes) and wall time
        (seconds); measured items as measured."""
        if isinstance(index, bool) or not isinstance(index, int):
            raise SpacrbenchTypeError(f"index must be an int, not {type(index).__name__}")
        if not 0 <= index < self.prediction.items:
            raise SpacrbenchValueError(f"index {index} is not an item of this plate of "
                                       f"{self.prediction.items}")
        footprint = ffi.new("int64_t *")
        seconds = ffi.new("double *")
        check(lib.spacrbench_plate_item_prediction(self._plate, index, footprint, seconds),
              "item_prediction")
        return (None if footprint[0] < 0 else int(footprint[0]),
                None if math.isnan(seconds[0]) else float(seconds[0]))

    def __repr__(self) -> str:
        p = self.prediction
        return (f"PlateResult(workers={self.workers}, items={p.items}, measured={p.measured}, "
                f"fit={p.fit!r}, largest_bytes={p.largest_bytes!r}, "
                f"eta_seconds={self.eta_seconds!r})")

    def __reduce__(self) -> Any:
        raise SpacrbenchTypeError("a PlateResult holds the library's plate and cannot be "
                                  "pickled; pickle its measurement, recommendation, sample "
                                  "and prediction instead")


def plate_section(result: PlateResult) -> str:
    """The report's plate section, in the library's words."""
    labels = [ffi.new("char[]", _label_bytes(text)) for text in result._labels]
    array = ffi.new("const char *[]", labels) if labels else ffi.NULL
    from ._convert import c_recommendation

    rec = c_recommendation(result.recommendation)
    return format_text(lambda buf, cap: lib.spacrbench_format_plate(
        result._plate, rec, array, len(labels), buf, cap), "format_report")


def _label_bytes(text: str) -> bytes:
    from ._convert import utf8

    return utf8(text.replace("\0", "\\x00"))


def _label(item: Any) -> str:
    if isinstance(item, (str, os.PathLike)):
        return os.fsdecode(os.fspath(item)) if not isinstance(item, str) else item
    text = repr(item)
    return text if len(text) <= 200 else text[:197] + "..."


def _shown(item: Any) -> str:
    text = repr(item)
    return text if len(text) <= 80 else text[:77] + "..."


def _number(value: Any, i: int, item: Any) -> float:
    """key(item)'s value as a finite number >= 0, or an error naming the item."""
    real = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not real and (isinstance(value, (str, bytes, bool)) or not hasattr(value, "__float__")):
        raise SpacrbenchTypeError(f"key(items[{i}]) returned {_shown(value)} "
                                  f"({type(value).__name__}), not a number; the item is "
                                  f"{_shown(item)}")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise SpacrbenchTypeError(f"key(items[{i}]) returned {_shown(value)}, not a number "
                                  f"({exc}); the item is {_shown(item)}") from None
    if not math.isfinite(number) or number < 0:
        raise SpacrbenchValueError(f"key(items[{i}]) is {number!r}; a key must be a finite "
                                   f"number >= 0 (a size that grows with the item's memory); "
                                   f"the item is {_shown(item)}")
    return number


def _file_size(item: Any) -> Optional[int]:
    """The size of the regular file item names (stat only: a FIFO is never
    opened), or None."""
    if not isinstance(item, (str, os.PathLike)):
        return None
    try:
        st = os.stat(item)
    except (OSError, ValueError, TypeError):
        return None
    return int(st.st_size) if stat.S_ISREG(st.st_mode) else None


def _nbytes(item: Any) -> Optional[int]:
    n = getattr(item, "nbytes", None)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        return None
    return int(n)


def plate_keys(items: Sequence[Any], key: Optional[Callable[[Any], Any]]
               ) -> Tuple[Optional[List[float]], int, str, Optional[str]]:
    """The keys of the items, their kind (spacrbench_plate_key), their name,
    and why there are none (a note), when there are none."""
    if key is not None:
        if not callable(key):
            raise SpacrbenchTypeError(f"key must be a callable (item -> number) or None, not "
                                      f"{type(key).__name__}")
        keys = []
        for i, item in enumerate(items):
            try:
                value = key(item)
            except Exception as exc:
                raise SpacrbenchValueError(f"key(items[{i}]) raised {type(exc).__name__}: "
                                           f"{exc}; the item is {_shown(item)}") from exc
            keys.append(_number(value, i, item))
        return keys, int(lib.SPACRBENCH_PLATE_KEY_NUMBER), "key", None
    for finder, name in ((_file_size, "file size"), (_nbytes, "nbytes")):
        first = finder(items[0])
        if first is None:
            continue
        found: List[float] = [float(first)]
        for i in range(1, len(items)):
            size = finder(items[i])
            if size is None:
                return None, int(lib.SPACRBENCH_PLATE_KEY_NONE), "key", (
                    f"benchmark_plate(): items[{i}] ({_shown(items[i])}) has no {name} as "
                    f"items[0] has, so the items have no key: evenly spaced (give key=)")
            found.append(float(size))
        return found, int(lib.SPACRBENCH_PLATE_KEY_BYTES), name, None
    return None, int(lib.SPACRBENCH_PLATE_KEY_NONE), "key", (
        f"benchmark_plate(): the items are neither paths of existing files nor arrays "
        f"(items[0] is {_shown(items[0])}), so they have no key: evenly spaced (give key=)")


def _count(value: Any, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise SpacrbenchTypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < least:
        raise SpacrbenchValueError(f"{name} must be >= {least}, not {value}")
    return int(min(int(value), 2**62))


def _select(keys: Optional[List[float]], n: int, kind: int, name: str, sample: int,
            warmup: int) -> Any:
    opts = new_struct("spacrbench_plate_options")
    check(lib.spacrbench_plate_options_init(opts, ffi.sizeof("spacrbench_plate_options")),
          "spacrbench_plate_options_init")
    opts.sample = sample
    opts.warmup = warmup
    if kind != lib.SPACRBENCH_PLATE_KEY_NONE:
        opts.key_kind = kind
    key_name = ffi.new("char[]", name.encode())
    opts.key_name = key_name
    c_keys = ffi.new("double[]", keys) if keys is not None else ffi.NULL
    out = ffi.new("spacrbench_plate **")
    check(lib.spacrbench_plate_select_keys(n, c_keys, opts, out), "benchmark_plate")
    return ffi.gc(out[0], lib.spacrbench_plate_free)


def _optional(value: float) -> Optional[float]:
    return None if math.isnan(value) else float(value)


def _picks(plate: Any, items: Sequence[Any]) -> Tuple[PlateItem, ...]:
    from ._binding import name_of

    picks = []
    k = new_struct("spacrbench_plate_pick")
    for i in range(lib.spacrbench_plate_pick_count(plate)):
        check(lib.spacrbench_plate_pick_get(plate, i, k), "spacrbench_plate_pick_get")
        picks.append(PlateItem(
            index=int(k.index), item=items[k.index], key=_optional(k.key),
            why=name_of(lib.spacrbench_plate_why_name, k.why), is_warmup=bool(k.is_warmup),
            footprint_bytes=None if k.footprint_bytes < 0 else int(k.footprint_bytes),
            seconds=_optional(k.seconds)))
    return tuple(picks)


def _prediction(plate: Any, key_name: str) -> PlatePrediction:
    from ._binding import c_text, name_of

    r = new_struct("spacrbench_plate_prediction")
    check(lib.spacrbench_plate_prediction_get(plate, r), "spacrbench_plate_prediction_get")

    def size(v: int) -> Optional[int]:
        return None if v < 0 else int(v)

    return PlatePrediction(
        items=int(r.items), measured=int(r.measured),
        key=name_of(lib.spacrbench_plate_key_name, r.key_kind), key_name=key_name,
        fit=name_of(lib.spacrbench_plate_fit_name, r.fit),
        time_fit=name_of(lib.spacrbench_plate_fit_name, r.time_fit),
        correlation=_optional(r.correlation),
        largest_index=size(r.largest_index), largest_key=_optional(r.largest_key),
        median_key=_optional(r.median_key), largest_bytes=size(r.largest_bytes),
        largest_measured_bytes=size(r.largest_measured_bytes),
        spread_bytes=size(r.spread_bytes), slowest_seconds=_optional(r.slowest_seconds),
        total_seconds=_optional(r.total_seconds),
        notes=tuple(c_text(lib.spacrbench_plate_note(plate, i)) for i in range(r.note_count)))


def benchmark_plate(work: Callable[[Any], Any], items: Iterable[Any], *,
                    key: Optional[Callable[[Any], Any]] = None, sample: int = 5,
                    warmup: int = 1,
                    progress: Union[None, bool, Callable[[Progress], Any]] = None,
                    timeline: bool = False, **recommend_workers_keywords: Any) -> PlateResult:
    """Measure a few items chosen across the plate, predict every item, and
    recommend a worker count that holds for the plate's largest.

    The library chooses ``sample`` items (plus ``warmup`` warm-up items)
    across a size key: the item with the largest key always, the smallest,
    and the items nearest even steps between them; the warm-up is a typical
    item (nearest the median key). The key is each item's file size when
    every item is the path of an existing file (``str`` or
    ``os.PathLike``), its ``nbytes`` when every item is an array, else
    ``key(item)`` (a finite number >= 0 that grows with the item's memory,
    e.g. the object count of a field); without one the sample is evenly
    spaced and the prediction says the plate's largest item cannot be
    predicted. A key that raises, or returns something that is not a
    finite number >= 0, is an error naming the item, before any work runs.

    The chosen items run as ``benchmark(work, chosen, warmup=warmup)`` runs
    them (serially, exact peaks, warm-up first, then by increasing key);
    the others are predicted from them (a measured item as measured; a
    line of footprint against the key plus its 95 % prediction margin, or,
    where the key explains nothing, the largest measured plus the spread
    across the measured items). The recommendation is recommend_workers()'s
    rule with the plate's predicted largest footprint as one worker's need
    (``recommend_workers_keywords``: cores, available_bytes, reserve_bytes,
    maximum, vram_reserve_bytes, free_vram_bytes, start_method); its reason
    keeps spaCR's words first. ``format_report(result)`` prints the report
    with the plate's section; ``result.eta_seconds`` is the plate's
    predicted time with the recommended workers.

    A spaCR pipeline sized for its plate::

        fields = sorted(glob.glob("plate1/*.tif"))
        result = spacrbench.benchmark_plate(process_field, fields)
        print(spacrbench.format_report(result))
        with ProcessPoolExecutor(max_workers=result.workers) as pool:
            list(pool.map(process_field, fields))
    """
    from ._run import check_plain_callable, measure

    check_plain_callable(work, "work")
    sample = _count(sample, "sample", 1)
    warmup = _count(warmup, "warmup", 0)
    unknown = sorted(set(recommend_workers_keywords) - _RECOMMEND_KEYWORDS)
    if unknown:
        raise SpacrbenchTypeError(f"benchmark_plate() got unexpected keyword argument(s) "
                                  f"{', '.join(unknown)}; it takes recommend_workers()'s "
                                  f"{', '.join(sorted(_RECOMMEND_KEYWORDS))}")
    from ._options import recommend_options

    inputs = recommend_options(**recommend_workers_keywords)  # checked before any work runs
    try:
        plate_items = list(items)
    except TypeError:
        raise SpacrbenchTypeError(f"items must be a sequence or iterable, "
                                  f"not {type(items).__name__}") from None
    if not plate_items:
        raise SpacrbenchValueError("benchmark_plate needs at least one item (items is empty)")
    keys, kind, key_name, why_keyless = plate_keys(plate_items, key)
    plate = _select(keys, len(plate_items), kind, key_name, sample, warmup)
    order = _picks(plate, plate_items)
    m = measure(work, [p.item for p in order], warmup=sum(p.is_warmup for p in order),
                progress=progress, timeline=timeline, spread_note=False)
    if why_keyless:
        m = dataclasses.replace(m, notes=[*m.notes, why_keyless])
    from ._convert import c_measurement, recommendation_fields

    out = new_struct("spacrbench_recommendation")
    with c_measurement(m) as cm:
        check(lib.spacrbench_plate_predict(plate, cm), "benchmark_plate")
        check(lib.spacrbench_plate_recommend(plate, cm, inputs.opts, inputs.machine, out),
              "benchmark_plate")
    rec = Recommendation(measurement=m, **inputs.fields(recommendation_fields(out)))
    eta = lib.spacrbench_plate_eta_seconds(plate, rec.workers)
    return PlateResult(measurement=m, recommendation=rec, sample=_picks(plate, plate_items),
                       prediction=_prediction(plate, key_name), eta_seconds=_optional(eta),
                       _plate=plate, _labels=tuple(_label(i) for i in plate_items))


__all__ = ["PlateItem", "PlatePrediction", "PlateResult", "benchmark_plate"]
