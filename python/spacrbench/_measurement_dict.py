"""Measurement.from_dict: the mapping as JSON for spacrbench_measurement_from_json."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping, Optional, Type, TypeVar

from ._binding import check, ffi, lib
from ._errors import SpacrbenchTypeError, SpacrbenchValueError

if TYPE_CHECKING:
    from ._results import Measurement

_PLAIN = (str, int, float, bool, type(None))
T = TypeVar("T", bound="Measurement")


def _as_json(value: Any) -> Any:
    """json.dumps' default: a Mapping becomes a dict; anything else is refused."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(type(value).__name__)


def _not_json(value: Any, where: str) -> Optional[str]:
    """Where in value JSON cannot hold what it finds; None when it holds all."""
    if isinstance(value, _PLAIN):
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, _PLAIN):
                return f"{where} has a key of type {type(key).__name__}, not str"
            found = _not_json(item, f"{where}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = _not_json(item, f"{where}[{i}]")
            if found:
                return found
        return None
    return (f"{where} must be JSON data (a mapping, list, str, int, float, bool or None), "
            f"not {type(value).__name__}")


def json_text(data: Any, name: str) -> bytes:
    """data as the JSON text the library reads."""
    try:
        text = json.dumps(data, allow_nan=True, default=_as_json, separators=(",", ":"))
    except TypeError:
        raise SpacrbenchTypeError(_not_json(data, name) or f"{name} is not JSON data") from None
    except ValueError as exc:  # a circular reference
        raise SpacrbenchValueError(f"{name} holds itself ({exc})") from None
    except RecursionError:
        raise SpacrbenchValueError(f"{name} is nested too deep for a measurement's document") \
            from None
    return text.encode("utf-8")


def measurement_from(cls: Type[T], text: bytes, name: str = "data", flags: int = 0,
                     what: str = "Measurement.from_dict") -> T:
    """A cls (Measurement) of what text describes, keeping the library's measurement."""
    from ._convert import keep_c_measurement, measurement_fields

    out = ffi.new("spacrbench_measurement **")
    check(lib.spacrbench_measurement_from_json(text, len(text), name.encode("utf-8"), flags,
                                               out), what)
    cm = out[0]
    try:
        fields = measurement_fields(cm)
        records = fields["records"]  # the library's LazyRecords, or () for none
        labels = [lib.spacrbench_measurement_item_label(cm, i)
                  for i in range(records.count if records else 0)]
        if any(label != ffi.NULL for label in labels):  # a command's document names its items
            records.labels = [None if label == ffi.NULL else ffi.string(label).decode("utf-8")
                              for label in labels]
        m = cls(**fields)
    except BaseException:
        lib.spacrbench_measurement_free(cm)
        raise
    keep_c_measurement(m, cm)
    return m


def measurement_from_dict(cls: Type[T], data: Any, name: str = "data") -> T:
    """Measurement.from_dict (a whole --json document by its "measurement")."""
    return measurement_from(cls, json_text(data, name), name)
