"""Draw a plot for the command: ``spacrbench run --scale ... --plot FILE``
and the serial runs' ``--plot FILE``.

``python -m spacrbench._plot_cli DOC.json FILE.png|FILE.svg`` reads the
library's scaling JSON (spacrbench_scale_to_json) and saves
ScaleResult.plot()'s figure, or the command's --json document of a serial
run and saves Measurement.plot()'s (per item, and the memory timeline when
the document has one). Exit 3 when matplotlib is missing, 2 on bad
arguments.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from typing import Any, Dict, List, Optional

from ._extras import PLOT_INSTALL
from ._scale import ScalePoint, ScaleResult
from ._timeline import timeline_from_dict
from ._results import Measurement
from ._types import ItemRecord

MISSING_MATPLOTLIB = f"spacrbench: --plot needs matplotlib:\n  {PLOT_INSTALL}"


def result_from_json(doc: Dict[str, Any], text: str) -> ScaleResult:
    """The ScaleResult the JSON describes (the knee as the library chose it)."""
    names = [f.name for f in dataclasses.fields(ScalePoint)]
    points = tuple(ScalePoint(**{n: p.get(n) for n in names}) for p in doc["scaling"])
    return ScaleResult(points=points, chosen_workers=doc.get("scaling_workers"),
                       best_workers=doc.get("scaling_best_workers"),
                       reason=doc.get("scaling_reason") or "",
                       verdict=doc.get("scaling_verdict") or "none",
                       notes=tuple(doc.get("scaling_notes") or ()),
                       peak_method=doc.get("scaling_peak_method") or "none",
                       memory_budget_bytes=doc.get("scaling_budget_bytes"),
                       table="", json_text=text)


def measurement_from_json(doc: Dict[str, Any]) -> Measurement:
    """The Measurement a --json document's "measurement" member describes
    (what Measurement.plot() draws: records, baseline, timeline)."""
    d = doc["measurement"]
    records = tuple(ItemRecord(r["index"], r["seconds"], r.get("peak_rss_bytes"),
                               r.get("peak_vram_bytes"), bool(r.get("is_warmup")), r.get("item"))
                    for r in d.get("records", ()))
    return Measurement(items=d["items"], seconds=d["seconds"],
                       peak_rss_bytes=d.get("peak_rss_bytes") or 0,
                       baseline_rss_bytes=d.get("baseline_rss_bytes") or 0, records=records,
                       peak_method=d.get("peak_method") or "none",
                       timeline=timeline_from_dict(d.get("timeline")))


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
    doc = json.loads(text)
    if "scaling" in doc and "measurement" not in doc:
        result_from_json(doc, text).plot(args[1])
    else:
        measurement_from_json(doc).plot(args[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
