"""benchmark_plate(): the library chooses, predicts and advises (spacrbench_plate_*); this runs the items."""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
from dataclasses import dataclass, field
import warnings
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from ._binding import check, ffi, lib, new_struct
from ._compat import numpy_bool
from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._convert import WHYS, file_size, from_struct, recommendation_fields, utf8
from ._plate_data import PlatePrediction
from ._results import Measurement, Recommendation
from ._types import Progress

_RECOMMEND_KEYWORDS = frozenset({"cores", "available_bytes", "reserve_bytes", "maximum",
                                 "vram_reserve_bytes", "free_vram_bytes", "start_method"})


@dataclass(frozen=True)
class PlateItem:
    """One item the library chose to measure, in the order they ran.

    :param index: the item's position in ``items``.
    :param item: the item itself.
    :param key: its key (file size, ``nbytes`` or ``key(item)``), or ``None``.
    :param why: why it was chosen (``"largest_key"``, ``"spread"``, ``"random"``, ...).
    :param is_warmup: a warm-up item (excluded from the timing).
    :param footprint_bytes: its measured peak above the baseline, or ``None``.
    :param seconds: its measured wall time, or ``None``."""

    index: int
    item: Any
    key: Optional[float]
    why: str
    is_warmup: bool
    footprint_bytes: Optional[int]
    seconds: Optional[float]

    def __repr__(self) -> str:
        """One line: the item by a short label (an array's repr is many)."""
        return (f"PlateItem(index={self.index}, item={_shown(self.item, 60)}, "
                f"key={self.key!r}, why={self.why!r}, is_warmup={self.is_warmup}, "
                f"footprint_bytes={self.footprint_bytes!r}, seconds={self.seconds!r})")


@dataclass(frozen=True, repr=False, eq=False)
class PlateResult:
    """benchmark_plate()'s answer; compared by identity and not picklable (pickle its measurement).

    :param measurement: the measured items' Measurement, its ``plate`` the plate's section.
    :param recommendation: the worker count for the plate's predicted largest item.
    :param sample: the measured items (:class:`PlateItem`), in that order.
    :param prediction: the plate's prediction (:class:`PlatePrediction`).
    :param eta_seconds: the plate's predicted wall time with the recommended workers, or ``None``."""

    measurement: Measurement
    recommendation: Recommendation
    sample: Tuple[PlateItem, ...]
    prediction: PlatePrediction
    eta_seconds: Optional[float]
    _plate: Any = field(compare=False)  # the library's plate (spacrbench_plate *)

    @property
    def workers(self) -> int:
        """The recommended worker count (``recommendation.workers``)."""
        return self.recommendation.workers

    def item_prediction(self, index: int) -> Tuple[Optional[int], Optional[float]]:
        """Item ``index``'s predicted footprint (bytes) and wall time (seconds)."""
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

    def __copy__(self) -> "PlateResult":
        return self  # frozen, and its plate is never changed after benchmark_plate()

    def __deepcopy__(self, memo: Dict[int, Any]) -> "PlateResult":
        import copy

        # The library's plate is shared: nothing changes it after the run.
        return dataclasses.replace(self, measurement=copy.deepcopy(self.measurement, memo),
                                   recommendation=copy.deepcopy(self.recommendation, memo))

    def __reduce__(self) -> Any:
        raise SpacrbenchTypeError("a PlateResult holds the library's plate and cannot be "
                                  "pickled; pickle its measurement (whose plate section holds "
                                  "the sample and the prediction) and recommendation instead")


def plate_labels(result: PlateResult) -> List[str]:
    """One label per measured item, made now: the plate's other items are never repr()'d."""
    return [_label(p.item) for p in result.sample]


def _label(item: Any) -> str:
    """An item as the report names it: a path as it is, else its repr() cut."""
    if isinstance(item, (str, os.PathLike)):
        try:
            return os.fsdecode(os.fspath(item)) if not isinstance(item, str) else item
        except Exception:  # noqa: BLE001 - a hostile __fspath__: the label is not the result
            return f"<{type(item).__name__}>"
    return _shown(item, 200)


def _shown(item: Any, width: int = 80) -> str:
    """repr(item) on one line, cut; a repr() that raises gives the type's name."""
    try:
        text = repr(item)
    except Exception:  # noqa: BLE001
        return f"<{type(item).__name__} object>"
    if not isinstance(text, str):
        return f"<{type(item).__name__} object>"
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."


def _number(value: Any, i: int, item: Any) -> float:
    """key(item)'s value as a finite number >= 0, or an error naming the item."""
    if (isinstance(value, bool) or numpy_bool(value)  # numpy's bool has __float__
            or not isinstance(value, numbers.Real)
            and (isinstance(value, (str, bytes)) or not hasattr(value, "__float__"))):
        raise SpacrbenchTypeError(f"key(items[{i}]) returned {_shown(value)} "
                                  f"({type(value).__name__}), not a number; the item is "
                                  f"{_shown(item)}")
    try:
        number = float(value)
    except OverflowError:
        raise SpacrbenchValueError(f"key(items[{i}]) is {_shown(value, 40)}, too large for a "
                                   f"key (a finite number >= 0 that a float holds); the item "
                                   f"is {_shown(item)}") from None
    except (TypeError, ValueError) as exc:
        raise SpacrbenchTypeError(f"key(items[{i}]) returned {_shown(value)}, not a number "
                                  f"({exc}); the item is {_shown(item)}") from None
    if not math.isfinite(number) or number < 0:
        raise SpacrbenchValueError(f"key(items[{i}]) is {number!r}; a key must be a finite "
                                   f"number >= 0 (a size that grows with the item's memory); "
                                   f"the item is {_shown(item)}")
    return number


def _nbytes(item: Any) -> Optional[int]:
    """An array's nbytes (an int), or None; a negative one is an error."""
    n = getattr(item, "nbytes", None)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        return None
    if n < 0:
        raise ValueError(f"its nbytes is {int(n)}, below 0")
    return int(n)


def _default_key(finder: Callable[[Any], Optional[int]], name: str, i: int,
                 item: Any) -> Optional[int]:
    """finder(item), an error in it naming the item as key= errors do."""
    try:
        return finder(item)
    except Exception as exc:
        raise SpacrbenchValueError(f"benchmark_plate(): the {name} of items[{i}] "
                                   f"({_shown(item)}): {type(exc).__name__}: {exc}") from exc


def plate_keys(items: Sequence[Any], key: Optional[Callable[[Any], Any]]
               ) -> Tuple[Optional[List[float]], int, str, Optional[str]]:
    """The items' keys, their kind, their name, and a note why there are none."""
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
    for finder, name in ((file_size, "file size"), (_nbytes, "nbytes")):
        sizes = [_default_key(finder, name, i, item) for i, item in enumerate(items)]
        if all(size is None for size in sizes):
            continue
        if any(size is None for size in sizes):
            # Said now too: a stray item (a directory, a missing file). The
            # library takes it (a NaN key) to be as large as the largest,
            # and the others keep their keys.
            i = sizes.index(None)
            warnings.warn(f"benchmark_plate(): items[{i}] ({_shown(items[i])}) has no {name} "
                          f"as other items have: taken to be as large as the largest",
                          stacklevel=3)
        return ([math.nan if size is None else float(size) for size in sizes],
                int(lib.SPACRBENCH_PLATE_KEY_BYTES), name, None)
    return None, int(lib.SPACRBENCH_PLATE_KEY_NONE), "key", (
        f"benchmark_plate(): the items are neither paths of existing files nor arrays "
        f"(items[0] is {_shown(items[0])}), so they have no key: evenly spaced (give key=)")


def _count(value: Any, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise SpacrbenchTypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < least:
        raise SpacrbenchValueError(f"{name} must be >= {least}, not {value}")
    return int(min(int(value), 2**62))


def _select(keys: Optional[List[float]], n: int, kind: int, name: str, opts: Any) -> Any:
    if kind != lib.SPACRBENCH_PLATE_KEY_NONE:
        opts.key_kind = kind
    key_name = ffi.new("char[]", name.encode())
    opts.key_name = key_name
    c_keys = ffi.new("double[]", keys) if keys is not None else ffi.NULL
    out = ffi.new("spacrbench_plate **")
    check(lib.spacrbench_plate_select_keys(n, c_keys, opts, out), "benchmark_plate")
    return ffi.gc(out[0], lib.spacrbench_plate_free)


def _picks(plate: Any, items: Sequence[Any]) -> Tuple[PlateItem, ...]:
    picks = []
    k = new_struct("spacrbench_plate_pick")
    for i in range(lib.spacrbench_plate_pick_count(plate)):
        check(lib.spacrbench_plate_pick_get(plate, i, k), "spacrbench_plate_pick_get")
        picks.append(from_struct(PlateItem, k, item=items[k.index], why=WHYS.name(k.why)))
    return tuple(picks)


def _sequential(plate: Any, order: Tuple[PlateItem, ...],
                progress: Any) -> Tuple[Iterator[Any], Callable[[Progress], None]]:
    """sample=None: measure chosen items while spacrbench_plate_more asks for another."""
    from ._run import _progress_function, _stderr_progress

    _progress_function(progress)  # its TypeError, before any work runs
    peaks = ffi.new("int64_t[]", len(order))
    seconds = ffi.new("double[]", len(order))
    done = [0]

    def seen(p: Progress) -> None:
        peaks[done[0]] = -1 if p.item_peak_rss_bytes is None else p.item_peak_rss_bytes
        seconds[done[0]] = p.item_seconds
        done[0] += 1
        if progress is True:
            c = new_struct("spacrbench_progress")
            c.index, c.total, c.is_warmup = p.index, p.total, p.is_warmup
            c.item_seconds, c.elapsed_seconds = p.item_seconds, p.elapsed_seconds
            c.item_peak_rss_bytes = peaks[done[0] - 1]
            _stderr_progress(c)
        elif callable(progress):
            progress(p)

    def run() -> Iterator[Any]:
        more = ffi.new("int *", 1)
        for i, pick in enumerate(order):
            if i:
                check(lib.spacrbench_plate_more(plate, i, peaks, seconds, more),
                      "benchmark_plate")
                if not more[0]:
                    return
            yield pick.item

    return run(), seen


def benchmark_plate(work: Callable[[Any], Any], items: Iterable[Any], *,
                    key: Optional[Callable[[Any], Any]] = None, sample: Optional[int] = None,
                    warmup: int = 1, sample_cost: float = 0.05,
                    progress: Union[None, bool, Callable[[Progress], Any]] = None,
                    timeline: bool = False, **recommend_workers_keywords: Any) -> PlateResult:
    """Measure a few items chosen across the plate by a size key (file size,
    ``nbytes`` or ``key(item)``), predict every item, and recommend a worker
    count that holds for the plate's largest (docs/advice.md). Returns a
    PlateResult whose measurement carries the plate's section.

    A spaCR pipeline sized for its plate::

        fields = sorted(glob.glob("plate1/*.tif"))
        result = spacrbench.benchmark_plate(process_field, fields)
        print(spacrbench.format_report(result))
        with ProcessPoolExecutor(max_workers=result.workers) as pool:
            list(pool.map(process_field, fields))"""
    from ._run import check_plain_callable, measure

    check_plain_callable(work, "work")
    sample = 0 if sample is None else _count(sample, "sample", 1)
    warmup = _count(warmup, "warmup", 0)
    if isinstance(sample_cost, bool) or not isinstance(sample_cost, numbers.Real):
        raise SpacrbenchTypeError(f"sample_cost must be a float (a share of the plate's time), "
                                  f"not {type(sample_cost).__name__}")
    try:
        cost = float(sample_cost)
    except OverflowError:  # an int beyond any float: infinite, which the library refuses
        cost = math.inf if sample_cost > 0 else -math.inf
    opts = new_struct("spacrbench_plate_options")
    check(lib.spacrbench_plate_options_init(opts, ffi.sizeof("spacrbench_plate_options")),
          "spacrbench_plate_options_init")
    opts.sample, opts.warmup, opts.sample_cost = sample, warmup, cost
    # checked by the library before any item is read: with no items, ENOITEMS means they hold
    rc = lib.spacrbench_plate_select_keys(0, ffi.NULL, opts, ffi.new("spacrbench_plate **"))
    if rc != lib.SPACRBENCH_ENOITEMS:
        check(rc, "benchmark_plate")
    unknown = sorted(set(recommend_workers_keywords) - _RECOMMEND_KEYWORDS)
    if unknown:
        raise SpacrbenchTypeError(f"benchmark_plate() got unexpected keyword argument(s) "
                                  f"{', '.join(unknown)}; it takes recommend_workers()'s "
                                  f"{', '.join(sorted(_RECOMMEND_KEYWORDS))}")
    from ._options import recommend_options

    inputs = recommend_options(**recommend_workers_keywords)  # checked before any work runs
    try:
        iterator = iter(items)
    except TypeError:
        raise SpacrbenchTypeError(f"items must be a sequence or iterable, "
                                  f"not {type(items).__name__}") from None
    plate_items = list(iterator)  # what a generator raises goes on, unchanged
    if not plate_items:
        raise SpacrbenchValueError("benchmark_plate needs at least one item (items is empty)")
    keys, kind, key_name, why_keyless = plate_keys(plate_items, key)
    plate = _select(keys, len(plate_items), kind, key_name, opts)
    order = _picks(plate, plate_items)
    run_items, run_progress = (_sequential(plate, order, progress) if sample == 0
                               else ([p.item for p in order], progress))
    out = new_struct("spacrbench_recommendation")

    def finish(cm: Any) -> None:
        """Put the plate's note, prediction, advice and section into the runner's measurement."""
        if why_keyless:
            check(lib.spacrbench_measurement_add_note(cm, utf8(why_keyless)), "benchmark_plate")
        check(lib.spacrbench_plate_predict(plate, cm), "benchmark_plate")
        check(lib.spacrbench_plate_recommend(plate, cm, inputs.opts, inputs.machine, out),
              "benchmark_plate")
        check(lib.spacrbench_measurement_set_plate(cm, plate, out.workers), "benchmark_plate")

    m = measure(work, run_items, warmup=sum(p.is_warmup for p in order),
                progress=run_progress, timeline=timeline, spread_note=False, finish=finish)
    section = m.plate
    assert section is not None
    rec = Recommendation(measurement=m, **inputs.fields(recommendation_fields(out)))
    return PlateResult(measurement=m, recommendation=rec, sample=_picks(plate, plate_items),
                       prediction=section.prediction, eta_seconds=section.eta_seconds,
                       _plate=plate)
