"""Memory over time: benchmark(timeline=True) gives Measurement.timeline
(bounded points, item boundaries, each item's exact peak marked), the JSON
member round-trips through to_dict(), Measurement.plot() draws it (the PNG
read back), and the command's serial run draws it with --plot FILE."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import spacrbench
from spacrbench import Timeline, TimelineItem, TimelinePoint, _cli

PNG = b"\x89PNG\r\n\x1a\n"
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
MAX_POINTS = 2000


def _hold(mib: int) -> None:
    import time

    block = bytearray(mib * 2**20)  # zero-filled: every page touched
    time.sleep(0.05)  # long enough for several 10 ms samples
    del block


def _png_size(path: Path) -> "tuple[int, int]":
    data = path.read_bytes()
    assert data[:8] == PNG
    width, height = struct.unpack(">II", data[16:24])  # IHDR
    return width, height


def test_no_timeline_unless_asked() -> None:
    m = spacrbench.benchmark(_hold, [1, 2], warmup=0)
    assert m.timeline is None
    assert m.to_dict()["timeline"] is None


def test_items_are_marked_with_their_exact_peaks() -> None:
    m = spacrbench.benchmark(_hold, [8, 64, 8], warmup=1, timeline=True)
    tl = m.timeline
    assert isinstance(tl, Timeline)
    assert tl.interval_us == 10000 and tl.max_points == MAX_POINTS
    assert 0 < len(tl.points) <= MAX_POINTS
    assert not tl.downsampled and tl.stride == 1 and tl.samples == len(tl.points)
    points = "1 point" if len(tl.points) == 1 else f"{len(tl.points)} points"
    samples = "1 sample" if tl.samples == 1 else f"{tl.samples} samples"
    assert repr(tl) == (f"Timeline({points}, 3 items, {samples} "
                        f"every 10 ms)")  # short: the points stay out of repr(Measurement)
    seconds = [p.seconds for p in tl.points]
    assert seconds == sorted(seconds)
    assert len(tl.items) == len(m.records) == 3
    for item, record in zip(tl.items, m.records):
        assert item.index == record.index and item.is_warmup == record.is_warmup
        assert item.peak_rss_bytes == record.peak_rss_bytes  # the exact peak, not a sample
        assert item.start_seconds <= item.peak_seconds <= item.end_seconds
        assert item.end_seconds - item.start_seconds == pytest.approx(record.seconds, abs=1e-3)
    # The 64 MiB item shows in the picture.
    inside = [p.rss_bytes or 0 for p in tl.points
              if tl.items[1].start_seconds <= p.seconds <= tl.items[1].end_seconds]
    assert max(inside) >= m.baseline_rss_bytes + 60 * 2**20


def test_the_json_member_round_trips() -> None:
    m = spacrbench.benchmark(_hold, [4, 4], warmup=0, timeline=True)
    doc = m.to_dict()["timeline"]
    assert doc == m.timeline.to_dict()  # type: ignore[union-attr]
    assert doc["max_points"] == MAX_POINTS and len(doc["points"]) <= MAX_POINTS
    assert [i["peak_rss_bytes"] for i in doc["items"]] == [r.peak_rss_bytes for r in m.records]
    # The same document shape as the command's (docs/spacrbench.schema.json).
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parents[2] / "docs" / "spacrbench.schema.json")
                        .read_text())
    defs = {"$defs": schema["$defs"]}
    jsonschema.validate(m.to_dict(), {**defs, "$ref": "#/$defs/measurement"})


def test_a_hand_made_timeline_reaches_the_library_and_bad_ones_are_refused() -> None:
    tl = Timeline(points=(TimelinePoint(0.0, 10), TimelinePoint(1.0, 30, 40)),
                  items=(TimelineItem(0, 0.0, 1.0, 30, float("nan")),),
                  interval_us=500000, samples=8, stride=4)
    m = spacrbench.Measurement(items=1, seconds=1.0, peak_rss_bytes=30, timeline=tl)
    doc = m.to_dict()["timeline"]
    assert doc["downsampled"] is True and doc["stride"] == 4 and doc["samples"] == 8
    assert doc["points"][1] == {"seconds": 1.0, "rss_bytes": 30, "cgroup_bytes": 40,
                                "cpu_seconds": None}
    assert doc["items"][0]["peak_seconds"] == 1.0  # NaN: marked at the highest point inside
    backwards = dataclasses.replace(tl, points=(TimelinePoint(1.0, 10), TimelinePoint(0.5, 9)))
    with pytest.raises(ValueError, match="timeline.points"):
        dataclasses.replace(m, timeline=backwards).to_dict()
    bad = dataclasses.replace(tl, points=(TimelinePoint(0.0, "10"),))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^timeline.points\[0\].rss_bytes must be a number"):
        dataclasses.replace(m, timeline=bad).to_dict()
    with pytest.raises(TypeError, match="timeline must be a Timeline"):
        dataclasses.replace(m, timeline="no").to_dict()  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="timeline must be a bool"):
        spacrbench.benchmark(_hold, [1], timeline=1)  # type: ignore[arg-type]


def test_a_long_run_is_downsampled_to_the_bound_and_says_so() -> None:
    points = tuple(TimelinePoint(float(i), 100 + i) for i in range(MAX_POINTS))
    full = Timeline(points=points, items=(), interval_us=10000, samples=MAX_POINTS)
    m = spacrbench.Measurement(items=1, seconds=1.0, peak_rss_bytes=2**20, timeline=full)
    assert len(m.to_dict()["timeline"]["points"]) == MAX_POINTS
    over = dataclasses.replace(full, points=points + (TimelinePoint(1e6, 1),))
    with pytest.raises(ValueError, match="at most 2000 points"):
        dataclasses.replace(m, timeline=over).to_dict()


def test_a_real_long_run_is_downsampled(tmp_path: Path) -> None:
    """Through the library's sampler: 0.1 ms over ~0.6 s is ~6000 samples."""
    from spacrbench._binding import ffi, lib
    from spacrbench._convert import measurement_fields

    def sleep_300_ms(item: object, payload: object) -> int:
        import time

        time.sleep(0.3)
        return 0

    sleep = ffi.callback("int(void *, void *)", sleep_300_ms)

    opts = ffi.new("spacrbench_options *")
    lib.spacrbench_options_init(opts, ffi.sizeof("spacrbench_options"))
    opts.sample_interval_us = 100
    opts.warmup = 0
    opts.flags = lib.SPACRBENCH_FLAG_TIMELINE | lib.SPACRBENCH_FLAG_NO_GPU
    items = ffi.new("void *[]", 2)
    out = ffi.new("spacrbench_measurement **")
    assert lib.spacrbench_benchmark(sleep, items, 2, ffi.NULL, opts, out) == 0
    try:
        fields = measurement_fields(out[0])
        m = spacrbench.Measurement(**fields)
    finally:
        lib.spacrbench_measurement_free(out[0])
    tl = m.timeline
    assert tl is not None and tl.downsampled and tl.stride >= 2
    assert len(tl.points) <= MAX_POINTS < tl.samples
    assert any(n.startswith("timeline downsampled: ") for n in m.notes)
    assert [i.peak_rss_bytes for i in tl.items] == [r.peak_rss_bytes for r in m.records]


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="matplotlib is not installed")
def test_plot_draws_the_timeline(tmp_path: Path) -> None:
    m = spacrbench.benchmark(_hold, [8, 48, 16], warmup=1, timeline=True)
    out = tmp_path / "timeline.png"
    figure = m.plot(str(out))
    width, height = _png_size(out)
    dpi = figure.get_dpi()
    assert (width, height) == (round(9 * dpi), round(8 * dpi))
    axes = figure.get_axes()
    # the decision, memory over time, and the CPU % axis
    # of the timeline, whose points carry the CPU the process used.
    assert len(axes) == 3 and axes[2].get_ylabel() == "CPU %"
    assert m.timeline is not None and m.timeline.cpu_percent()
    assert all(0 <= pct <= 100 * (os.cpu_count() or 1) + 10 for _, pct in m.timeline.cpu_percent())
    over_time = axes[1]
    assert over_time.get_title() == "memory over time"
    rss, marks = over_time.get_lines()[0], over_time.get_lines()[1]
    assert len(rss.get_xdata()) == len(m.timeline.points)  # type: ignore[union-attr]
    assert list(marks.get_ydata()) == [r.peak_rss_bytes / 2**20 for r in m.records]  # type: ignore[operator]
    assert len(over_time.patches) == 3  # one shaded span per item
    plain = spacrbench.benchmark(_hold, [1, 2], warmup=0)
    assert len(plain.plot().get_axes()) == 1  # no timeline: the decision only


def test_command_plots_the_serial_run(tmp_path: Path) -> None:
    exe = _cli.command_path()
    if not os.access(exe, os.X_OK):
        pytest.skip(f"this installation has no C command ({exe})")
    out = tmp_path / "serial.png"
    env = dict(os.environ, SPACRBENCH_PYTHON=sys.executable)
    # Fields of 1024x1024 (about 0.13 s each): 256x256 ones took 4 ms, under
    # the sampler's 10 ms period, and a loaded machine drew no point at all.
    run = subprocess.run([str(exe), "--quiet", "--size", "1024x1024", "--fields", "3", "--json",
                          "--plot", str(out)], capture_output=True, text=True, env=env)
    if not HAVE_MATPLOTLIB:
        assert run.returncode != 0 and "pip install 'spacrbench[plot]'" in run.stderr
        return
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)["measurement"]
    tl = doc["timeline"]
    assert 0 < len(tl["points"]) <= tl["max_points"] == MAX_POINTS
    assert [i["peak_rss_bytes"] for i in tl["items"]] == [r["peak_rss_bytes"]
                                                        for r in doc["records"]]
    assert _png_size(out) == (900, 800)


def test_repr_counts_one_as_one() -> None:
    one = Timeline(points=(TimelinePoint(0.0, 10),), items=(TimelineItem(0, 0.0, 1.0, 10, 0.0),),
                   interval_us=10000, samples=1)
    assert repr(one) == "Timeline(1 point, 1 item, 1 sample every 10 ms)"
    none = Timeline(points=(), items=(), interval_us=10000, samples=0)
    assert repr(none) == "Timeline(0 points, 0 items, 0 samples every 10 ms)"


def _drawn(timeline: Timeline) -> "object":
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from spacrbench._plot import draw_timeline

    axes = Figure(figsize=(9, 4)).subplots()
    draw_timeline(axes, timeline, 0)
    return axes


def test_the_timeline_title_is_plain_and_the_gap_is_measured() -> None:
    """The samplers stretch their interval to keep within their budget; the
    title once said "20 samples 30 ms apart (median; 10 ms planned)", which
    a reader took for the answer: it is now "memory over time", and
    sample_gap_ms() says how far apart the samples really were."""
    points = tuple(TimelinePoint(0.03 * n, 2**20) for n in range(20))
    items = (TimelineItem(0, 0.0, 0.6, 2**20, 0.3),)
    stretched = Timeline(points=points, items=items, interval_us=10000, samples=20)
    assert stretched.sample_gap_ms() == pytest.approx(30.0)
    assert _drawn(stretched).get_title() == "memory over time"  # type: ignore[attr-defined]
    # Downsampled points stand for stride samples each.
    strided = dataclasses.replace(stretched, samples=60, stride=3)
    assert strided.sample_gap_ms() == pytest.approx(10.0)


def test_the_timeline_legend_stays_off_the_curves_and_shades_differ() -> None:
    """The legend sits below the panel (inside, it covered the first item's
    curve and peak); neighbouring items' shadings are colours a reader
    tells apart; "(grey: warm-up)" only where there is a warm-up."""
    points = tuple(TimelinePoint(0.01 * n, (n % 7) * 2**20) for n in range(60))
    items = tuple(TimelineItem(i, 0.2 * i, 0.2 * i + 0.19, 6 * 2**20, 0.2 * i + 0.05)
                  for i in range(3))
    axes = _drawn(Timeline(points=points, items=items, interval_us=10000, samples=60))
    legend = axes.get_legend()  # type: ignore[attr-defined]
    anchor = legend.get_bbox_to_anchor().transformed(axes.transAxes.inverted())  # type: ignore[attr-defined]
    assert anchor.y1 < 0  # below the axes
    shades = [p.get_facecolor()[:3] for p in axes.patches]  # type: ignore[attr-defined]
    assert len(shades) == 3 and shades[0] == shades[2]
    assert sum(abs(a - b) for a, b in zip(shades[0], shades[1])) > 0.25
    assert "warm-up" not in axes.get_xlabel()  # type: ignore[attr-defined]
    warm = (dataclasses.replace(items[0], is_warmup=True),) + items[1:]
    axes = _drawn(Timeline(points=points, items=warm, interval_us=10000, samples=60))
    assert "grey: warm-up" in axes.get_xlabel()  # type: ignore[attr-defined]


def test_cpu_percent_is_taken_over_spans_not_single_ticks() -> None:
    """A process busy on one core, counted in 4 ms ticks and sampled every
    10 ms, reads 80 % and 120 % from one sample to the next; over 0.1 s
    spans it reads what it is, 100 %."""
    points = tuple(TimelinePoint(0.01 * n, 2**20, cpu_seconds=0.004 * ((10 * n) // 4))
                   for n in range(101))
    t = Timeline(points=points, items=(), interval_us=10000, samples=101)
    ticks = [pct for _, pct in t.cpu_percent(span=0.0)]
    assert min(ticks) < 90 and max(ticks) > 110
    spans = t.cpu_percent()
    assert len(spans) == 10
    assert all(pct == pytest.approx(100, abs=5) for _, pct in spans)
