"""Pictures where people would rather look than read: Measurement.plot(),
and the command's `run --scale ... --plot FILE` rendered through this
package. matplotlib is an optional extra: without it the error names the
extra to install."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import spacrbench
from spacrbench import _cli

PNG = b"\x89PNG\r\n\x1a\n"
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def _touch(n: int) -> None:
    bytearray(n * 2**20)


def test_measurement_plot_writes_a_png(tmp_path: Path) -> None:
    m = spacrbench.benchmark(_touch, [8, 16, 24], warmup=1)
    out = tmp_path / "m.png"
    if not HAVE_MATPLOTLIB:
        with pytest.raises(ImportError, match=r"pip install 'spacrbench\[plot\]' \(from a clone: pip install '\.\[plot\]'\)"):
            m.plot(str(out))
        pytest.skip("matplotlib is not installed: only the ImportError message was checked")
    figure = m.plot(str(out))
    assert out.read_bytes()[:8] == PNG
    axes = figure.get_axes()
    assert len(axes) == 2
    assert len(axes[0].patches) == 3  # one bar per item, the warm-up included


HIDE_MATPLOTLIB = "import sys; sys.modules['matplotlib'] = None\n"  # its import then fails


@pytest.mark.parametrize("call", [
    "spacrbench.benchmark(lambda i: None, [1, 2]).plot()",
    "spacrbench._scale_result.result_from_points([dict(workers=1, items=4, seconds=1.0)], None).plot()",
])
def test_without_matplotlib_the_error_says_how_to_install_it(call: str) -> None:
    """Run where matplotlib cannot be imported, in CI too (whose venvs have
    it): the words say how to get it from a clone, on a line of at most 79
    columns."""
    code = (HIDE_MATPLOTLIB + "import spacrbench, spacrbench._plot_cli, spacrbench._scale_result\n"
            f"try:\n    {call}\nexcept ImportError as e:\n    print(e)\nelse:\n    print('no error')")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].endswith(".plot() needs matplotlib:"), run.stdout
    assert lines[1] == "  pip install 'spacrbench[plot]' (from a clone: pip install '.[plot]')"
    assert all(len(line) <= 79 for line in lines), lines


def test_without_matplotlib_the_command_helper_says_how_to_install_it(tmp_path: Path) -> None:
    doc = tmp_path / "doc.json"
    doc.write_text("{}")
    code = HIDE_MATPLOTLIB + "from spacrbench import _plot_cli\n" + \
        f"sys.exit(_plot_cli.main([{str(doc)!r}, {str(tmp_path / 'x.png')!r}]))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 3, run.stderr
    assert run.stderr.splitlines() == [
        "spacrbench: --plot needs matplotlib:",
        "  pip install 'spacrbench[plot]' (from a clone: pip install '.[plot]')"]
    assert not (tmp_path / "x.png").exists()


def test_measurement_plot_needs_records() -> None:
    m = spacrbench.Measurement(items=1, seconds=1.0, peak_rss_bytes=2**20)
    with pytest.raises(ValueError, match="no per-item records"):
        m.plot()


@pytest.mark.slow  # 7 s of the command's scaling check; the plot itself is tested above
def test_command_plots_the_scaling_check(tmp_path: Path) -> None:
    exe = _cli.command_path()
    if not os.access(exe, os.X_OK):
        pytest.skip(f"this installation has no C command ({exe})")
    out = tmp_path / "scale.png"
    env = dict(os.environ, SPACRBENCH_PYTHON=sys.executable)
    run = subprocess.run([str(exe), "run", "--quiet", "--scale", "1,2", "--plot", str(out),
                          "a", "b", "--", "sh", "-c", "sleep 0.2", "{}"],
                         capture_output=True, text=True, env=env)
    if not HAVE_MATPLOTLIB:
        assert run.returncode != 0
        assert "pip install 'spacrbench[plot]' (from a clone: pip install '.[plot]')" in run.stderr, run.stderr
        return
    assert run.returncode == 0, run.stderr
    assert "recommended workers" in run.stdout
    assert out.read_bytes()[:8] == PNG


def _records(n: int = 3) -> "tuple[spacrbench.ItemRecord, ...]":
    return tuple(spacrbench.ItemRecord(i, 0.01, 2**20 * (i + 1), is_warmup=i == 0)
                 for i in range(n))


def _titles_inside_the_figure(figure: object) -> "list[str]":
    """Every axes title drawn, checked to lie inside the figure's width."""
    backend = pytest.importorskip("matplotlib.backends.backend_agg")
    canvas = backend.FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    width = figure.bbox.width  # type: ignore[attr-defined]
    titles = []
    for axes in figure.axes:  # type: ignore[attr-defined]
        box = axes.title.get_window_extent(renderer)
        assert 0 <= box.x0 and box.x1 <= width, (axes.get_title(), box.x0, box.x1, width)
        titles.append(axes.get_title())
    return titles


@pytest.mark.parametrize("method", ["hwm_reset", "hwm_window", "sampled"])
def test_the_peak_panel_says_how_the_report_says(method: str) -> None:
    """The title read 'peak RSS per item (hwm_reset)', the library's enum
    name; it now has the report's words for the method."""
    pytest.importorskip("matplotlib")
    m = spacrbench.Measurement(items=2, seconds=0.02, peak_rss_bytes=3 * 2**20,
                               records=_records(), peak_method=method)
    words = spacrbench.format_report(m).split("peak RSS")[1].split("\n")[0]
    title = _titles_inside_the_figure(m.plot())[1]
    first, rest = title.split("\n", 1)
    assert first == "peak RSS per item" and rest.startswith("(") and rest.endswith(")")
    assert " ".join(rest[1:-1].split()) in words, (title, words)
    if method != "sampled":
        assert method not in title and "exact" in title


def test_a_downsampled_timeline_title_is_never_cut_off() -> None:
    """40000 samples downsampled to 1250 points: the one-line title ran past
    the figure's right edge (961 of 900 pixels)."""
    pytest.importorskip("matplotlib")
    from spacrbench import Timeline, TimelinePoint

    points = tuple(TimelinePoint(i * 0.32, 2**20 * (100 + i % 50)) for i in range(1250))
    down = Timeline(points=points, items=(), interval_us=10000, samples=40000, stride=32)
    m = spacrbench.Measurement(items=2, seconds=400.0, peak_rss_bytes=150 * 2**20,
                               records=_records(), timeline=down, peak_method="hwm_reset")
    title = _titles_inside_the_figure(m.plot())[2]
    assert title.splitlines() == ["memory over time: 40000 samples every 10 ms",
                                  "downsampled to 1250 points, each the highest of 32 samples"]


@pytest.mark.parametrize("with_items", [False, True])
def test_an_empty_timeline_plots(tmp_path: Path, with_items: bool) -> None:
    """A run of a few ms can have a timeline with no point at all."""
    pytest.importorskip("matplotlib")
    from spacrbench import Timeline, TimelineItem

    items = tuple(TimelineItem(i, i * 0.001, (i + 1) * 0.001, 2**20, float("nan"), i == 0)
                  for i in range(3)) if with_items else ()
    empty = Timeline(points=(), items=items, interval_us=10000, samples=0)
    m = spacrbench.Measurement(items=2, seconds=0.003, peak_rss_bytes=3 * 2**20,
                               records=_records(), timeline=empty)
    figure = m.plot(str(tmp_path / "empty.png"))
    assert (tmp_path / "empty.png").read_bytes()[:8] == PNG
    over_time = figure.get_axes()[2]
    assert over_time.get_title() == "memory over time: 0 samples every 10 ms"
    assert len(over_time.get_lines()[0].get_xdata()) == 0
    assert len(over_time.patches) == len(items)
    assert m.to_dict()["timeline"]["points"] == []
    assert repr(empty).startswith("Timeline(0 points")


def test_a_run_of_a_few_milliseconds_plots_its_timeline(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    m = spacrbench.benchmark(lambda i: None, range(3), warmup=1, timeline=True)
    assert m.timeline is not None
    figure = m.plot(str(tmp_path / "short.png"))
    # A fourth (the CPU % axis) where two points carry the CPU used.
    assert len(figure.get_axes()) == 3 + (len(m.timeline.cpu_percent()) > 0)
    assert _titles_inside_the_figure(figure)[2].startswith("memory over time: ")


def _labels(axes: object) -> "list[str]":
    legend = axes.get_legend()  # type: ignore[attr-defined]
    return [t.get_text() for t in legend.get_texts()] if legend else []


def test_each_panel_names_the_figure_it_draws(tmp_path: Path) -> None:
    """spacrbench run with a cgroup: the peak panel draws both figures, each
    named (the tree's RSS peak, GNU time's; the charge, the advice's), the
    time panel the spread of the runs, the timeline the CPU % beside the
    memory, and its marks say they are the charge."""
    pytest.importorskip("matplotlib")
    from spacrbench import RunRecord, Timeline, TimelineItem, TimelinePoint

    runs = (RunRecord(0.4, 0.1, 90 * 2**20, None, 90 * 2**20, 95 * 2**20),
            RunRecord(0.6, 0.1, 91 * 2**20, None, 91 * 2**20, 96 * 2**20))
    records = tuple(spacrbench.ItemRecord(i, 0.5, 91 * 2**20, cpu_seconds=0.1,
                                          cgroup_charge_bytes=91 * 2**20,
                                          tree_rss_peak_bytes=96 * 2**20, run_records=runs)
                    for i in range(2))
    points = tuple(TimelinePoint(t / 10, 2**20 * (10 + t), 2**20 * (9 + t), 0.05 * t)
                   for t in range(20))
    items = (TimelineItem(0, 0.0, 1.0, 91 * 2**20, float("nan")),
             TimelineItem(1, 1.0, 2.0, 91 * 2**20, float("nan")))
    m = spacrbench.Measurement(items=2, seconds=1.0, peak_rss_bytes=91 * 2**20, records=records,
                               peak_method="cgroup", timeline=Timeline(points, items, 100000, 20))
    assert m.timeline is not None and m.timeline.cpu_percent()[0] == pytest.approx((0.1, 50.0))
    figure = m.plot(str(tmp_path / "run.png"))
    times, peaks, over_time, cpu = figure.get_axes()
    titles = _titles_inside_the_figure(figure)
    assert titles[0] == "wall time per item\n(the mean of 2 runs)"
    assert _labels(times) == ["shortest to longest run"]
    assert titles[1] == "peak RSS and memory charged per item\n(the advice divides by the charge)"
    assert _labels(peaks) == ["peak RSS of the process tree (GNU time's figure)",
                              "memory charged to its cgroup (exact; the advice's)", "baseline"]
    assert _labels(over_time) == ["RSS of the process tree (sampled)",
                                  "memory charged to the item's cgroup (sampled)",
                                  "item's peak charge (exact)", "baseline",
                                  "CPU % of one core, per 0.1 s (right axis)"]
    assert cpu.get_ylabel() == "CPU %"
    assert times.get_xlabel() == "item"  # no warm-up, so no "(grey: warm-up)"


def test_in_process_the_peak_is_the_rss_high_water_mark() -> None:
    pytest.importorskip("matplotlib")
    m = spacrbench.Measurement(items=2, seconds=0.02, peak_rss_bytes=3 * 2**20,
                               records=_records(), peak_method="hwm_reset")
    times, peaks = m.plot().get_axes()
    assert _labels(peaks) == ["peak RSS", "baseline"]
    assert times.get_xlabel() == "item (grey: warm-up)"
