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
        with pytest.raises(ImportError, match=r"pip install spacrbench\[plot\]"):
            m.plot(str(out))
        pytest.skip("matplotlib is not installed: only the ImportError message was checked")
    figure = m.plot(str(out))
    assert out.read_bytes()[:8] == PNG
    axes = figure.get_axes()
    assert len(axes) == 2
    assert len(axes[0].patches) == 3  # one bar per item, the warm-up included


def test_measurement_plot_needs_records() -> None:
    m = spacrbench.Measurement(items=1, seconds=1.0, peak_rss_bytes=2**20)
    with pytest.raises(ValueError, match="no per-item records"):
        m.plot()


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
        assert "pip install spacrbench[plot]" in run.stderr, run.stderr
        return
    assert run.returncode == 0, run.stderr
    assert "recommended workers" in run.stdout
    assert out.read_bytes()[:8] == PNG
