"""Exports a user pastes: format_report(m, rec, format="markdown" | "csv").

The text is the library's (spacrbench_format_export, one C file per
format), so the command's --export-markdown/--export-csv and Python write
the same thing."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ._binding import ffi, format_text, lib
from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._results import Measurement, Recommendation

FORMATS: Dict[str, int] = {"markdown": lib.SPACRBENCH_FORMAT_MARKDOWN,
                           "csv": lib.SPACRBENCH_FORMAT_CSV}


def export_text(m: Measurement, rec: Optional[Recommendation], format: Any,
                item_labels: Optional[Sequence[str]] = None) -> str:
    """m (and rec) in one of FORMATS; ValueError/TypeError naming format."""
    if not isinstance(format, str):
        raise SpacrbenchTypeError(f"format must be a str, not {type(format).__name__}")
    code = FORMATS.get(format.lower())
    if code is None:
        raise SpacrbenchValueError(f"format must be one of 'text', {', '.join(map(repr, FORMATS))}; "
                         f"got {format!r}")
    from ._convert import c_measurement, c_recommendation, c_string

    cr = c_recommendation(rec)
    labels: List[Any] = [ffi.new("char[]", c_string(str(s), f"item_labels[{i}]"))
                         for i, s in enumerate(item_labels or ())]
    c_labels = ffi.new("char *[]", labels) if labels else ffi.NULL
    with c_measurement(m) as cm:
        return format_text(lambda buf, cap: lib.spacrbench_format_export(
            cm, cr, code, c_labels, len(labels), buf, cap), f"format_report(format={format!r})")
