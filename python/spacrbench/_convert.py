"""Conversions between the Python results and the library's structs, in the library's names."""

from __future__ import annotations

import dataclasses
import math
import numbers
import operator
import os
import struct
from contextlib import contextmanager
from types import SimpleNamespace
from typing import (TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple, Type,
                    TypeVar)

from ._binding import NOT_MEASURED, Names, c_text, check, ffi, format_text, lib, new_struct
from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._plate_data import PlatePick, PlatePrediction, PlateSection
from ._timeline import Timeline, TimelineItem, TimelinePoint
from ._types import (C_CACHE, SUPPLIED, CachesC, GpuInfo, ItemRecord, LazyRecords, RunRecord,
                     raw_records)

if TYPE_CHECKING:
    from ._results import Measurement, Recommendation


PEAK_METHODS = Names("SPACRBENCH_PEAK_", lib.spacrbench_peak_method_name)
SOURCES = Names("SPACRBENCH_SOURCE_", lib.spacrbench_source_name)
BOUNDS = Names("SPACRBENCH_BOUND_", lib.spacrbench_bound_name)
START_METHODS = Names("SPACRBENCH_START_", lib.spacrbench_start_method_name)
RESERVE_RULES = Names("SPACRBENCH_RESERVE_", lib.spacrbench_reserve_rule_name)
_UNKNOWN_SOURCE = lib.SPACRBENCH_SOURCE_UNKNOWN


def optional(value: int) -> Optional[int]:
    return None if value == NOT_MEASURED else int(value)


def format_bytes(n: int) -> str:
    """A size as the library writes it everywhere ("3.00 GiB")."""
    return format_text(lambda buf, cap: lib.spacrbench_format_bytes(n, buf, cap),
                       "spacrbench_format_bytes")


def progress_line(p: Any) -> str:
    return format_text(lambda buf, cap: lib.spacrbench_format_progress(p, ffi.NULL, buf, cap),
                       "spacrbench_format_progress")


T = TypeVar("T")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _whole(value: Any, name: str) -> int:
    """An integer figure of a hand-made result, read as spaCR's int() (not bool)."""
    if isinstance(value, bool):
        raise SpacrbenchTypeError(f"{name} must be a number, not bool")
    try:
        n = operator.index(value)
    except TypeError:
        if not isinstance(value, numbers.Real):
            raise SpacrbenchTypeError(f"{name} must be a number, not {type(value).__name__}") from None
        if not math.isfinite(float(value)):
            raise SpacrbenchValueError(f"{name} must be a finite number, not {value!r}") from None
        n = int(math.trunc(value))  # what int() does to a real
    if not _INT64_MIN <= n <= _INT64_MAX:
        raise SpacrbenchValueError(f"{name} must fit in 64 bits, not {n}")
    return n


def _real(value: Any, name: str) -> float:
    """A time figure of a hand-made result (NaN and sign: the library's call)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SpacrbenchTypeError(f"{name} must be a number, not {type(value).__name__}")
    return float(value)


def utf8(text: str) -> bytes:
    """Text for the library (UTF-8; surrogateescape names get their bytes back)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace")


def c_string(text: str, name: str) -> bytes:
    """utf8(text) for a C string argument; a NUL is a ValueError naming it."""
    if "\0" in text:
        raise SpacrbenchValueError(f"{name} must not contain a NUL character (the C string would end "
                                   f"there), got {text!r}")
    return utf8(text)


def _shown(value: Any) -> str:
    """A value quoted in an error message, cut if long."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _sequence(value: Any, name: str, what: str) -> List[Any]:
    """A list/tuple-like field of a hand-made result (not a str)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise SpacrbenchTypeError(f"{name} must be a list of {what}, not {_shown(value)} "
                                  f"({type(value).__name__})")
    return list(value)


def _each(value: Any, name: str, cls: type) -> Iterator[Tuple[int, Any]]:
    """The entries of a list-like field of a hand-made result, each a cls."""
    for i, entry in enumerate(_sequence(value, name, cls.__name__)):
        if not isinstance(entry, cls):
            article = "an" if cls.__name__[0] in "AEIOU" else "a"
            raise SpacrbenchTypeError(f"{name}[{i}] must be {article} {cls.__name__}, not "
                                      f"{_shown(entry)} ({type(entry).__name__})")
        yield i, entry


def _sentinel(value: Any, name: str) -> int:
    return NOT_MEASURED if value is None else _whole(value, name)


def from_struct(cls: Type[T], *structs: Any, **given: Any) -> T:
    """A frozen dataclass from C structs by member name ("not measured" is None); given: the rest."""
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        s = next((s for s in structs if hasattr(s, f.name)), None)
        if f.name in given or s is None:
            continue
        v, kind = getattr(s, f.name), str(f.type)
        if kind.endswith("bool"):
            v = bool(v)
        elif kind.endswith("str"):
            v = c_text(v)
        elif "float" in kind:
            v = None if "Optional" in kind and math.isnan(v) else float(v)
        else:
            v = None if "Optional" in kind and v == NOT_MEASURED else int(v)
        given[f.name] = v
    return cls(**given)


def to_struct(s: Any, obj: Any, where: str) -> Any:
    """obj's fields into the C struct s by name, each checked and named where.field."""
    for f in dataclasses.fields(obj):
        if not hasattr(s, f.name):
            continue
        v, kind, name = getattr(obj, f.name), str(f.type), f"{where}.{f.name}"
        optional = "Optional" in kind
        if kind.endswith("bool"):
            setattr(s, f.name, 1 if v else 0)
        elif kind.endswith("str"):
            _put_text(getattr(s, f.name), str(v), name)
        elif "float" in kind:
            setattr(s, f.name, math.nan if optional and v is None else _real(v, name))
        else:
            setattr(s, f.name, _sentinel(v, name) if optional else _whole(v, name))
    return s


def _layout(ctype: str, members: Tuple[Tuple[str, str], ...]) -> Tuple[struct.Struct, int]:
    """struct layout of a C struct's members as this build compiled it."""
    fmt, pos = "=", 0
    for name, code in members:
        offset = ffi.offsetof(ctype, name)
        fmt += "x" * (offset - pos) + code
        pos = offset + struct.calcsize("=" + code)
    size = ffi.sizeof(ctype)
    return struct.Struct(fmt + "x" * (size - pos)), size


_RECORD, _RECORD_SIZE = _layout("spacrbench_item_record", (
    ("index", "q"), ("is_warmup", "i"), ("seconds", "d"), ("peak_rss_bytes", "q"),
    ("peak_vram_bytes", "q")))
_DETAILS, _DETAILS_SIZE = _layout("spacrbench_item_details", (
    ("cpu_seconds", "d"), ("cgroup_charge_bytes", "q"), ("tree_rss_peak_bytes", "q"),
    ("run_count", "q")))


def _decode_records(lazy: LazyRecords) -> Tuple[ItemRecord, ...]:
    """ItemRecords from a LazyRecords' blocks of C records and details."""
    nm, labels = NOT_MEASURED, lazy.labels or [None] * lazy.count
    base = _RECORD.iter_unpack(ffi.buffer(lazy.data, lazy.count * _RECORD_SIZE))
    details = _DETAILS.iter_unpack(ffi.buffer(lazy.details, lazy.count * _DETAILS_SIZE))
    return tuple(ItemRecord(index, seconds, None if rss == nm else rss,
                            None if vram == nm else vram, warm != 0, labels[i],
                            None if math.isnan(cpu) else cpu, None if charge == nm else charge,
                            None if tree == nm else tree, lazy.runs.get(i, ()))
                 for i, ((index, warm, seconds, rss, vram), (cpu, charge, tree, _))
                 in enumerate(zip(base, details)))


def _run_records(cm: Any, index: int, count: int) -> Tuple[RunRecord, ...]:
    run = new_struct("spacrbench_item_run")
    runs = []
    for k in range(count):
        check(lib.spacrbench_measurement_item_run(cm, index, k, run),
              "spacrbench_measurement_item_run")
        runs.append(from_struct(RunRecord, run))
    return tuple(runs)


def _read_records(cm: Any, count: int) -> Any:
    """All records of a C measurement in two calls, undecoded."""
    if count == 0:
        return ()
    block = ffi.new("spacrbench_item_record[]", count)
    check(lib.spacrbench_measurement_copy_records(cm, 0, count, block, _RECORD_SIZE),
          "spacrbench_measurement_copy_records")
    details = ffi.new("spacrbench_item_details[]", count)
    check(lib.spacrbench_measurement_copy_item_details(cm, 0, count, details, _DETAILS_SIZE),
          "spacrbench_measurement_copy_item_details")
    runs = {i: _run_records(cm, i, int(details[i].run_count))
            for i in range(count) if details[i].run_count > 0}
    return LazyRecords(block, count, _decode_records, details, runs)


def _set_record_details(cm: Any, i: int, cpu: Optional[float], charge: Optional[int],
                        tree: Optional[int], runs: Tuple[RunRecord, ...]) -> None:
    """Record i's details into a C measurement (errors name records[i])."""
    where = f"records[{i}]"
    if cpu is not None:
        check(lib.spacrbench_measurement_set_item_cpu_seconds(
            cm, i, _real(cpu, f"{where}.cpu_seconds")), f"{where}.cpu_seconds")
    if charge is not None or tree is not None:
        mem = new_struct("spacrbench_memory_figures")
        mem.cgroup_charge_bytes = _sentinel(charge, f"{where}.cgroup_charge_bytes")
        mem.tree_rss_peak_bytes = _sentinel(tree, f"{where}.tree_rss_peak_bytes")
        check(lib.spacrbench_measurement_set_item_memory(cm, i, mem), where)
    if not runs:
        return
    block = ffi.new("spacrbench_item_run[]", len(runs))
    for k, r in _each(runs, f"{where}.run_records", RunRecord):
        block[k].size = ffi.sizeof("spacrbench_item_run")
        to_struct(block[k], r, f"{where}.run_records[{k}]")
    check(lib.spacrbench_measurement_set_item_runs(cm, i, block, len(runs),
                                                   ffi.sizeof("spacrbench_item_run")),
          f"{where}.run_records")


def measurement_fields(cm: Any) -> Dict[str, Any]:
    """The Measurement fields of a C measurement."""
    fig = new_struct("spacrbench_figures")
    check(lib.spacrbench_measurement_figures(cm, fig), "spacrbench_measurement_figures")
    gpu = new_struct("spacrbench_gpu_info")
    gpus = []
    for i in range(fig.gpu_count):
        check(lib.spacrbench_measurement_gpu(cm, i, gpu), "spacrbench_measurement_gpu")
        gpus.append(from_struct(GpuInfo, gpu))
    cpu = float(fig.cpu_seconds)
    return dict(
        {name: int(getattr(fig, name)) for name in _SPACR_FIGURES + _FIGURES},
        seconds=float(fig.seconds), peak_vram_bytes=optional(fig.peak_vram_bytes),
        notes=[c_text(lib.spacrbench_measurement_note(cm, i)) for i in range(fig.note_count)],
        records=_read_records(cm, int(fig.record_count)),
        cpu_seconds=None if math.isnan(cpu) else cpu, warmup_seconds=float(fig.warmup_seconds),
        peak_method=PEAK_METHODS.name(fig.peak_method),
        vram_source=None if fig.vram_source == _UNKNOWN_SOURCE else SOURCES.name(fig.vram_source),
        gpus=tuple(gpus), vram_reason=c_text(lib.spacrbench_measurement_vram_reason(cm)) or None,
        timeline=_timeline_from_c(cm), plate=plate_from_c(cm))


def keep_c_measurement(m: Measurement, cm: Any) -> None:
    """Keep cm, just read into m, as m's C measurement."""
    m.__dict__[C_CACHE] = (_fingerprint(m), ffi.gc(cm, lib.spacrbench_measurement_free))


def _fingerprint(m: Any) -> Tuple[Any, ...]:
    """What of a Measurement can change after it was made (its lists)."""
    records = raw_records(m)
    return (tuple(m.notes) if isinstance(m.notes, list) else m.notes,
            tuple(records) if isinstance(records, list) else None,
            tuple(m.gpus) if isinstance(m.gpus, list) else None)


@contextmanager
def c_measurement(m: Any) -> Iterator[Any]:
    """The equivalent C measurement of m (ffi.NULL for None) for a with-block."""
    if m is None:
        yield ffi.NULL
    elif isinstance(m, CachesC):
        yield cached_c_measurement(m)
    else:
        cm = _build(SimpleNamespace(**_DEFAULTS, **spacr_measurement_fields(m)))
        try:
            yield cm
        finally:
            lib.spacrbench_measurement_free(cm)


def cached_c_measurement(m: Any) -> Any:
    """m's C measurement, built once and rebuilt when one of its lists changed."""
    kept = m.__dict__.get(C_CACHE)
    now = _fingerprint(m)
    if kept is not None and kept[0] == now:
        return kept[1]
    # Built from the lists as the fingerprint copied them, so it holds what
    # the fingerprint says even while another thread appends to m.notes.
    notes, records, gpus = now
    held = {**m.__dict__, "notes": notes, "gpus": m.gpus if gpus is None else gpus,
            "records": raw_records(m) if records is None else records}
    cm = ffi.gc(_build(SimpleNamespace(**held)), lib.spacrbench_measurement_free)
    m.__dict__[C_CACHE] = (now, cm)
    return cm


#: A hand-made Measurement's defaults of the fields spaCR's has not.
_DEFAULTS: Dict[str, Any] = dict(
    records=(), cpu_seconds=None, warmup_items=0, warmup_seconds=0.0, peak_method=SUPPLIED,
    vram_source=None, gpus=(), sample_interval_us=0, vram_reason=None, oom_limit_bytes=0,
    timeline=None, plate=None)
_MEASUREMENT_FIELDS = ("items", "seconds", "peak_rss_bytes")


def spacr_measurement_fields(obj: Any, name: str = "measurement") -> Dict[str, Any]:
    """The fields spaCR's Measurement has, from any object; a missing one is a TypeError."""
    missing = [f for f in _MEASUREMENT_FIELDS if not hasattr(obj, f)]
    if missing:
        raise SpacrbenchTypeError(
            f"{name} must be a Measurement (or have spaCR's Measurement attributes); "
            f"{type(obj).__name__} lacks {', '.join(missing)}")
    return {"items": obj.items, "seconds": obj.seconds, "peak_rss_bytes": obj.peak_rss_bytes,
            "peak_vram_bytes": getattr(obj, "peak_vram_bytes", None),
            "baseline_rss_bytes": getattr(obj, "baseline_rss_bytes", 0),
            "notes": [str(n) for n in (getattr(obj, "notes", None) or ())]}


# The whole-number figures of a Measurement (spacrbench_figures' members).
_SPACR_FIGURES = ("items", "peak_rss_bytes", "baseline_rss_bytes", "peak_vram_bytes")
_FIGURES = ("warmup_items", "sample_interval_us", "oom_limit_bytes")


def _build(m: Any) -> Any:
    """A new C measurement holding m's fields (the caller frees it)."""
    fig = new_struct("spacrbench_figures")
    for name in _FIGURES:
        setattr(fig, name, _whole(getattr(m, name), name))
    # spaCR's four figures: a negative one (nonsense spaCR printed as is)
    # counts as 0, and a time the library cannot hold (NaN, infinite,
    # negative) as 0 s; format_report() prints spaCR's arithmetic on it.
    for name in _SPACR_FIGURES:
        value = getattr(m, name)
        setattr(fig, name, NOT_MEASURED if value is None and name == "peak_vram_bytes"
                else max(0, _whole(value, name)))
    seconds = _real(m.seconds, "seconds")
    fig.seconds = seconds if math.isfinite(seconds) and seconds >= 0 else 0.0
    fig.cpu_seconds = math.nan if m.cpu_seconds is None else _real(m.cpu_seconds, "cpu_seconds")
    fig.warmup_seconds = _real(m.warmup_seconds, "warmup_seconds")
    fig.peak_method = PEAK_METHODS.code(m.peak_method, "peak_method")
    fig.vram_source = (_UNKNOWN_SOURCE if m.vram_source is None
                       else SOURCES.code(m.vram_source, "vram_source"))
    fig.stopped_item = -1  # a Measurement is never of a stopped run: benchmark() raises
    out = ffi.new("spacrbench_measurement **")
    check(lib.spacrbench_measurement_create(fig, out), "measurement")
    cm = out[0]
    try:
        _add_details(cm, m)
    except BaseException:
        lib.spacrbench_measurement_free(cm)
        raise
    return cm


def _add_details(cm: Any, m: Any) -> None:
    for i, note in enumerate(_sequence(m.notes, "notes", "str")):
        check(lib.spacrbench_measurement_add_note(cm, c_string(str(note), f"notes[{i}]")),
              "measurement note")
    if m.vram_reason is not None:
        check(lib.spacrbench_measurement_set_vram_reason(
            cm, c_string(str(m.vram_reason), "vram_reason")), "measurement vram_reason")
    records = raw_records(m)
    if type(records) is LazyRecords:  # as the library wrote them: no decoding
        check(lib.spacrbench_measurement_add_records(
            cm, records.data, records.count, ffi.sizeof("spacrbench_item_record")),
            "measurement records")
        for i in range(records.count):
            d = records.details[i]
            cpu = float(d.cpu_seconds)
            _set_record_details(cm, i, None if math.isnan(cpu) else cpu,
                                optional(d.cgroup_charge_bytes), optional(d.tree_rss_peak_bytes),
                                records.runs.get(i, ()))
    else:
        rec = new_struct("spacrbench_item_record")
        for i, r in _each(records, "records", ItemRecord):
            check(lib.spacrbench_measurement_add_record(cm, to_struct(rec, r, f"records[{i}]")),
                  "measurement record")
            _set_record_details(cm, i, r.cpu_seconds, r.cgroup_charge_bytes,
                                r.tree_rss_peak_bytes, r.run_records)
    gpu = new_struct("spacrbench_gpu_info")
    for i, g in _each(m.gpus, "gpus", GpuInfo):
        check(lib.spacrbench_measurement_add_gpu(cm, to_struct(gpu, g, f"gpus[{i}]")),
              "measurement gpu")
    if getattr(m, "timeline", None) is not None:
        _timeline_to_c(cm, m.timeline)
    if getattr(m, "plate", None) is not None:  # after the records: a pick per record
        plate_to_c(cm, m.plate)


def _timeline_from_c(cm: Any) -> Optional[Timeline]:
    """The C measurement's timeline, or None when it has none."""
    info = new_struct("spacrbench_timeline_info")
    if lib.spacrbench_measurement_timeline_info(cm, info) != 0:
        return None
    p, it = new_struct("spacrbench_timeline_point"), new_struct("spacrbench_timeline_item")
    points, marks = [], []
    for i in range(int(lib.spacrbench_measurement_timeline_count(cm))):
        check(lib.spacrbench_measurement_timeline_point(cm, i, p),
              "spacrbench_measurement_timeline_point")
        cpu = float(lib.spacrbench_measurement_timeline_point_cpu(cm, i))
        points.append(from_struct(TimelinePoint, p, cpu_seconds=None if math.isnan(cpu) else cpu))
    for i in range(int(lib.spacrbench_measurement_timeline_item_count(cm))):
        check(lib.spacrbench_measurement_timeline_item(cm, i, it),
              "spacrbench_measurement_timeline_item")
        marks.append(from_struct(TimelineItem, it))
    return Timeline(points=tuple(points), items=tuple(marks), interval_us=int(info.interval_us),
                    samples=int(info.samples), stride=int(info.stride),
                    max_points=int(info.max_points))


def _timeline_to_c(cm: Any, tl: Any) -> None:
    """Copy a Timeline into a C measurement."""
    if not isinstance(tl, Timeline):
        raise SpacrbenchTypeError(f"timeline must be a Timeline or None, not {type(tl).__name__}")
    info = new_struct("spacrbench_timeline_info")
    info.interval_us, info.samples, info.stride = tl.interval_us, tl.samples, tl.stride
    check(lib.spacrbench_measurement_timeline_begin(cm, info), "timeline")
    p = new_struct("spacrbench_timeline_point")
    for i, point in enumerate(tl.points):
        name = f"timeline.points[{i}]"
        cpu = math.nan if point.cpu_seconds is None else _real(point.cpu_seconds, name)
        check(lib.spacrbench_measurement_timeline_add_point_cpu(cm, to_struct(p, point, name),
                                                                cpu), name)
    it = new_struct("spacrbench_timeline_item")
    for i, item in enumerate(tl.items):
        to_struct(it, item, f"timeline.items[{i}]")
        if not math.isfinite(it.peak_seconds):  # NaN: marked at the highest point inside
            it.peak_seconds = math.nan
        check(lib.spacrbench_measurement_timeline_add_item(cm, it), f"timeline.items[{i}]")


def _json(call: Any, what: str) -> Any:
    import json

    return json.loads(format_text(call, what))


def record_labels(m: Any) -> Optional[List[str]]:
    """The item labels m's records carry ("" for none); None when none has one."""
    lazy = getattr(m, "__dict__", {}).get("records")
    labels = (lazy.labels or [] if type(lazy) is LazyRecords else
              [r.item if isinstance(r, ItemRecord) else None for r in getattr(m, "records", ())])
    for i, label in enumerate(labels):
        if label is not None and not isinstance(label, str):
            raise SpacrbenchTypeError(f"records[{i}].item must be a str or None, "
                                      f"not {type(label).__name__}")
    if all(label is None for label in labels):
        return None
    return [label or "" for label in labels]


def c_texts(texts: Optional[Sequence[str]], name: str) -> Tuple[Any, List[Any]]:
    """texts as a C array of C strings (NULL for none), and the strings to keep."""
    keep = [ffi.new("char[]", c_string(str(s), name.format(i))) for i, s in enumerate(texts or ())]
    return (ffi.new("char *[]", keep) if keep else ffi.NULL), keep


def measurement_dict(m: Measurement) -> Dict[str, Any]:
    """The library's JSON object of m (spacrbench_measurement_to_json)."""
    with c_measurement(m) as cm:  # the records checked first
        # each record's "item", as the command's JSON has it
        labels = c_texts(record_labels(m), "records[{}].item")
        return _json(lambda buf, cap: lib.spacrbench_measurement_to_json(  # type: ignore[no-any-return]
            cm, labels[0], len(labels[1]), buf, cap), "to_dict")


def recommend_here(m: Any) -> Dict[str, Any]:
    """recommend_workers(m)'s fields with its defaults, for Measurement.plot()."""
    out = new_struct("spacrbench_recommendation")
    with c_measurement(m) as cm:
        check(lib.spacrbench_plate_recommend_measurement(cm, ffi.NULL, ffi.NULL, out),
              "Measurement.plot")
    return recommendation_fields(out)


# The Recommendation fields by how the library's struct holds them (-1: "none");
# cpu_parallelism (-1.0) and core_workers (0) are the two others.
_REC_WHOLE = ("workers", "cores", "available_bytes", "reserve_bytes", "maximum",
              "vram_reserve_bytes", "cores_per_worker", "threads_per_worker", "baseline_bytes",
              "oom_limit_bytes")
_REC_OPTIONAL = ("memory_limit_bytes", "per_worker_bytes", "memory_workers",
                 "per_worker_vram_bytes", "free_vram_bytes", "vram_workers")
_REC_ENUMS = {"bound": BOUNDS, "cores_source": SOURCES, "memory_source": SOURCES,
              "start_method": START_METHODS, "reserve_rule": RESERVE_RULES}
_REC_TEXTS = ("reason", "memory_where", "cores_where")


def recommendation_fields(r: Any) -> Dict[str, Any]:
    """The Recommendation fields of a spacrbench_recommendation (all but measurement)."""
    out: Dict[str, Any] = {name: int(getattr(r, name)) for name in _REC_WHOLE}
    out.update((name, None if getattr(r, name) < 0 else int(getattr(r, name)))
               for name in _REC_OPTIONAL)
    out.update((name, names.name(getattr(r, name))) for name, names in _REC_ENUMS.items())
    out.update((name, c_text(getattr(r, name))) for name in _REC_TEXTS)
    out["cpu_parallelism"] = None if r.cpu_parallelism < 0 else float(r.cpu_parallelism)
    out["core_workers"] = None if r.core_workers < 1 else int(r.core_workers)
    return out


def _put_text(array: Any, text: str, name: str) -> None:
    """text into a fixed C field, cut at a character boundary."""
    data, cut = c_string(text, name), ffi.sizeof(array) - 1
    if len(data) > cut:
        stop = cut
        while stop > cut - 3 and data[stop] & 0xC0 == 0x80:  # inside a character
            stop -= 1
        data = data[:stop]
    ffi.memmove(array, data + b"\0", len(data) + 1)


def c_recommendation(rec: Optional[Recommendation]) -> Any:
    """A spacrbench_recommendation struct holding rec's figures (NULL for None)."""
    if rec is None:
        return ffi.NULL
    if not hasattr(rec, "reserve_rule"):  # format_report() converts spaCR's first
        raise SpacrbenchTypeError(f"recommendation must be a spacrbench Recommendation or "
                                  f"None, not {type(rec).__name__}")
    r = new_struct("spacrbench_recommendation")
    for name in _REC_WHOLE:
        setattr(r, name, _whole(getattr(rec, name), name))
    # spaCR keeps a negative available_bytes as given; its budget was 0.
    r.available_bytes = max(0, r.available_bytes)
    for name in _REC_OPTIONAL:
        setattr(r, name, _sentinel(getattr(rec, name), name))
    for name, names in _REC_ENUMS.items():
        setattr(r, name, names.code(getattr(rec, name), name))
    r.cpu_parallelism = (-1.0 if rec.cpu_parallelism is None
                         else _real(rec.cpu_parallelism, "cpu_parallelism"))
    r.core_workers = 0 if rec.core_workers is None else _whole(rec.core_workers, "core_workers")
    for name in _REC_TEXTS:
        _put_text(getattr(r, name), str(getattr(rec, name)), name)
    return r


def recommendation_dict(rec: Recommendation) -> Dict[str, Any]:
    """The library's JSON object of rec, with its measurement's."""
    cr = c_recommendation(rec)
    out: Dict[str, Any] = _json(lambda buf, cap: lib.spacrbench_recommendation_to_json(
        cr, buf, cap), "to_dict")
    out["reason"] = str(rec.reason)  # whole: the C field holds 511 bytes
    # The library fills in what a struct leaves unset (core_workers' 0):
    # what the object says is None stays null.
    for name in (f.name for f in dataclasses.fields(rec) if f.default is None):
        if getattr(rec, name) is None and name in out:
            out[name] = None
    out["measurement"] = None if rec.measurement is None else measurement_dict(rec.measurement)
    return out


def format_report(m: Measurement, rec: Optional[Recommendation], verbose: bool = False) -> str:
    """The library's report of m and rec, with rec's whole reason and spaCR's
    arithmetic on a time the library cannot hold."""
    cr = c_recommendation(rec)
    opts = new_struct("spacrbench_report_options")
    reason = None if rec is None else ffi.new("char[]", c_string(str(rec.reason), "reason"))
    if reason is not None:
        opts.reason = reason  # kept alive by `reason` until the call returns
    seconds = m.seconds
    if (isinstance(seconds, numbers.Real) and not isinstance(seconds, bool)
            and not (math.isfinite(seconds) and seconds >= 0)):
        opts.use_seconds, opts.seconds = 1, float(seconds)
    with c_measurement(m) as cm:
        fn = lib.spacrbench_format_report_verbose if verbose else lib.spacrbench_format_report_with
        return format_text(lambda buf, cap: fn(cm, cr, opts, buf, cap), "format_report")


@contextmanager
def handoff_measurement(m: Any, what: str) -> Iterator[Any]:
    """The C measurement a hand-off is sized from: m's, or its plate's."""
    with c_measurement(m) as cm:
        if getattr(m, "plate", None) is None:
            yield cm
            return
        out = ffi.new("spacrbench_measurement **")
        check(lib.spacrbench_measurement_plate_handoff(cm, out), what)
        try:
            yield out[0]
        finally:
            lib.spacrbench_measurement_free(out[0])


def plate_text(m: Any, labels: Optional[List[str]]) -> str:
    """The report's plate section of m, each measured item labelled."""
    shown = labels if labels is not None else record_labels(m)
    with c_measurement(m) as cm:
        keep = [ffi.new("char[]", utf8(str(s).replace("\0", "\\x00"))) for s in shown or ()]
        c_labels = ffi.new("char *[]", keep) if keep else ffi.NULL
        return format_text(lambda buf, cap: lib.spacrbench_format_plate_section(
            cm, c_labels, len(keep), buf, cap), "format_report")


KEYS = Names("SPACRBENCH_PLATE_KEY_", lib.spacrbench_plate_key_name)
FITS = Names("SPACRBENCH_PLATE_FIT_", lib.spacrbench_plate_fit_name)
WHYS = Names("SPACRBENCH_PLATE_WHY_", lib.spacrbench_plate_why_name)


def plate_from_c(cm: Any) -> Optional[PlateSection]:
    """The C measurement's plate section, or None when it carries none."""
    s = new_struct("spacrbench_plate_section")
    if lib.spacrbench_measurement_plate(cm, s) != 0:
        return None
    k = new_struct("spacrbench_plate_pick")
    picks = []
    for i in range(int(s.pick_count)):
        check(lib.spacrbench_measurement_plate_pick(cm, i, k), "spacrbench_measurement_plate_pick")
        picks.append(from_struct(PlatePick, k, why=WHYS.name(k.why)))
    notes = tuple(c_text(lib.spacrbench_measurement_plate_note(cm, i))
                  for i in range(int(s.note_count)))
    prediction = from_struct(
        PlatePrediction, s, measured=sum(p.footprint_bytes is not None for p in picks),
        key=KEYS.name(s.key_kind), fit=FITS.name(s.fit), time_fit=FITS.name(s.time_fit),
        notes=notes)
    return from_struct(PlateSection, s, prediction=prediction, sample=tuple(picks))


def _nan(value: Any, name: str) -> float:
    """A number of the section (None: NaN)."""
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SpacrbenchTypeError(f"{name} must be a number or None, not {type(value).__name__}")
    return float(value)


def _int(value: Any, name: str) -> int:
    """A count or index of the section (None: -1)."""
    if value is None:
        return -1
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise SpacrbenchTypeError(f"{name} must be an int or None, not {type(value).__name__}")
    if not -2**63 <= int(value) < 2**63:
        raise SpacrbenchValueError(f"{name} must fit in 64 bits, not {value}")
    return int(value)


def _text(value: Any, name: str) -> bytes:
    text = str(value)
    if "\0" in text:
        raise SpacrbenchValueError(f"{name} must not contain a NUL character")
    return text.encode("utf-8", "replace")


def plate_to_c(cm: Any, section: Any) -> None:
    """Copy a PlateSection into a C measurement whose records are in."""
    if not isinstance(section, PlateSection):
        raise SpacrbenchTypeError(f"plate must be a PlateSection or None, not "
                                  f"{type(section).__name__}")
    p = section.prediction
    if not isinstance(p, PlatePrediction):
        raise SpacrbenchTypeError(f"plate.prediction must be a PlatePrediction, not "
                                  f"{type(p).__name__}")
    s = new_struct("spacrbench_plate_section")
    check(lib.spacrbench_plate_section_init(s, ffi.sizeof("spacrbench_plate_section")), "plate")
    s.items = _int(p.items, "plate.prediction.items")
    s.key_kind = KEYS.code(p.key, "plate.prediction.key")
    s.fit = FITS.code(p.fit, "plate.prediction.fit")
    s.time_fit = FITS.code(p.time_fit, "plate.prediction.time_fit")
    name = _text(p.key_name, "plate.prediction.key_name")
    if len(name) >= ffi.sizeof(s.key_name):
        raise SpacrbenchTypeError(f"plate.prediction.key_name is {len(name)} bytes; at most "
                                  f"{ffi.sizeof(s.key_name) - 1}")
    ffi.memmove(s.key_name, name + b"\0", len(name) + 1)
    for field in ("median_key", "correlation", "slope_bytes_per_key", "intercept_bytes",
                  "largest_key", "slowest_seconds", "total_seconds"):
        setattr(s, field, _nan(getattr(p, field), f"plate.prediction.{field}"))
    for field in ("largest_index", "largest_bytes", "largest_measured_bytes", "spread_bytes"):
        setattr(s, field, _int(getattr(p, field), f"plate.prediction.{field}"))
    s.workers = _int(section.workers, "plate.workers")
    s.eta_seconds = _nan(section.eta_seconds, "plate.eta_seconds")
    s.seed = _int(section.seed, "plate.seed")
    check(lib.spacrbench_measurement_plate_begin(cm, s), "plate")
    k = new_struct("spacrbench_plate_pick")
    for i, pick in enumerate(section.sample):
        if not isinstance(pick, PlatePick):
            raise SpacrbenchTypeError(f"plate.sample[{i}] must be a PlatePick, not "
                                      f"{type(pick).__name__}")
        k.index = _int(pick.index, f"plate.sample[{i}].index")
        k.key = _nan(pick.key, f"plate.sample[{i}].key")
        k.why = WHYS.code(pick.why, f"plate.sample[{i}].why")
        k.is_warmup = 1 if pick.is_warmup else 0
        check(lib.spacrbench_measurement_plate_add_pick(cm, k), f"plate.sample[{i}]")
    fig = new_struct("spacrbench_figures")
    check(lib.spacrbench_measurement_figures(cm, fig), "plate")
    records = int(fig.record_count)
    if len(section.sample) != records:
        raise SpacrbenchValueError(f"plate.sample has {len(section.sample)} pick(s): one per "
                                   f"record, and the measurement has {records}")
    for i, note in enumerate(p.notes):
        check(lib.spacrbench_measurement_plate_add_note(
            cm, _text(note, f"plate.prediction.notes[{i}]")), f"plate.prediction.notes[{i}]")


def file_size(item: Any) -> Optional[int]:
    """The library's key of the file item names (its size), or None."""
    if not isinstance(item, (str, bytes, os.PathLike)):
        return None
    path = os.fspath(item)
    try:
        name = os.fsencode(path)
    except UnicodeError:  # no file has that name
        return None
    size = lib.spacrbench_plate_file_key(name) if b"\0" not in name else math.nan
    return None if math.isnan(size) else int(size)
