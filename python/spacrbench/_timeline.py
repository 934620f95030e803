"""Memory over time (Measurement.timeline): plain data around the kernel's exact peaks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from ._types import counted


@dataclass(frozen=True)
class TimelinePoint:
    """The highest RSS sampled in one point's span, at the time it was seen
    (seconds since the run began); cgroup_bytes and cpu_seconds (since the
    run began) are None when not sampled."""

    seconds: float
    rss_bytes: Optional[int]
    cgroup_bytes: Optional[int] = None
    cpu_seconds: Optional[float] = None


@dataclass(frozen=True)
class TimelineItem:
    """One item on the timeline: its boundaries, its exact peak and where it is marked."""

    index: int
    start_seconds: float
    end_seconds: float
    peak_rss_bytes: Optional[int]
    peak_seconds: float
    is_warmup: bool = False


@dataclass(frozen=True, repr=False)
class Timeline:
    """Sampled RSS against time across a run, with item boundaries and peaks."""

    points: Tuple[TimelinePoint, ...]
    items: Tuple[TimelineItem, ...]
    interval_us: int
    samples: int
    stride: int = 1
    max_points: int = 2000

    def __post_init__(self) -> None:
        for name in ("points", "items"):  # a list changed later would differ from C's
            if isinstance(getattr(self, name), list):
                object.__setattr__(self, name, tuple(getattr(self, name)))

    def __repr__(self) -> str:
        return (f"Timeline({counted(len(self.points), 'point')}, "
                f"{counted(len(self.items), 'item')}, "
                f"{counted(self.samples, 'sample')} every {self.interval_us / 1000:g} ms"
                f"{f', {self.stride} per point' if self.stride > 1 else ''})")

    def cpu_percent(self, span: float = 0.1) -> Tuple[Tuple[float, float], ...]:
        """CPU % of one core over spans of at least ``span`` seconds: ((seconds, percent), ...)."""
        out = []
        start: Optional[TimelinePoint] = None
        for p in self.points:
            if p.cpu_seconds is None:
                continue
            if start is None or start.cpu_seconds is None:
                start = p
            elif p.seconds - start.seconds >= span - 1e-9:
                used = max(0.0, p.cpu_seconds - start.cpu_seconds)
                out.append((p.seconds, 100.0 * used / (p.seconds - start.seconds)))
                start = p
        return tuple(out)

    def sample_gap_ms(self) -> Optional[float]:
        """The median time between two samples in ms; None below two points."""
        gaps = sorted(b.seconds - a.seconds for a, b in zip(self.points, self.points[1:])
                      if b.seconds > a.seconds)
        if not gaps:
            return None
        return 1000.0 * gaps[len(gaps) // 2] / max(1, self.stride)

    @property
    def downsampled(self) -> bool:
        """True when each point stands for more than one sample."""
        return self.stride > 1

    def to_dict(self) -> Dict[str, Any]:
        """The "timeline" member of the library's measurement JSON."""
        return {
            "interval_us": self.interval_us, "samples": self.samples, "stride": self.stride,
            "downsampled": self.downsampled, "max_points": self.max_points,
            "points": [{"seconds": p.seconds, "rss_bytes": p.rss_bytes,
                        "cgroup_bytes": p.cgroup_bytes, "cpu_seconds": p.cpu_seconds}
                       for p in self.points],
            "items": [{"index": i.index, "is_warmup": i.is_warmup,
                       "start_seconds": i.start_seconds, "end_seconds": i.end_seconds,
                       "peak_rss_bytes": i.peak_rss_bytes, "peak_seconds": i.peak_seconds}
                      for i in self.items],
        }

