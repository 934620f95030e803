"""The command's ``--plot FILE``: the figure of a scaling or run JSON (exit 3 without matplotlib, 2 on bad input)."""

from __future__ import annotations

import importlib.util
import json
import sys
from typing import Any, Dict, List, Optional

from ._binding import check, ffi, lib, new_struct
from ._errors import SpacrbenchError
from ._types import PLOT_INSTALL
from ._measurement_dict import json_text, measurement_from
from ._results import Measurement, Recommendation
from ._scale_result import ScaleResult, result_from_c

MISSING_MATPLOTLIB = f"spacrbench: --plot needs matplotlib:\n  {PLOT_INSTALL}"


def result_from_json(doc: Any, text: Optional[str] = None) -> ScaleResult:
    """The ScaleResult the JSON describes."""
    data = text.encode("utf-8") if text is not None else json_text(doc, "data")
    out = ffi.new("spacrbench_scale_result **")
    check(lib.spacrbench_scale_from_json(data, len(data), b"data", out), "--plot")
    return result_from_c(out[0])  # it frees it with the result


def measurement_from_json(doc: Dict[str, Any]) -> Measurement:
    """The Measurement of a --json document's "measurement" member."""
    return measurement_from(Measurement, json_text(doc, "data"), "data",
                            lib.SPACRBENCH_READ_STOPPED, "--plot")


def recommendation_from_json(doc: Dict[str, Any], m: Measurement) -> Optional[Recommendation]:
    """The run's recommendation as the document gives it, or None."""
    from ._convert import recommendation_fields

    out = new_struct("spacrbench_recommendation")
    data = json_text(doc, "data")
    if check(lib.spacrbench_recommendation_from_json(data, len(data), b"data", out), "--plot"):
        return Recommendation(measurement=m, **recommendation_fields(out))
    return None


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m spacrbench._plot_cli SCALING.json FILE.png|FILE.svg",
              file=sys.stderr)
        return 2
    if importlib.util.find_spec("matplotlib") is None:
        print(MISSING_MATPLOTLIB, file=sys.stderr)
        return 3
    with open(args[0], encoding="utf-8") as f:
        text = f.read()
    doc = json.loads(text)  # which document it is; the library reads it
    try:
        if "scaling" in doc and "measurement" not in doc:
            result_from_json(None, text).plot(args[1])
        else:
            m = measurement_from(Measurement, text.encode("utf-8"), "data",
                                 lib.SPACRBENCH_READ_STOPPED, "--plot")
            m.plot(args[1], recommendation_from_json(doc, m))
    except SpacrbenchError as exc:
        print(f"spacrbench: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
