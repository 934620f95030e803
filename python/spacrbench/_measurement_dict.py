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
from ._timeline import timeline_from_dict
from ._types import GpuInfo, ItemRecord

# A report holds one record per item; more than this is not one we wrote.
_MAX_RECORDS = 100_000_000


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
    if v < 0:
        raise SpacrbenchValueError(f"{where}[{key!r}] must be >= 0, got {v}")
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
    warmup = r.get("is_warmup", False)
    if not isinstance(warmup, bool):
        raise SpacrbenchTypeError(f"{where}['is_warmup'] must be a bool, "
                                  f"not {type(warmup).__name__}")
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


def measurement_fields(data: Any, name: str = "data") -> Dict[str, Any]:
    """The Measurement constructor's arguments that data describes (see
    Measurement.from_dict, which makes the Measurement: this module does
    not import it)."""
    d = _mapping(data, name)
    if "items" not in d and isinstance(d.get("measurement"), Mapping):
        d, name = d["measurement"], f"{name}['measurement']"  # a whole --json document
    notes = _list(d, "notes", name)
    for i, n in enumerate(notes):
        if not isinstance(n, str):
            raise SpacrbenchTypeError(f"{name}['notes'][{i}] must be a string, "
                                      f"not {type(n).__name__}")
    timeline = d.get("timeline")
    try:
        tl = timeline_from_dict(None if timeline is None else _mapping(timeline,
                                                                       f"{name}['timeline']"))
    except (KeyError, TypeError, ValueError) as e:
        raise SpacrbenchValueError(f"{name}['timeline'] is not a timeline object: "
                                   f"{type(e).__name__}: {e}") from None
    items, seconds = _integer(d, "items", name), _number(d, "seconds", name)
    peak = _integer(d, "peak_rss_bytes", name)
    assert items is not None and seconds is not None and peak is not None
    fields: Dict[str, Any] = dict(
        items=items, seconds=seconds, peak_rss_bytes=peak,
        peak_vram_bytes=_integer(d, "peak_vram_bytes", name, nullable=True),
        baseline_rss_bytes=_integer(d, "baseline_rss_bytes", name, default=0),
        notes=list(notes),
        records=tuple(_record(r, f"{name}['records'][{i}]")
                      for i, r in enumerate(_list(d, "records", name))),
        cpu_seconds=_number(d, "cpu_seconds", name, nullable=True),
        warmup_items=_integer(d, "warmup_items", name, default=0),
        warmup_seconds=_number(d, "warmup_seconds", name, default=0.0),
        vram_source=_text(d, "vram_source", name),
        gpus=tuple(_gpu(g, f"{name}['gpus'][{i}]") for i, g in enumerate(_list(d, "gpus", name))),
        sample_interval_us=_integer(d, "sample_interval_us", name, default=0),
        vram_reason=_text(d, "vram_reason", name),
        oom_limit_bytes=_integer(d, "oom_limit_bytes", name, default=0),
        timeline=tl)
    method = _text(d, "peak_method", name)
    if method is not None:
        fields["peak_method"] = method
    return fields
