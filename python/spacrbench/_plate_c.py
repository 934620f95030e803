"""The plate section between Python and the library: read from a C
measurement (spacrbench_measurement_plate and its picks and notes) and
written into one (the section's builders), so to_dict(), the exports, the
report and the hand-off see Measurement.plate, a hand-made or replaced one
too. The library checks what it is given (an index past the plate, a pick
per record): its refusal is a ValueError naming the field. And the
file-size key of an item, the library's."""

from __future__ import annotations

import math
import numbers
import os
from typing import Any, Optional

from ._binding import Names, c_text, check, ffi, lib, new_struct
from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._plate_data import PlatePick, PlatePrediction, PlateSection

KEYS = Names("SPACRBENCH_PLATE_KEY_", lib.spacrbench_plate_key_name)
FITS = Names("SPACRBENCH_PLATE_FIT_", lib.spacrbench_plate_fit_name)
WHYS = Names("SPACRBENCH_PLATE_WHY_", lib.spacrbench_plate_why_name)


def _size(v: int) -> Optional[int]:
    return None if v < 0 else int(v)


def _number(v: float) -> Optional[float]:
    return None if math.isnan(v) else float(v)


def plate_from_c(cm: Any) -> Optional[PlateSection]:
    """The C measurement's plate section, or None when it carries none."""
    s = new_struct("spacrbench_plate_section")
    if lib.spacrbench_measurement_plate(cm, s) != 0:
        return None
    k = new_struct("spacrbench_plate_pick")
    picks = []
    for i in range(int(s.pick_count)):
        check(lib.spacrbench_measurement_plate_pick(cm, i, k), "spacrbench_measurement_plate_pick")
        picks.append(PlatePick(index=int(k.index), key=_number(k.key),
                               why=WHYS.name(k.why),
                               is_warmup=bool(k.is_warmup), footprint_bytes=_size(k.footprint_bytes),
                               seconds=_number(k.seconds)))
    notes = tuple(c_text(lib.spacrbench_measurement_plate_note(cm, i))
                  for i in range(int(s.note_count)))
    prediction = PlatePrediction(
        items=int(s.items), measured=sum(p.footprint_bytes is not None for p in picks),
        key=KEYS.name(s.key_kind), key_name=c_text(s.key_name),
        fit=FITS.name(s.fit), time_fit=FITS.name(s.time_fit),
        correlation=_number(s.correlation), largest_index=_size(s.largest_index),
        largest_key=_number(s.largest_key), median_key=_number(s.median_key),
        largest_bytes=_size(s.largest_bytes),
        largest_measured_bytes=_size(s.largest_measured_bytes),
        spread_bytes=_size(s.spread_bytes), slowest_seconds=_number(s.slowest_seconds),
        total_seconds=_number(s.total_seconds), notes=notes,
        slope_bytes_per_key=_number(s.slope_bytes_per_key),
        intercept_bytes=_number(s.intercept_bytes))
    return PlateSection(prediction=prediction, sample=tuple(picks),
                        workers=_size(s.workers), eta_seconds=_number(s.eta_seconds),
                        seed=_size(s.seed))


def _nan(value: Any, name: str) -> float:
    """A number of the section (None: NaN); the library checks its range."""
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SpacrbenchTypeError(f"{name} must be a number or None, not {type(value).__name__}")
    return float(value)


def _int(value: Any, name: str) -> int:
    """A count or index of the section (None: -1); the library checks it."""
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
    """The library's key of the file item names (spacrbench_plate_file_key:
    a regular file's size, stat only), or None. What the item's own
    __fspath__ raises goes on."""
    if not isinstance(item, (str, bytes, os.PathLike)):
        return None
    path = os.fspath(item)
    try:
        name = os.fsencode(path)
    except UnicodeError:  # no file has that name
        return None
    size = lib.spacrbench_plate_file_key(name) if b"\0" not in name else math.nan
    return None if math.isnan(size) else int(size)
