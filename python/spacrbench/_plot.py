"""Measurement.plot(): matplotlib is imported here, on first use only (an
optional extra, never imported by `import spacrbench`)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Optional

from ._errors import SpacrbenchValueError

if TYPE_CHECKING:
    from ._results import Measurement

_MIB = 2**20


def _figure_class() -> Any:
    try:
        return importlib.import_module("matplotlib.figure").Figure
    except ImportError as exc:
        raise ImportError("Measurement.plot() needs matplotlib: "
                          "pip install spacrbench[plot]") from exc


def plot_measurement(m: "Measurement", path: Optional[str] = None) -> Any:
    """Per-item seconds and peak RSS against the item number."""
    if not m.records:
        raise SpacrbenchValueError("Measurement.plot(): the measurement has no per-item records "
                                   "(benchmark() keeps them; a hand-made one may not)")
    figure = _figure_class()(figsize=(9, 3.6))
    times, peaks = figure.subplots(1, 2)
    numbers = [r.index + 1 for r in m.records]
    colours = ["0.6" if r.is_warmup else "C0" for r in m.records]
    times.bar(numbers, [r.seconds for r in m.records], color=colours)
    times.set_xlabel("item (grey: warm-up)")
    times.set_ylabel("seconds")
    times.set_title("wall time per item")
    measured = [r for r in m.records if r.peak_rss_bytes is not None]
    peaks.plot([r.index + 1 for r in measured], [(r.peak_rss_bytes or 0) / _MIB for r in measured],
               "o-", color="C1", label="peak RSS")
    peaks.axhline(m.baseline_rss_bytes / _MIB, color="0.5", linestyle=":", label="baseline")
    peaks.set_xlabel("item")
    peaks.set_ylabel("MiB")
    peaks.set_title(f"peak RSS per item ({m.peak_method})")
    peaks.legend()
    locator = importlib.import_module("matplotlib.ticker").MaxNLocator
    for axes in (times, peaks):  # item numbers are whole: no tick at 1.5
        axes.xaxis.set_major_locator(locator(integer=True))
    figure.suptitle(f"{m.items} item(s) measured, footprint {m.work_rss_bytes / _MIB:.1f} MiB",
                    fontsize=9)
    figure.tight_layout()
    if path is not None:
        figure.savefig(path)
    return figure
