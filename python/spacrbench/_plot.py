"""Measurement.plot(): matplotlib is imported here, on first use only."""

from __future__ import annotations

import importlib
import math
import os
import textwrap
from typing import TYPE_CHECKING, Any, List, Optional, Tuple

from ._errors import SpacrbenchValueError
from ._types import PLOT_INSTALL, counted

if TYPE_CHECKING:
    from ._results import Measurement, Recommendation
    from ._types import ItemRecord
    from ._timeline import Timeline

_MIB = 2**20
#: Neighbouring items' shading on the timeline: two colours a reader tells
#: apart at a glance (pale blue, pale sand); the warm-up is grey.
_SHADES = ("#c6dbef", "#f6e3b4")
#: Characters a title line may hold: a panel as wide as the figure (9 in at
#: the decision's 13 pt title).
FULL_WIDTH = 72


def wrapped(text: str, width: int) -> str:
    """text in lines of at most width characters."""
    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False)) or text


def peak_words(m: "Measurement") -> str:
    """How m's peak was obtained, in the report's words."""
    from ._binding import c_text, lib
    from ._convert import c_measurement

    with c_measurement(m) as cm:
        return c_text(lib.spacrbench_measurement_peak_words(cm))


def _size(n: float) -> str:
    """A byte count as a reader says it: "354 MiB", "1.5 GiB"."""
    for unit, scale in (("GiB", 2**30), ("MiB", _MIB), ("KiB", 2**10)):
        if abs(n) >= scale:
            value = n / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{n:.0f} B"


def decision_words(rec: "Recommendation") -> str:
    """The recommendation as a title: "2 workers (core-bound; memory allows 59)"."""
    bound = {"memory": "memory-bound", "cores": "core-bound", "vram": "VRAM-bound",
             "maximum": f"capped at the {rec.maximum}-worker maximum",
             "fallback": "cores only: no memory figure",
             "one": "one worker needs more than the budget"}.get(rec.bound, "")
    if str(rec.reason).startswith("measured:"):
        bound = "the scaling check's knee"
    if rec.memory_workers is not None and rec.bound not in ("memory", "one"):
        bound += f"; memory allows {rec.memory_workers}"
    return counted(rec.workers, "worker") + (f" ({bound})" if bound else "")


def _keys(m: "Measurement") -> Tuple[List[float], str, bool]:
    """Each record's key, what it is, and whether it counts bytes."""
    plate = m.plate
    if plate is not None and plate.prediction.key != "none" and \
            len(plate.sample) == len(m.records) and all(p.key is not None for p in plate.sample):
        return ([float(p.key or 0) for p in plate.sample], plate.prediction.key_name,
                plate.prediction.key == "bytes")
    from ._convert import file_size

    sizes = [file_size(r.item) for r in m.records]
    if all(s is not None for s in sizes) and len(set(sizes)) > 1:
        return [float(s or 0) for s in sizes], "file size", True
    order = "item, in the order measured"
    if sizes and all(s is not None for s in sizes):  # one size: it tells them apart no more
        order += f" (every file {_size(sizes[0] or 0)})"
    return [float(r.index + 1) for r in m.records], order, False


def _label(record: "ItemRecord") -> str:
    """The item's file name (shortened), "(warm-up)" after a warm-up's."""
    if not record.item:
        return ""
    name = os.path.basename(record.item) or record.item
    name = name if len(name) <= 24 else name[:21] + "..."
    return name + (" (warm-up)" if record.is_warmup else "")


def _size_ticks(axis: Any, top: float, log: bool = False) -> None:
    """Ticks a reader says as sizes (16 MiB, 64 MiB, 1 GiB)."""
    ticker = importlib.import_module("matplotlib.ticker")
    if log:
        axis.set_major_locator(ticker.LogLocator(base=4))
        axis.set_minor_locator(ticker.NullLocator())
    else:
        unit = next((u for u in (2**30, _MIB, 2**10) if top >= 2 * u), 1)
        step = top / unit / 5
        power = 10 ** math.floor(math.log10(step)) if step > 0 else 1
        nice = next(n for n in (1, 2, 5, 10) if n * power >= step)
        axis.set_major_locator(ticker.MultipleLocator(nice * power * unit))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: _size(v) if v > 0 else "0"))


def draw_decision(axes: Any, m: "Measurement", rec: "Recommendation") -> None:
    """Each item's need against its key, the memory per worker as a line, the recommendation as title."""
    keys, key_name, key_bytes = _keys(m)
    need = [(k, max(0, r.peak_rss_bytes - m.baseline_rss_bytes) + rec.baseline_bytes, r)
            for k, r in zip(keys, m.records) if r.peak_rss_bytes is not None]
    for warm in (False, True):
        shown = [(k, n) for k, n, r in need if r.is_warmup == warm]
        if shown:
            axes.plot([k for k, _ in shown], [n for _, n in shown], "o", linestyle="none",
                      color="0.6" if warm else "C0", markersize=7,
                      label="warm-up item (its memory counts too)" if warm
                      else "one worker's need per item (what the advice divides by)")
    largest = sorted(need, key=lambda x: -x[1])[:12]  # named: the largest, where many
    for rank, (k, n, r) in enumerate(sorted(largest, key=lambda x: x[0])):
        if _label(r):  # neighbours above and below, so close names do not overlap
            axes.annotate(_label(r), (k, n), xytext=(6, 5 if rank % 2 == 0 else -11),
                          textcoords="offset points", fontsize=8)
    plate = m.plate.prediction if m.plate is not None else None
    if plate is not None and plate.largest_bytes is not None and \
            plate.largest_key is not None and plate.key != "none":
        axes.plot([plate.largest_key], [plate.largest_bytes + rec.baseline_bytes], "D",
                  markerfacecolor="none", color="C3", markersize=8, linestyle="none",
                  label="the plate's largest item, predicted")
    budget = (None if rec.available_bytes <= 0 or rec.bound == "fallback"  # unknown
              else max(0, rec.available_bytes - rec.reserve_bytes) / max(1, rec.workers))
    highest = max([n for _, n, _ in need] + [rec.per_worker_bytes or 0, 1])
    log = budget is not None and budget > 8 * highest  # far above the points: both shown
    if budget is not None:
        axes.axhline(budget, color="C3", linewidth=1.5)
        axes.annotate(f"memory per worker: ({_size(rec.available_bytes)} available - "
                      f"{_size(rec.reserve_bytes)} reserve) / {counted(rec.workers, 'worker')}"
                      f" = {_size(budget)}", (0.01, budget), xycoords=("axes fraction", "data"),
                      xytext=(0, 4), textcoords="offset points", fontsize=8, color="C3")
    top = max(highest, budget or 0)
    if log:
        axes.set_yscale("log", base=2)
        axes.set_ylim(bottom=min(n for _, n, _ in need) / 2 if need else 1, top=top * 2)
    else:
        axes.set_ylim(bottom=0, top=1.15 * top)
    _size_ticks(axes.yaxis, top, log)
    if key_bytes:
        _size_ticks(axes.xaxis, max(keys))
    else:
        ticker = importlib.import_module("matplotlib.ticker")
        axes.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    axes.margins(x=0.12)
    axes.set_xlabel(key_name)
    axes.set_ylabel("memory one worker needs")
    axes.set_title(wrapped(decision_words(rec), FULL_WIDTH), fontsize=13)
    axes.legend(fontsize=8, loc="best")


def plot_measurement(m: "Measurement", path: Optional[str],
                     recommendation: "Recommendation") -> Any:
    """The decision; below it, when the measurement has one, the timeline."""
    if not m.records:
        raise SpacrbenchValueError("Measurement.plot(): the measurement has no per-item records "
                                   "(benchmark() keeps them; a hand-made one may not)")
    timeline = getattr(m, "timeline", None)
    try:
        figure_class = importlib.import_module("matplotlib.figure").Figure
    except ImportError as exc:
        raise ImportError(f"Measurement.plot() needs matplotlib:\n  {PLOT_INSTALL}") from exc
    figure = figure_class(figsize=(9, 8 if timeline is not None else 4.2))
    if timeline is not None:
        decision, over_time = figure.subplots(2, 1)
        draw_timeline(over_time, timeline, m.baseline_rss_bytes,
                      m.peak_method == "cgroup" or any(r.cgroup_charge_bytes is not None
                                                       for r in m.records),
                      peak_words(m), tree=m.peak_method in ("cgroup", "child_rusage"))
    else:
        decision = figure.subplots(1, 1)
    draw_decision(decision, m, recommendation)
    figure.tight_layout()
    if path is not None:
        figure.savefig(path)
    return figure


def draw_timeline(axes: Any, timeline: "Timeline", baseline_rss_bytes: int,
                  charged: bool = False, words: str = "", tree: bool = False) -> None:
    """Sampled RSS against time, items shaded and peaks marked; CPU % on a second axis where known."""
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
    axes.set_title("memory over time")
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
