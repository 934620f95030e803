"""Importing spacrbench loads no GPU or GUI toolkit and writes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import json, os, sys
env_before = dict(os.environ)
import spacrbench
m = spacrbench.benchmark(lambda i: None, [1, 2])
spacrbench.format_report(m, spacrbench.recommend_workers(m))
heavy = sorted(name for name in sys.modules
               if name.split(".")[0] in {"torch", "tensorflow", "jax", "cupy", "numba",
                                         "tkinter", "_tkinter", "PyQt5", "PyQt6", "PySide2",
                                         "PySide6", "wx", "gi", "matplotlib", "IPython"})
print(json.dumps({"heavy": heavy, "env_changed": dict(os.environ) != env_before}))
"""


def test_import_loads_no_toolkit_and_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    work = tmp_path / "cwd"
    home.mkdir()
    work.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_CACHE_HOME=str(home / ".cache"), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=work, env=env,
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"heavy": [], "env_changed": False}
    assert list(home.iterdir()) == [] and list(work.iterdir()) == []


LAZY_PROBE = r"""
import json, sys
import spacrbench
after_import = sorted(m for m in sys.modules if m.startswith("spacrbench."))
from spacrbench import Measurement, Recommendation, benchmark, recommend_workers, format_report
after_names = sorted(m for m in sys.modules if m.startswith("spacrbench."))
print(json.dumps({"import": after_import, "names": after_names,
                  "all": sorted(n for n in spacrbench.__all__ if n not in dir(spacrbench))}))
"""


def test_import_loads_the_library_and_defers_the_rest() -> None:
    """`import spacrbench` loads the library (its version check) and nothing
    else; the conversions and the torch probe wait for their first use."""
    out = subprocess.run([sys.executable, "-c", LAZY_PROBE], capture_output=True, text=True,
                         check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["import"] == ["spacrbench._binding", "spacrbench._errors",
                                "spacrbench._spacrbench", "spacrbench._spacrbench.lib"]
    assert "spacrbench._results" in result["names"] and "spacrbench._run" in result["names"]
    assert "spacrbench._convert" not in result["names"]
    assert "spacrbench._torch" not in result["names"]
    assert result["all"] == []  # every public name is listed by dir()


def test_unknown_attribute_is_an_attribute_error() -> None:
    import pytest

    import spacrbench
    with pytest.raises(AttributeError, match="no_such_name"):
        spacrbench.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    assert spacrbench.Measurement.__name__ == "Measurement"
