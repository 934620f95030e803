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
    (decision,) = figure.get_axes()  # no timeline: the decision only
    points = [line for line in decision.get_lines() if line.get_linestyle() == "None"]
    assert sum(len(line.get_xdata()) for line in points) == 3  # the warm-up included


HIDE_MATPLOTLIB = "import sys; sys.modules['matplotlib'] = None\n"  # its import then fails


@pytest.mark.parametrize("call", [
    "spacrbench.benchmark(lambda i: None, [1, 2]).plot()",
    "spacrbench._plot_cli.result_from_json({'scaling': [dict(workers=1, items=4, seconds=1.0, "
    "peak_bytes=None, failed=False)]}).plot()",
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
    # The shortest scaling check (spacrbench help run): the picture needs
    # its points, not their precision.
    run = subprocess.run([str(exe), "run", "--quiet", "--scale", "1,2", "--scale-items", "1",
                          "--scale-seconds", "0", "--plot", str(out),
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


def _named(tmp_path: Path, sizes: "list[int]", needs: "list[int]") -> spacrbench.Measurement:
    """A measurement of files of the given sizes (the first a warm-up),
    each item needing needs[i] MiB above a 10 MiB baseline."""
    records = []
    for i, (size, need) in enumerate(zip(sizes, needs)):
        path = tmp_path / f"field_{i}.tif"
        path.write_bytes(b"x" * size)
        records.append(spacrbench.ItemRecord(i, 0.1, (10 + need) * 2**20, is_warmup=i == 0,
                                             item=str(path)))
    return spacrbench.Measurement(items=len(sizes) - 1, seconds=0.3,
                                  peak_rss_bytes=(10 + max(needs)) * 2**20,
                                  baseline_rss_bytes=10 * 2**20, records=tuple(records),
                                  peak_method="hwm_reset")


def _budget_line(axes: object) -> float:
    lines = [line for line in axes.get_lines()  # type: ignore[attr-defined]
             if line.get_linestyle() != "None"]
    assert len(lines) == 1, [line.get_label() for line in lines]
    y = lines[0].get_ydata()
    assert y[0] == y[1]  # horizontal
    return float(y[0])


def test_the_decision_panel_shows_each_items_need_the_budget_and_the_answer(
        tmp_path: Path) -> None:
    """The picture a newcomer reads the decision from: the title is the
    recommendation, each point one item's need against its file size and
    named, never joined to the next (items are not a series), and the line
    the memory each recommended worker may use."""
    pytest.importorskip("matplotlib")
    m = _named(tmp_path, [3000, 1000, 5000, 2000], [30, 10, 50, 20])
    rec = spacrbench.recommend_workers(m, cores=2, available_bytes=8 * 2**30,
                                       reserve_bytes=2 * 2**30)
    assert rec.bound == "cores" and rec.memory_workers == 122
    figure = m.plot(str(tmp_path / "decision.png"), rec)
    (decision,) = figure.get_axes()
    assert _titles_inside_the_figure(figure) == ["2 workers (core-bound; memory allows 122)"]
    points = {line.get_label(): line for line in decision.get_lines()
              if line.get_linestyle() == "None"}
    measured = points["one worker's need per item (what the advice divides by)"]
    assert list(measured.get_xdata()) == [1000, 5000, 2000]  # file sizes
    assert list(measured.get_ydata()) == [10 * 2**20, 50 * 2**20, 20 * 2**20]
    warm = points["warm-up item (its memory counts too)"]
    assert list(warm.get_xdata()) == [3000] and list(warm.get_ydata()) == [30 * 2**20]
    assert _budget_line(decision) == 6 * 2**30 / 2
    names = sorted(t.get_text() for t in decision.texts)
    assert names == ["field_0.tif (warm-up)", "field_1.tif", "field_2.tif", "field_3.tif",
                     "memory per worker: (8 GiB available - 2 GiB reserve) / 2 workers = 3 GiB"]
    assert decision.get_xlabel() == "file size"
    assert decision.get_yscale() == "log"  # 3 GiB beside 50 MiB: both in view


def test_memory_bound_the_line_sits_just_above_the_largest_need(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    m = _named(tmp_path, [10, 20, 30], [40, 60, 100])
    rec = spacrbench.recommend_workers(m, cores=16, available_bytes=1400 * 2**20,
                                       reserve_bytes=1000 * 2**20)
    assert rec.bound == "memory" and rec.workers == 4
    decision = m.plot(None, rec).get_axes()[0]
    assert decision.get_title() == "4 workers (memory-bound)"
    assert _budget_line(decision) == 400 * 2**20 / 4
    assert decision.get_yscale() == "linear" and decision.get_ylim()[0] == 0


def test_files_of_one_size_are_drawn_in_the_order_measured(tmp_path: Path) -> None:
    """The tutorial's fields are all 32 MiB: against their size every point
    and name fell on one spot."""
    pytest.importorskip("matplotlib")
    m = _named(tmp_path, [4096] * 4, [30, 10, 50, 20])
    rec = spacrbench.recommend_workers(m, cores=2, available_bytes=8 * 2**30)
    decision = m.plot(None, rec).get_axes()[0]
    assert decision.get_xlabel() == "item, in the order measured (every file 4 KiB)"
    measured = decision.get_lines()[0]
    assert list(measured.get_xdata()) == [2, 3, 4]


def test_items_without_names_are_drawn_in_the_order_measured() -> None:
    """benchmark() keeps no item names: the key is the order, no labels."""
    pytest.importorskip("matplotlib")
    m = spacrbench.Measurement(items=2, seconds=0.02, peak_rss_bytes=3 * 2**20,
                               records=_records(), peak_method="hwm_reset")
    rec = spacrbench.recommend_workers(m, cores=1, available_bytes=0)
    decision = m.plot(None, rec).get_axes()[0]
    assert decision.get_xlabel() == "item, in the order measured"
    assert decision.get_title() == "1 worker (one worker needs more than the budget)"
    assert len(decision.texts) == 0  # no names, and no budget line: no memory available
    assert all(line.get_linestyle() == "None" for line in decision.get_lines())


def test_the_commands_plot_draws_the_runs_own_recommendation() -> None:
    """--plot draws the recommendation the report printed (the document's),
    not one made again on the machine that draws; a wrong type is refused
    with the member named."""
    from spacrbench._plot_cli import recommendation_from_json

    m = spacrbench.Measurement(items=2, seconds=0.02, peak_rss_bytes=3 * 2**20,
                               records=_records())
    rec = spacrbench.recommend_workers(m, cores=3, available_bytes=2**30, reserve_bytes=0)
    doc = {"measurement": m.to_dict(), "recommendation": rec.to_dict()}
    read = recommendation_from_json(doc, m)
    assert read is not None and (read.workers, read.reason, read.available_bytes) == \
        (rec.workers, rec.reason, 2**30)
    assert recommendation_from_json({"measurement": m.to_dict()}, m) is None
    doc["recommendation"]["memory_workers"] = "many"
    with pytest.raises(TypeError, match=r"data\.recommendation\.memory_workers"):
        recommendation_from_json(doc, m)


def test_a_downsampled_timeline_title_is_never_cut_off() -> None:
    """40000 samples downsampled to 1250 points: the title once ran past
    the figure's right edge (961 of 900 pixels); it is now plain."""
    pytest.importorskip("matplotlib")
    from spacrbench import Timeline, TimelinePoint

    points = tuple(TimelinePoint(i * 0.32, 2**20 * (100 + i % 50)) for i in range(1250))
    down = Timeline(points=points, items=(), interval_us=10000, samples=40000, stride=32)
    m = spacrbench.Measurement(items=2, seconds=400.0, peak_rss_bytes=150 * 2**20,
                               records=_records(), timeline=down, peak_method="hwm_reset")
    assert _titles_inside_the_figure(m.plot())[1] == "memory over time"


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
    over_time = figure.get_axes()[1]
    assert over_time.get_title() == "memory over time"
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
    assert len(figure.get_axes()) == 2 + (len(m.timeline.cpu_percent()) > 0)
    assert _titles_inside_the_figure(figure)[1] == "memory over time"


def _labels(axes: object) -> "list[str]":
    legend = axes.get_legend()  # type: ignore[attr-defined]
    return [t.get_text() for t in legend.get_texts()] if legend else []


def test_each_panel_names_the_figure_it_draws(tmp_path: Path) -> None:
    """spacrbench run with a cgroup: the decision's points are the charge
    (what the advice divides by), the timeline draws the tree's RSS and the
    charge, its marks say they are the charge, and the CPU % beside them."""
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
    decision, over_time, cpu = figure.get_axes()
    titles = _titles_inside_the_figure(figure)
    assert titles[1] == "memory over time"
    assert _labels(decision)[0] == "one worker's need per item (what the advice divides by)"
    assert list(decision.get_lines()[0].get_ydata()) == [91 * 2**20] * 2
    assert _labels(over_time) == ["RSS of the process tree (sampled)",
                                  "memory charged to the item's cgroup (sampled)",
                                  "item's peak charge (exact)", "baseline",
                                  "CPU % of one core, per 0.1 s (right axis)"]
    assert cpu.get_ylabel() == "CPU %"
    assert over_time.get_xlabel() == "seconds since the run began (shaded: items)"


@pytest.mark.parametrize("method", ["hwm_reset", "hwm_window", "sampled"])
def test_the_timeline_marks_say_how_the_report_says(method: str) -> None:
    """The marks once read 'hwm_reset', the library's enum name; they now
    have the report's words for the method."""
    pytest.importorskip("matplotlib")
    from spacrbench import Timeline, TimelineItem, TimelinePoint

    timeline = Timeline((TimelinePoint(0.0, 2**20),),
                        (TimelineItem(0, 0.0, 1.0, 2**20, 0.5),), 10000, 1)
    m = spacrbench.Measurement(items=2, seconds=0.02, peak_rss_bytes=3 * 2**20,
                               records=_records(), peak_method=method, timeline=timeline)
    from spacrbench._plot import peak_words  # the library's, as the report has them

    mark = _labels(m.plot().get_axes()[1])[1]
    assert mark == f"item's peak RSS ({peak_words(m)})"
    if method != "sampled":
        assert method not in mark and "exact" in mark
