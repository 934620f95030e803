"""Measurement.plot(): matplotlib is imported here, on first use only (an
optional extra, never imported by `import spacrbench`)."""

from __future__ import annotations

import importlib
import textwrap
from typing import TYPE_CHECKING, Any, Optional

from ._errors import SpacrbenchValueError
from ._extras import PLOT_INSTALL
from ._words import counted

if TYPE_CHECKING:
    from ._results import Measurement
    from ._timeline import Timeline

_MIB = 2**20
#: Characters a title line may hold: one of the two panels side by side,
#: and a panel as wide as the figure (9 in at matplotlib's 12 pt title).
HALF_WIDTH, FULL_WIDTH = 38, 78


def wrapped(text: str, width: int) -> str:
    """text in lines of at most width characters, so a title is never cut
    off at the figure's edge."""
    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False)) or text


def peak_words(m: "Measurement") -> str:
    """How m's peak was obtained, in the report's words (the library's:
    "exact, kernel high-water mark", never the name "hwm_reset")."""
    from ._binding import c_text, lib
    from ._convert import c_measurement

    with c_measurement(m) as cm:
        return c_text(lib.spacrbench_measurement_peak_words(cm))


def _figure_class() -> Any:
    try:
        return importlib.import_module("matplotlib.figure").Figure
    except ImportError as exc:
        raise ImportError(f"Measurement.plot() needs matplotlib:\n  {PLOT_INSTALL}") from exc


def plot_measurement(m: "Measurement", path: Optional[str] = None) -> Any:
    """Per-item seconds and peak RSS against the item number; below them,
    when the measurement has one, the memory timeline."""
    if not m.records:
        raise SpacrbenchValueError("Measurement.plot(): the measurement has no per-item records "
                                   "(benchmark() keeps them; a hand-made one may not)")
    timeline = getattr(m, "timeline", None)
    figure = _figure_class()(figsize=(9, 7.2 if timeline is not None else 3.6))
    if timeline is not None:
        grid = figure.add_gridspec(2, 2)
        times, peaks = figure.add_subplot(grid[0, 0]), figure.add_subplot(grid[0, 1])
        draw_timeline(figure.add_subplot(grid[1, :]), timeline, m.baseline_rss_bytes)
    else:
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
    peaks.set_title(f"peak RSS per item\n{wrapped(f'({peak_words(m)})', HALF_WIDTH)}")
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


def draw_timeline(axes: Any, timeline: "Timeline", baseline_rss_bytes: int) -> None:
    """Sampled RSS against time, items shaded (grey: warm-up), each item's
    exact peak marked where the highest sample inside it was seen."""
    for n, item in enumerate(timeline.items):
        colour = "0.85" if item.is_warmup else ("C0" if n % 2 == 0 else "C9")
        axes.axvspan(item.start_seconds, item.end_seconds, color=colour,
                     alpha=0.6 if item.is_warmup else 0.12, linewidth=0)
    sampled = [p for p in timeline.points if p.rss_bytes is not None]
    axes.plot([p.seconds for p in sampled], [(p.rss_bytes or 0) / _MIB for p in sampled],
              "-", color="C0", linewidth=1, label="RSS (sampled)")
    cgroup = [p for p in timeline.points if p.cgroup_bytes is not None]
    if cgroup:
        axes.plot([p.seconds for p in cgroup], [(p.cgroup_bytes or 0) / _MIB for p in cgroup],
                  "-", color="C2", linewidth=1, label="item cgroup usage")
    marked = [i for i in timeline.items if i.peak_rss_bytes is not None]
    axes.plot([i.peak_seconds for i in marked], [(i.peak_rss_bytes or 0) / _MIB for i in marked],
              "v", color="C3", label="item peak (exact)")
    axes.axhline(baseline_rss_bytes / _MIB, color="0.5", linestyle=":", label="baseline")
    axes.set_xlabel("seconds since the run began (shaded: items; grey: warm-up)")
    axes.set_ylabel("MiB")
    title = (f"memory over time: {counted(timeline.samples, 'sample')} every "
             f"{timeline.interval_us / 1000:g} ms")
    if timeline.downsampled:  # its own line: one line was cut off at the right edge
        title += (f"\ndownsampled to {counted(len(timeline.points), 'point')}, each the "
                  f"highest of {timeline.stride} samples")
    axes.set_title("\n".join(wrapped(line, FULL_WIDTH) for line in title.split("\n")))
    axes.legend(loc="upper left", fontsize=8)
