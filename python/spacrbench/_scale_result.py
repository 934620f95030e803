"""ScalePoint and ScaleResult, read from the library's scaling result."""

from __future__ import annotations

import dataclasses
import importlib
import json
from typing import Any, Dict, List, Optional, Tuple

from ._binding import c_text, check, ffi, format_text, lib, new_struct
from ._convert import PEAK_METHODS, format_bytes, from_struct
from ._results import _cut
from ._types import PLOT_INSTALL, counted


@dataclasses.dataclass(frozen=True)
class ScalePoint:
    workers: int
    items: int
    seconds: float
    items_per_second: Optional[float]
    speedup: Optional[float]
    efficiency: Optional[float]
    mean_item_seconds: Optional[float]
    peak_bytes: Optional[int]
    peak_method: str
    fits: Optional[bool]
    failed: bool
    #: The workers' GPU memory together (NVML); None when not measured.
    vram_peak_bytes: Optional[int] = None
    #: Timed repeats, and their spread: (max - min) / (2 * mean) of items/s.
    repeats: int = 0
    spread: Optional[float] = None
    items_per_second_min: Optional[float] = None
    items_per_second_max: Optional[float] = None
    #: Untimed items per worker before the repeats; None unknown.
    warmup_items: Optional[int] = None
    #: The point's memory ended it: the kernel's OOM killer in its group at
    #: its limit (the budget), at a limit outside it, or spacrbench at the
    #: budget where no cgroup could hold a limit (the notes say which).
    oom_killed: bool = False


@dataclasses.dataclass(frozen=True, repr=False)
class ScaleResult:
    points: Tuple[ScalePoint, ...]
    chosen_workers: Optional[int]
    best_workers: Optional[int]
    reason: str
    verdict: str
    notes: Tuple[str, ...]
    peak_method: str
    memory_budget_bytes: Optional[int]
    table: str = dataclasses.field(repr=False)
    json_text: str = dataclasses.field(repr=False)
    #: The library's result (recommend_workers(scaling=...) reads it).
    _c: Any = dataclasses.field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        """The decision only; to_dict(), .points and str() have everything."""
        counts = [p.workers for p in self.points]
        span = (f"{min(counts)}-{max(counts)} workers" if len(set(counts)) > 1
                else counted(counts[0], "worker") if counts else "none")
        return (f"ScaleResult(chosen_workers={self.chosen_workers!r}, verdict={self.verdict!r}, "
                f"{len(self.points)} point(s): {span}, reason={_cut(self.reason, 48)!r})")

    def __str__(self) -> str:
        return self.table

    def to_dict(self) -> Dict[str, Any]:
        """The library's JSON: {"scaling": [...], "scaling_workers": N, ...}."""
        result: Dict[str, Any] = json.loads(self.json_text)
        return result

    def plot(self, path: Optional[str] = None) -> Any:
        """Throughput and group peak against workers, the knee marked; needs
        matplotlib. Returns the Figure, also saved to path when given."""
        try:
            Figure = importlib.import_module("matplotlib.figure").Figure
        except ImportError as exc:
            raise ImportError(
                f"ScaleResult.plot() needs matplotlib:\n  {PLOT_INSTALL}") from exc
        ok = [p for p in self.points if p.items_per_second is not None]
        fig = Figure(figsize=(9, 3.8))
        ax, mem = fig.subplots(1, 2)
        ks = [p.workers for p in ok]
        ax.plot(ks, [p.items_per_second for p in ok], "o-", label="measured")
        spread = [p for p in ok if p.repeats > 1 and p.items_per_second_min is not None
                  and p.items_per_second_max is not None]
        if spread:  # the repeats' range, as the table's spread column
            ax.errorbar([p.workers for p in spread], [p.items_per_second for p in spread],
                        yerr=[[(p.items_per_second or 0) - (p.items_per_second_min or 0)
                               for p in spread],
                              [(p.items_per_second_max or 0) - (p.items_per_second or 0)
                               for p in spread]],
                        fmt="none", ecolor="C0", capsize=4, label="repeats: slowest to fastest")
        one = next((p for p in ok if p.workers == 1), None)
        if one is not None and one.items_per_second is not None:
            base = one.items_per_second
            ax.plot(ks, [base * k for k in ks], ":", color="grey", label="linear")
        for p in ok:
            if p.workers == self.chosen_workers:
                ax.plot([p.workers], [p.items_per_second], "*", markersize=16, color="C3",
                        label=f"knee: {p.workers}")
        ax.set_xlabel("workers")
        ax.set_ylabel("items/s")
        ax.set_title("throughput")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8, loc="best")
        measured = [p for p in self.points if p.peak_bytes is not None]
        mem.plot([p.workers for p in measured],
                 [(p.peak_bytes or 0) / 2**20 for p in measured], "s-", color="C1")
        budget = self.memory_budget_bytes
        highest = max((p.peak_bytes or 0 for p in measured), default=0)
        title = f"group peak ({self.peak_method})"
        # The budget as the table writes it (the library's sizes).
        words = None if budget is None else f"budget {format_bytes(budget)}"
        if words and highest > 0 and budget is not None and \
                budget > _BUDGET_ON_SCALE * highest:
            # A line far above the peaks would flatten them: named under
            # the title, where no marker can sit under it, not drawn.
            title += f"\n{words} (above the scale)"
        elif words and budget is not None:
            mem.axhline(budget / 2**20, color="C3", linestyle="--", label=words)
            mem.legend(fontsize=8, loc="best")
        mem.set_xlabel("workers")
        mem.set_ylabel("MiB")
        mem.set_ylim(bottom=0)
        mem.set_title(title)
        locator = importlib.import_module("matplotlib.ticker").MaxNLocator
        for axes in (ax, mem):  # worker counts are whole: no tick at 1.5
            axes.xaxis.set_major_locator(locator(integer=True))
        from ._plot import wrapped

        fig.suptitle(wrapped(self.reason, 150), fontsize=8)  # whole, never cut off
        fig.tight_layout()
        if path is not None:
            fig.savefig(path)
        return fig


# The budget line is drawn when it is at most this many times the highest
# group peak; above it, it is named in the panel instead.
_BUDGET_ON_SCALE = 4


def result_from_c(r: Any) -> ScaleResult:
    """The ScaleResult of a spacrbench_scale_result * it keeps and frees."""
    r = ffi.gc(r, lib.spacrbench_scale_free)
    s = new_struct("spacrbench_scale_summary")
    check(lib.spacrbench_scale_summary_get(r, s), "scale")
    cp, csp = new_struct("spacrbench_scale_point"), new_struct("spacrbench_scale_spread")
    pts: List[ScalePoint] = []
    for i in range(int(s.point_count)):
        check(lib.spacrbench_scale_point_get(r, i, cp), "scale")
        check(lib.spacrbench_scale_spread_get(r, i, csp), "scale")
        pts.append(from_struct(ScalePoint, cp, csp, fits=None if cp.fits < 0 else bool(cp.fits),
                               peak_method=PEAK_METHODS.name(int(cp.peak_method))))
    return from_struct(
        ScaleResult, s, points=tuple(pts),
        verdict=c_text(lib.spacrbench_scale_verdict_name(s.verdict)),
        notes=tuple(c_text(lib.spacrbench_scale_note(r, i)) for i in range(int(s.note_count))),
        peak_method=PEAK_METHODS.name(int(s.peak_method)),
        table=format_text(lambda buf, cap: lib.spacrbench_format_scaling(r, buf, cap), "scale"),
        json_text=format_text(lambda buf, cap: lib.spacrbench_scale_to_json(r, buf, cap),
                              "scale"), _c=r)
