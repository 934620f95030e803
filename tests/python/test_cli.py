"""`python -m spacrbench` and the `spacrbench` console script run the C
command shipped in the package, with the same arguments."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spacrbench import _cli


def shipped_command() -> Path:
    exe = _cli.command_path()
    if not os.access(exe, os.X_OK):
        pytest.skip(f"this installation has no C command ({exe}): the CMake target "
                    "spacrbench_cli was not built")
    return exe


def test_python_m_runs_the_same_command_as_the_binary() -> None:
    exe = shipped_command()
    direct = subprocess.run([str(exe), "--help"], capture_output=True, text=True)
    via_python = subprocess.run([sys.executable, "-m", "spacrbench", "--help"],
                                capture_output=True, text=True)
    assert via_python.returncode == direct.returncode == 0
    assert via_python.stdout == direct.stdout and direct.stdout.strip()


def test_python_m_runs_the_built_in_demo() -> None:
    shipped_command()
    demo = subprocess.run([sys.executable, "-m", "spacrbench", "--size", "256x256",
                           "--fields", "2", "--channels", "1"], capture_output=True, text=True)
    assert demo.returncode == 0, demo.stderr
    for label in ("peak RSS", "recommended workers", "because"):
        assert label in demo.stdout


def test_console_script_passes_arguments_through() -> None:
    exe = shipped_command()
    script = Path(sys.executable).parent / "spacrbench"
    if not script.exists():
        script_path = shutil.which("spacrbench")
        if script_path is None:
            pytest.skip("no `spacrbench` console script next to this interpreter")
        script = Path(script_path)
    bogus = "--no-such-option-xyz"
    direct = subprocess.run([str(exe), bogus], capture_output=True, text=True)
    via_script = subprocess.run([str(script), bogus], capture_output=True, text=True)
    assert via_script.returncode == direct.returncode != 0
    assert via_script.stderr == direct.stderr


def test_missing_command_is_reported(monkeypatch: pytest.MonkeyPatch,
                                     tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(_cli, "command_path", lambda: tmp_path / "absent")
    assert _cli.main(["--help"]) == 127
    assert "absent" in capsys.readouterr().err
