"""spaCR 1.5.1.5's coercions (int() of its arguments, duck-typed results) before the strict C API."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

from ._errors import SpacrbenchOverflowError, SpacrbenchTypeError, SpacrbenchValueError
from ._results import Measurement, Recommendation

INT64_MAX = 2**63 - 1


def exact_int(value: Any, name: str) -> int:
    """int(value) as spaCR computed it, not clamped; errors name the argument."""
    try:
        return int(value)
    except TypeError:
        raise SpacrbenchTypeError(f"{name} must be a number int() accepts, "
                                  f"not {type(value).__name__}") from None
    except OverflowError:
        raise SpacrbenchOverflowError(f"{name} must be a number int() accepts, "
                                      f"not {value!r}") from None
    except ValueError:
        raise SpacrbenchValueError(f"{name} must be a number int() accepts, not {value!r}") from None


def upstream_int(value: Any, name: str) -> int:
    """exact_int(value), kept within the library's 64-bit fields."""
    return max(-INT64_MAX, min(exact_int(value, name), INT64_MAX))


def byte_size(value: Any, name: str) -> int:
    """A byte count, never negative: a number (floats truncate), or a size as
    text read by spacrbench_parse_size ("4G", "4GB"); a bool is a TypeError."""
    if isinstance(value, bool):
        raise SpacrbenchTypeError(f"{name} must be a byte count (an int, a float or a size "
                                  f"such as '4GiB'), not bool ({value!r})")
    if isinstance(value, str):
        try:
            n = upstream_int(value, name)
        except SpacrbenchValueError:
            from ._binding import c_text, ffi, lib

            out = ffi.new("int64_t *")
            if lib.spacrbench_parse_size(value.encode("utf-8", "surrogateescape"), out) != 0:
                why = c_text(lib.spacrbench_last_error_message())
                raise SpacrbenchValueError(f"{name}: {why}") from None
            n = int(out[0])
    else:
        n = upstream_int(value, name)
    if n < 0:
        raise SpacrbenchValueError(f"{name} must be >= 0, not {value!r}")
    return n


def upstream_byte_count(value: Any, name: str) -> int:
    """A byte count of spaCR's own arguments, read as spaCR read it (negative kept)."""
    if isinstance(value, str):
        return byte_size(value, name)
    return upstream_int(value, name)


def unread_reserve(reserve_bytes: Any) -> Any:
    """spaCR read reserve_bytes only with a measurement: without one, a bad number is the default."""
    if reserve_bytes is None or isinstance(reserve_bytes, str):
        return reserve_bytes
    try:
        upstream_byte_count(reserve_bytes, "reserve_bytes")
    except (TypeError, ValueError):
        return None
    return reserve_bytes


def numpy_bool(value: Any) -> bool:
    """numpy's bool, which is no numbers.Real."""
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_", "bool8")


def upstream_maximum(value: Any) -> int:
    """spaCR compared maximum with min(): a number is taken, anything else refused."""
    if not isinstance(value, numbers.Real) and not numpy_bool(value):
        raise SpacrbenchTypeError(f"maximum must be a number, not {type(value).__name__}")
    if isinstance(value, numbers.Real) and math.isinf(float(value)):
        return INT64_MAX if float(value) > 0 else -INT64_MAX
    return upstream_int(value, "maximum")


def as_measurement(obj: Any, name: str = "measurement") -> Measurement:
    """A spacrbench Measurement for obj (itself, or one from spaCR's attributes)."""
    if isinstance(obj, Measurement):
        return obj
    from ._convert import spacr_measurement_fields

    return Measurement(**spacr_measurement_fields(obj, name))


def optional_measurement(obj: Any) -> Optional[Measurement]:
    return None if obj is None else as_measurement(obj)


def as_recommendation(obj: Any) -> Optional[Recommendation]:
    """A spacrbench Recommendation for obj (itself, None, or one from spaCR's attributes)."""
    if obj is None or isinstance(obj, Recommendation):
        return obj
    missing = [f for f in ("workers", "reason") if not hasattr(obj, f)]
    if missing:
        raise SpacrbenchTypeError(f"recommendation must be a Recommendation (or have spaCR's "
                                  f"Recommendation attributes); {type(obj).__name__} lacks "
                                  f"{', '.join(missing)}")
    fields = {"workers": obj.workers, "reason": str(obj.reason),
              "cores": getattr(obj, "cores", 0),
              "available_bytes": max(0, upstream_int(getattr(obj, "available_bytes", 0),
                                                     "available_bytes"))}
    return Recommendation(**fields)
