"""`spacrbench run`'s memory timeline in Python: the --json document of a run
whose command allocates a known amount, read back into a Measurement, is
drawn by Measurement.plot() (the PNG read back, the lines checked: the
sampled RSS, the item cgroup's usage with a cgroup and none without, the
exact peaks), and `run --plot FILE` draws the same picture."""

from __future__ import annotations

import importlib.util
import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

from spacrbench import _cli
from spacrbench._plot_cli import measurement_from_json

PNG = b"\x89PNG\r\n\x1a\n"
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
MIB = 2**20
# 48 MiB touched (zero-filled), held for 300 ms: many 10 ms samples.
HOLD = "import time; b = bytearray(48 << 20); time.sleep(0.3)"


def _png_size(path: Path) -> "tuple[int, int]":
    data = path.read_bytes()
    assert data[:8] == PNG
    width, height = struct.unpack(">II", data[16:24])  # IHDR
    return width, height


def _command() -> Path:
    if not sys.platform.startswith("linux"):
        pytest.skip("spacrbench run measures commands on Linux only")
    exe = _cli.command_path()
    if not os.access(exe, os.X_OK):
        pytest.skip(f"this installation has no C command ({exe})")
    return exe


def _run(tmp_path: Path, no_cgroup: bool, *extra: str) -> "subprocess.CompletedProcess[str]":
    args = [str(_command()), "run", "--quiet", "--json", *extra]
    if no_cgroup:
        args.append("--no-cgroup")
    args += ["a", "b", "--", sys.executable, "-c", HOLD]
    env = dict(os.environ, SPACRBENCH_PYTHON=sys.executable)
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=tmp_path)


def _timeline(doc: Dict[str, Any]) -> Dict[str, Any]:
    tl = doc["measurement"]["timeline"]
    assert isinstance(tl, dict)
    assert 0 < len(tl["points"]) <= tl["max_points"] == 2000
    assert [i["peak_rss_bytes"] for i in tl["items"]] == [
        r["peak_rss_bytes"] for r in doc["measurement"]["records"]]
    return tl


@pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="matplotlib is not installed")
@pytest.mark.parametrize("no_cgroup", [False, True], ids=["cgroup", "no-cgroup"])
def test_plot_draws_a_run_documents_timeline(tmp_path: Path, no_cgroup: bool) -> None:
    run = _run(tmp_path, no_cgroup)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    tl = _timeline(doc)
    with_cgroup = doc["memory_figures"]["advice_uses"] == "cgroup_charge"
    assert not (no_cgroup and with_cgroup)
    assert all((p["cgroup_bytes"] is not None) == with_cgroup for p in tl["points"])
    assert max(p["rss_bytes"] or 0 for p in tl["points"]) >= 48 * MIB

    m = measurement_from_json(doc)
    out = tmp_path / "run.png"
    figure = m.plot(str(out))
    dpi = figure.get_dpi()
    assert _png_size(out) == (round(9 * dpi), round(8 * dpi))
    over_time = figure.get_axes()[1]
    assert over_time.get_title() == "memory over time"
    lines = {line.get_label(): line for line in over_time.get_lines()}
    # Each line named for the figure it draws: the tree's RSS, the
    # cgroup's charge, and marks of the record's peak (the charge, exact,
    # with a cgroup; the tree's RSS peak without).
    assert len(lines["RSS of the process tree (sampled)"].get_xdata()) == len(tl["points"])
    assert ("memory charged to the item's cgroup (sampled)" in lines) == with_cgroup
    marks = lines["item's peak charge (exact)" if with_cgroup
                  else "item's peak RSS (child's high-water mark)"]
    assert list(marks.get_ydata()) == [r["peak_rss_bytes"] / MIB
                                       for r in doc["measurement"]["records"]]
    assert len(over_time.patches) == 2  # one shaded span per item


def test_run_plot_draws_the_timeline(tmp_path: Path) -> None:
    out = tmp_path / "serial.png"
    run = _run(tmp_path, False, "--plot", str(out))
    if not HAVE_MATPLOTLIB:
        assert run.returncode == 2 and "pip install 'spacrbench[plot]'" in run.stderr  # refused before the run
        return
    assert run.returncode == 0, run.stderr
    _timeline(json.loads(run.stdout))
    assert _png_size(out) == (900, 800)  # the timeline's taller figure at 100 dpi
