"""Measurement.from_dict: a Measurement back from the JSON object that
Measurement.to_dict() and the command's documents hold (a saved
`spacrbench run --json` report, a SLURM task report), so it can be
recommended on, formatted or plotted again.

The object is input we did not write: every field is checked for its type
and range here, and a bad one is a ValueError or TypeError naming it;
derived figures (items_per_second, work_rss_bytes, ...) are recomputed,
never read."""

from __future__ import annotations

import math
from typing import Any, Dict, Mapping, Optional, Tuple

from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._timeline import Timeline, TimelineItem, TimelinePoint
from ._types import GpuInfo, ItemRecord

# A report holds one record per item; more than this is not one we wrote.
_MAX_RECORDS = 100_000_000
_INT64_MAX = 2**63 - 1
# What the library writes for vram_source.
_VRAM_SOURCES = (None, "nvml", "torch", "caller")


def _given(d: Mapping[str, Any], key: str, where: str, default: Any,
           nullable: bool) -> Tuple[bool, Any]:
    """(True, the value to check), or (False, what to return): the default
    of an absent key (absent and no default: a ValueError), or None."""
    if key not in d:
        if default is None and not nullable:
            raise SpacrbenchValueError(f"{where} has no {key!r}")
        return False, default
    v = d[key]
    return (False, None) if v is None and nullable else (True, v)


def _integer(d: Mapping[str, Any], key: str, where: str, default: Optional[int] = None,
             nullable: bool = False) -> Optional[int]:
    check, v = _given(d, key, where, default, nullable)
    if not check:
        return v  # type: ignore[no-any-return]
    if isinstance(v, bool) or not isinstance(v, int):
        raise SpacrbenchTypeError(f"{where}[{key!r}] must be an integer"
                                  f"{' or None' if nullable else ''}, not {type(v).__name__}")
    if v < 0 or v > _INT64_MAX:
        raise SpacrbenchValueError(f"{where}[{key!r}] must be >= 0 and fit in 64 bits, got {v}")
    return v


def _number(d: Mapping[str, Any], key: str, where: str, default: Optional[float] = None,
            nullable: bool = False) -> Optional[float]:
    check, v = _given(d, key, where, default, nullable)
    if not check:
        return v  # type: ignore[no-any-return]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise SpacrbenchTypeError(f"{where}[{key!r}] must be a number"
                                  f"{' or None' if nullable else ''}, not {type(v).__name__}")
    if not math.isfinite(v) or v < 0:
        raise SpacrbenchValueError(f"{where}[{key!r}] must be finite and >= 0, got {v!r}")
    return float(v)


def _text(d: Mapping[str, Any], key: str, where: str) -> Optional[str]:
    v = d.get(key)
    if v is not None and not isinstance(v, str):
        raise SpacrbenchTypeError(f"{where}[{key!r}] must be a string or None, "
                                  f"not {type(v).__name__}")
    if v is not None and "\0" in v:
        raise SpacrbenchValueError(f"{where}[{key!r}] must not contain a NUL character")
    return v


def _flag(d: Mapping[str, Any], key: str, where: str) -> bool:
    v = d.get(key, False)
    if not isinstance(v, bool):
        raise SpacrbenchTypeError(f"{where}[{key!r}] must be a bool, not {type(v).__name__}")
    return v


def _list(d: Mapping[str, Any], key: str, where: str) -> Tuple[Any, ...]:
    v = d.get(key)
    if v is None:
        return ()
    if not isinstance(v, (list, tuple)):
        raise SpacrbenchTypeError(f"{where}[{key!r}] must be a list, not {type(v).__name__}")
    if len(v) > _MAX_RECORDS:
        raise SpacrbenchValueError(f"{where}[{key!r}] has {len(v)} entries, more than "
                                   f"{_MAX_RECORDS}")
    return tuple(v)


def _mapping(v: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise SpacrbenchTypeError(f"{where} must be a mapping, not {type(v).__name__}")
    return v


def _record(v: Any, where: str) -> ItemRecord:
    r = _mapping(v, where)
    warmup = _flag(r, "is_warmup", where)
    index = _integer(r, "index", where)
    seconds = _number(r, "seconds", where)
    assert index is not None and seconds is not None
    return ItemRecord(index, seconds, _integer(r, "peak_rss_bytes", where, nullable=True),
                      _integer(r, "peak_vram_bytes", where, nullable=True), warmup,
                      _text(r, "item", where))


def _gpu(v: Any, where: str) -> GpuInfo:
    g = _mapping(v, where)
    name = _text(g, "name", where) or ""
    index = _integer(g, "index", where)
    assert index is not None
    return GpuInfo(index, name, _integer(g, "total_bytes", where, nullable=True) or 0,
                   _integer(g, "free_bytes", where, nullable=True) or 0,
                   _integer(g, "process_peak_bytes", where, nullable=True))


def _timeline(v: Any, where: str, records: int) -> Timeline:
    t = _mapping(v, where)
    limits = {k: _integer(t, k, where, default=d) for k, d in
              (("interval_us", None), ("samples", None), ("stride", 1), ("max_points", 2000))}
    if limits["stride"] == 0 or limits["max_points"] == 0:
        raise SpacrbenchValueError(f"{where}['stride'] and {where}['max_points'] must be >= 1")
    points = _list(t, "points", where)
    if len(points) > (limits["max_points"] or 0):
        raise SpacrbenchValueError(f"{where}['points'] has {len(points)} points, more than its "
                                   f"max_points ({limits['max_points']})")
    shown = []
    for i, p in enumerate(points):
        at = f"{where}['points'][{i}]"
        pm = _mapping(p, at)
        seconds = _number(pm, "seconds", at)
        assert seconds is not None
        shown.append(TimelinePoint(seconds, _integer(pm, "rss_bytes", at, nullable=True),
                                   _integer(pm, "cgroup_bytes", at, nullable=True)))
    items = _list(t, "items", where)
    if len(items) > records:
        raise SpacrbenchValueError(f"{where}['items'] marks {len(items)} items, but there are "
                                   f"{records} records")
    marks = []
    for i, it in enumerate(items):
        at = f"{where}['items'][{i}]"
        im = _mapping(it, at)
        index = _integer(im, "index", at)
        assert index is not None
        if index >= records:
            raise SpacrbenchValueError(f"{at}['index'] is {index}, past the {records} records")
        start, end, peak_at = (_number(im, k, at) for k in
                               ("start_seconds", "end_seconds", "peak_seconds"))
        assert start is not None and end is not None and peak_at is not None
        marks.append(TimelineItem(index, start, end, _integer(im, "peak_rss_bytes", at,
                                                              nullable=True),
                                  peak_at, _flag(im, "is_warmup", at)))
    return Timeline(points=tuple(shown), items=tuple(marks), interval_us=limits["interval_us"] or 0,
                    samples=limits["samples"] or 0, stride=limits["stride"] or 1,
                    max_points=limits["max_points"] or 2000)


def _check_records(records: Tuple[ItemRecord, ...], items: int, warmup: int, where: str) -> None:
    """The library's records: one per item, warm-up first, in order."""
    if not records:
        return
    if len(records) != items + warmup:
        raise SpacrbenchValueError(f"{where}['records'] has {len(records)} records, not "
                                   f"items + warmup_items = {items + warmup}")
    for i, r in enumerate(records):
        if r.index != i:
            raise SpacrbenchValueError(f"{where}['records'][{i}]['index'] is {r.index}, not {i}")
        if r.is_warmup != (i < warmup):
            raise SpacrbenchValueError(f"{where}['records'][{i}]['is_warmup'] is {r.is_warmup}: "
                                       f"the first {warmup} record(s) are the warm-up")


def measurement_fields(data: Any, name: str = "data") -> Dict[str, Any]:
    """The Measurement constructor's arguments that data describes (see
    Measurement.from_dict, which makes the Measurement: this module does
    not import it)."""
    d = _mapping(data, name)
    if "items" not in d and isinstance(d.get("measurement"), Mapping):
        d, name = d["measurement"], f"{name}['measurement']"  # a whole --json document
    if d.get("stopped") is True:
        # A Measurement has no stopped state: advice from it would read as
        # a clean run's.
        raise SpacrbenchValueError(
            f"{name}['stopped'] is true: that run stopped at item {d.get('stopped_item')} "
            f"(work_result {d.get('work_result')}), so its figures are partial; a Measurement "
            "holds a finished run's")
    notes = _list(d, "notes", name)
    for i, n in enumerate(notes):
        if not isinstance(n, str):
            raise SpacrbenchTypeError(f"{name}['notes'][{i}] must be a string, "
                                      f"not {type(n).__name__}")
    items, seconds = _integer(d, "items", name), _number(d, "seconds", name)
    peak = _integer(d, "peak_rss_bytes", name)
    warmup = _integer(d, "warmup_items", name, default=0)
    assert items is not None and seconds is not None and peak is not None and warmup is not None
    records = tuple(_record(r, f"{name}['records'][{i}]")
                    for i, r in enumerate(_list(d, "records", name)))
    _check_records(records, items, warmup, name)
    timeline = d.get("timeline")
    tl = None if timeline is None else _timeline(timeline, f"{name}['timeline']", len(records))
    vram_source = _text(d, "vram_source", name)
    if vram_source not in _VRAM_SOURCES:
        raise SpacrbenchValueError(f"{name}['vram_source'] must be one of {list(_VRAM_SOURCES)}, "
                                   f"not {vram_source!r}")
    fields: Dict[str, Any] = dict(
        items=items, seconds=seconds, peak_rss_bytes=peak,
        peak_vram_bytes=_integer(d, "peak_vram_bytes", name, nullable=True),
        baseline_rss_bytes=_integer(d, "baseline_rss_bytes", name, default=0),
        notes=list(notes), records=records,
        cpu_seconds=_number(d, "cpu_seconds", name, nullable=True), warmup_items=warmup,
        warmup_seconds=_number(d, "warmup_seconds", name, default=0.0),
        vram_source=vram_source,
        gpus=tuple(_gpu(g, f"{name}['gpus'][{i}]") for i, g in enumerate(_list(d, "gpus", name))),
        sample_interval_us=_integer(d, "sample_interval_us", name, default=0),
        vram_reason=_text(d, "vram_reason", name),
        oom_limit_bytes=_integer(d, "oom_limit_bytes", name, default=0),
        timeline=tl)
    method = _text(d, "peak_method", name)
    if method is not None:
        fields["peak_method"] = method
    return fields
