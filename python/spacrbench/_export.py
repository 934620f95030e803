"""Exports a user pastes: format_report(m, rec, format="markdown" | "csv").

The text is the library's (spacrbench_format_export, one C file per
format), so the command's --export-markdown/--export-csv and Python write
the same thing."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence

from ._binding import ffi, format_text, lib
from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._results import Measurement, Recommendation

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
    from ._convert import c_measurement, c_recommendation, c_string, record_labels

    cr = c_recommendation(rec)
    with c_measurement(m) as cm:  # the records checked first
        if item_labels is None:
            item_labels = record_labels(m)
        labels: List[Any] = [ffi.new("char[]", c_string(str(s), f"item_labels[{i}]"))
                             for i, s in enumerate(item_labels or ())]
        c_labels = ffi.new("char *[]", labels) if labels else ffi.NULL
        return format_text(lambda buf, cap: lib.spacrbench_format_export(
            cm, cr, code, c_labels, len(labels), buf, cap), f"format_report(format={format!r})")
