"""The timeline between Python and the library: read from a C measurement
(the 1.2 accessors) and written into one (the builders), so that to_dict(),
the exports and the report see a hand-made or replaced timeline too."""

from __future__ import annotations

import math
from typing import Any, Optional

from ._binding import NOT_MEASURED, check, lib, new_struct
from ._errors import SpacrbenchTypeError
from ._timeline import Timeline, TimelineItem, TimelinePoint


def _opt(value: int) -> Optional[int]:
    return None if value == NOT_MEASURED else int(value)


def _sentinel(value: Optional[int]) -> int:
    return NOT_MEASURED if value is None else int(value)


def timeline_from_c(cm: Any) -> Optional[Timeline]:
    """The C measurement's timeline, or None when it has none."""
    n = int(lib.spacrbench_measurement_timeline_count(cm))
    items = int(lib.spacrbench_measurement_timeline_item_count(cm))
    info = new_struct("spacrbench_timeline_info")
    if lib.spacrbench_measurement_timeline_info(cm, info) != 0:
        return None
    p = new_struct("spacrbench_timeline_point")
    points = []
    for i in range(n):
        check(lib.spacrbench_measurement_timeline_point(cm, i, p),
              "spacrbench_measurement_timeline_point")
        cpu = float(lib.spacrbench_measurement_timeline_point_cpu(cm, i))
        points.append(TimelinePoint(float(p.seconds), _opt(p.rss_bytes), _opt(p.cgroup_bytes),
                                    None if math.isnan(cpu) else cpu))
    it = new_struct("spacrbench_timeline_item")
    marks = []
    for i in range(items):
        check(lib.spacrbench_measurement_timeline_item(cm, i, it),
              "spacrbench_measurement_timeline_item")
        marks.append(TimelineItem(int(it.index), float(it.start_seconds), float(it.end_seconds),
                                  _opt(it.peak_rss_bytes), float(it.peak_seconds),
                                  bool(it.is_warmup)))
    return Timeline(points=tuple(points), items=tuple(marks), interval_us=int(info.interval_us),
                    samples=int(info.samples), stride=int(info.stride),
                    max_points=int(info.max_points))


def timeline_to_c(cm: Any, tl: Any) -> None:
    """Copy a Timeline into a C measurement (TypeError/ValueError naming the
    field for what the library refuses)."""
    if not isinstance(tl, Timeline):
        raise SpacrbenchTypeError(f"timeline must be a Timeline or None, not {type(tl).__name__}")
    info = new_struct("spacrbench_timeline_info")
    info.interval_us, info.samples, info.stride = tl.interval_us, tl.samples, tl.stride
    check(lib.spacrbench_measurement_timeline_begin(cm, info), "timeline")
    p = new_struct("spacrbench_timeline_point")
    for i, point in enumerate(tl.points):
        p.seconds = point.seconds
        p.rss_bytes = _sentinel(point.rss_bytes)
        p.cgroup_bytes = _sentinel(point.cgroup_bytes)
        cpu = math.nan if point.cpu_seconds is None else float(point.cpu_seconds)
        check(lib.spacrbench_measurement_timeline_add_point_cpu(cm, p, cpu),
              f"timeline.points[{i}]")
    it = new_struct("spacrbench_timeline_item")
    for i, item in enumerate(tl.items):
        it.index = item.index
        it.is_warmup = 1 if item.is_warmup else 0
        it.start_seconds, it.end_seconds = item.start_seconds, item.end_seconds
        it.peak_rss_bytes = _sentinel(item.peak_rss_bytes)
        it.peak_seconds = item.peak_seconds if math.isfinite(item.peak_seconds) else math.nan
        check(lib.spacrbench_measurement_timeline_add_item(cm, it), f"timeline.items[{i}]")
