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
#: Neighbouring items' shading on the timeline: two colours a reader tells
#: apart at a glance (pale blue, pale sand); the warm-up is grey.
_SHADES = ("#c6dbef", "#f6e3b4")
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


def _two_figures(m: "Measurement") -> bool:
    """Whether m's records hold both memory figures (``spacrbench run`` with
    a cgroup of its own): the cgroup's charge and the tree's RSS peak."""
    return any(r.cgroup_charge_bytes is not None for r in m.records) and \
        any(r.tree_rss_peak_bytes is not None for r in m.records)


def _draw_times(axes: Any, m: "Measurement") -> None:
    """Wall time per item; with runs, the mean and a bar from the shortest
    to the longest run."""
    numbers = [r.index + 1 for r in m.records]
    colours = ["0.6" if r.is_warmup else "C0" for r in m.records]
    means = [r.seconds for r in m.records]
    axes.bar(numbers, means, color=colours)
    runs = [(r.index + 1, r.seconds, [x.seconds for x in r.run_records])
            for r in m.records if r.run_records]
    if runs:
        axes.errorbar([n for n, _, _ in runs], [mean for _, mean, _ in runs],
                      yerr=[[mean - min(t) for _, mean, t in runs],
                            [max(t) - mean for _, mean, t in runs]],
                      fmt="none", ecolor="0.2", capsize=3, label="shortest to longest run")
        axes.legend(fontsize=8)
    warm = any(r.is_warmup for r in m.records)
    axes.set_xlabel("item (grey: warm-up)" if warm else "item")
    axes.set_ylabel("seconds")
    most = max((len(r.run_records) for r in m.records), default=0)
    axes.set_title(f"wall time per item\n{wrapped(f'(the mean of {most} runs)', HALF_WIDTH)}"
                   if most else "wall time per item")


def _draw_peaks(axes: Any, m: "Measurement") -> None:
    """The peak memory per item, each figure named for what it is: the
    peak RSS (the runner's high-water mark; with ``spacrbench run``, the
    process tree's, as GNU time reports it) and, where measured, the memory
    the kernel charged the item's cgroup (what the advice divides by)."""
    def line(records: Any, values: Any, style: str, colour: str, label: str) -> None:
        axes.plot([r.index + 1 for r in records], [v / _MIB for v in values], style,
                  color=colour, label=label)

    if _two_figures(m):
        rss = [r for r in m.records if r.tree_rss_peak_bytes is not None]
        line(rss, [r.tree_rss_peak_bytes for r in rss], "o-", "C1",
             "peak RSS of the process tree (GNU time's figure)")
        charged = [r for r in m.records if r.cgroup_charge_bytes is not None]
        line(charged, [r.cgroup_charge_bytes for r in charged], "s--", "C2",
             "memory charged to its cgroup (exact; the advice's)")
        axes.set_title(f"peak RSS and memory charged per item\n"
                       f"{wrapped('(the advice divides by the charge)', HALF_WIDTH)}")
    else:
        measured = [r for r in m.records if r.peak_rss_bytes is not None]
        line(measured, [r.peak_rss_bytes or 0 for r in measured], "o-", "C1", "peak RSS")
        axes.set_title(f"peak RSS per item\n{wrapped(f'({peak_words(m)})', HALF_WIDTH)}")
    axes.axhline(m.baseline_rss_bytes / _MIB, color="0.5", linestyle=":", label="baseline")
    axes.set_xlabel("item")
    axes.set_ylabel("MiB")
    axes.legend(fontsize=8)


def plot_measurement(m: "Measurement", path: Optional[str] = None) -> Any:
    """Per-item seconds and peak memory against the item number; below them,
    when the measurement has one, the memory (and CPU) timeline."""
    if not m.records:
        raise SpacrbenchValueError("Measurement.plot(): the measurement has no per-item records "
                                   "(benchmark() keeps them; a hand-made one may not)")
    timeline = getattr(m, "timeline", None)
    figure = _figure_class()(figsize=(9, 8 if timeline is not None else 3.6))
    if timeline is not None:
        grid = figure.add_gridspec(2, 2)
        times, peaks = figure.add_subplot(grid[0, 0]), figure.add_subplot(grid[0, 1])
        draw_timeline(figure.add_subplot(grid[1, :]), timeline, m.baseline_rss_bytes,
                      _two_figures(m) or m.peak_method == "cgroup", peak_words(m),
                      tree=m.peak_method in ("cgroup", "child_rusage"))
    else:
        times, peaks = figure.subplots(1, 2)
    _draw_times(times, m)
    _draw_peaks(peaks, m)
    locator = importlib.import_module("matplotlib.ticker").MaxNLocator
    for axes in (times, peaks):  # item numbers are whole: no tick at 1.5
        axes.xaxis.set_major_locator(locator(integer=True))
    figure.suptitle(f"{m.items} item(s) measured, footprint {m.work_rss_bytes / _MIB:.1f} MiB",
                    fontsize=9)
    figure.tight_layout()
    if path is not None:
        figure.savefig(path)
    return figure


def draw_timeline(axes: Any, timeline: "Timeline", baseline_rss_bytes: int,
                  charged: bool = False, words: str = "", tree: bool = False) -> None:
    """Sampled RSS against time, items shaded (grey: warm-up), each item's
    peak marked where the highest sample inside it was seen; with
    ``spacrbench run`` (tree: the RSS is its process tree's) the item
    cgroup's usage too (charged: the marks are the charge), and, where the
    points carry it, CPU % of one core on a second axis, as psrecord draws
    it."""
    measured = 0
    for item in timeline.items:  # neighbours told apart: blue, then sand
        colour = "0.85" if item.is_warmup else _SHADES[measured % 2]
        measured += 0 if item.is_warmup else 1
        axes.axvspan(item.start_seconds, item.end_seconds, color=colour,
                     alpha=0.6 if item.is_warmup else 0.5, linewidth=0)
    sampled = [p for p in timeline.points if p.rss_bytes is not None]
    cgroup = [p for p in timeline.points if p.cgroup_bytes is not None]
    axes.plot([p.seconds for p in sampled], [(p.rss_bytes or 0) / _MIB for p in sampled],
              "-", color="C0", linewidth=1,
              label="RSS of the process tree (sampled)" if cgroup or charged or tree
              else "RSS (sampled)")
    if cgroup:
        axes.plot([p.seconds for p in cgroup], [(p.cgroup_bytes or 0) / _MIB for p in cgroup],
                  "-", color="C2", linewidth=1, label="memory charged to the item's cgroup "
                  "(sampled)")
    marked = [i for i in timeline.items if i.peak_rss_bytes is not None]
    axes.plot([i.peak_seconds for i in marked], [(i.peak_rss_bytes or 0) / _MIB for i in marked],
              "v", color="C3", label="item's peak charge (exact)" if charged
              else f"item's peak RSS ({words})" if words else "item's peak")
    axes.axhline(baseline_rss_bytes / _MIB, color="0.5", linestyle=":", label="baseline")
    warm = any(i.is_warmup for i in timeline.items)
    axes.set_xlabel("seconds since the run began (shaded: items" +
                    ("; grey: warm-up)" if warm else ")"))
    axes.set_ylabel("MiB")
    title = f"memory over time: {counted(timeline.samples, 'sample')}"
    gap, planned = timeline.sample_gap_ms(), timeline.interval_us / 1000
    if gap is None or abs(gap - planned) <= 0.2 * planned:
        title += f" every {planned:g} ms"
    else:  # stretched to keep the sampler within its CPU budget
        title += f" {gap:.2g} ms apart (median; {planned:g} ms planned)"
    if timeline.downsampled:  # its own line: one line was cut off at the right edge
        title += (f"\ndownsampled to {counted(len(timeline.points), 'point')}, each the "
                  f"highest of {timeline.stride} samples")
    axes.set_title("\n".join(wrapped(line, FULL_WIDTH) for line in title.split("\n")))
    handles, labels = axes.get_legend_handles_labels()
    cpu = timeline.cpu_percent()
    if cpu:
        right = axes.twinx()
        right.plot([t for t, _ in cpu], [c for _, c in cpu], "-.", color="C4", linewidth=1,
                   label="CPU % of one core, per 0.1 s (right axis)")
        right.set_ylabel("CPU %")
        right.set_ylim(bottom=0)
        more, names = right.get_legend_handles_labels()
        handles, labels = handles + more, labels + names
    # Below the panel: inside, it covered the first item's curve and peak.
    axes.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3,
                fontsize=8, frameon=False)
