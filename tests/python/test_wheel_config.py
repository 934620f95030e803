"""The wheel matrix, checked where it can be without the runners: what
`cibuildwheel --print-build-identifiers` selects from pyproject.toml for
each platform and architecture, and the shape of
.github/workflows/wheels.yml (valid YAML, one job per runner, each naming
the architecture whose identifiers are asserted here). The builds
themselves run only on GitHub's runners (docs/building.md, "Wheels").
Skips, saying why, without cibuildwheel or PyYAML (tests/python/run.sh
installs both for the main interpreter)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "wheels.yml"

# One abi3 wheel per platform and architecture, built on cp39 and tested on
# cp39 and cp313 (cibuildwheel reuses the cp39-abi3 wheel for cp313).
EXPECTED: Dict[tuple, List[str]] = {
    ("linux", "x86_64"): ["cp39-manylinux_x86_64", "cp313-manylinux_x86_64"],
    ("linux", "aarch64"): ["cp39-manylinux_aarch64", "cp313-manylinux_aarch64"],
    ("macos", "x86_64"): ["cp39-macosx_x86_64", "cp313-macosx_x86_64"],
    ("macos", "arm64"): ["cp39-macosx_arm64", "cp313-macosx_arm64"],
    ("windows", "AMD64"): ["cp39-win_amd64", "cp313-win_amd64"],
}
# The workflow's runners and the architecture each one builds.
RUNNERS = {
    "ubuntu-latest": ("linux", "x86_64"),
    "ubuntu-24.04-arm": ("linux", "aarch64"),
    "macos-15-intel": ("macos", "x86_64"),
    "macos-14": ("macos", "arm64"),
    "windows-latest": ("windows", "AMD64"),
}


def cibuildwheel(*args: str) -> List[str]:
    if importlib.util.find_spec("cibuildwheel") is None:
        pytest.skip("cibuildwheel is not installed here (pip install cibuildwheel; "
                    "it needs Python >= 3.11)")
    # Only pyproject.toml decides: no CIBW_* settings from the environment.
    env = {k: v for k, v in os.environ.items() if not k.startswith("CIBW_")}
    out = subprocess.run([sys.executable, "-m", "cibuildwheel", *args], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.parametrize("platform, arch", sorted(EXPECTED))
def test_cibuildwheel_selects_one_abi3_build_tested_on_two_pythons(platform: str,
                                                                   arch: str) -> None:
    got = cibuildwheel("--print-build-identifiers", "--platform", platform, "--archs", arch)
    assert got == EXPECTED[(platform, arch)]


def test_default_architecture_is_the_machines_own() -> None:
    """archs = auto64: a runner builds its own architecture (here, this
    machine's), never 32-bit or emulated ones."""
    import platform as host
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(host.machine().lower(), host.machine())
    if ("linux", arch) not in EXPECTED:
        pytest.skip(f"no Linux wheel is built for {host.machine()}")
    assert cibuildwheel("--print-build-identifiers", "--platform", "linux") == \
        EXPECTED[("linux", arch)]


@pytest.fixture(scope="module")
def workflow() -> Dict[Any, Any]:
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed here (pip install pyyaml)")
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


def steps_using(job: Dict[str, Any], action: str) -> List[Dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith(action + "@")]


def test_workflow_builds_on_each_runner_with_its_architecture(workflow: Dict[Any, Any]) -> None:
    # YAML 1.1 reads the bare key `on` as true.
    triggers = workflow.get("on", workflow.get(True))
    assert {"push", "pull_request", "workflow_dispatch"} <= set(triggers)
    job = workflow["jobs"]["wheels"]
    assert job["runs-on"] == "${{ matrix.os }}"
    matrix = job["strategy"]["matrix"]["include"]
    assert {m["os"]: m["arch"] for m in matrix} == {os_: arch for os_, (_, arch) in
                                                   RUNNERS.items()}
    assert len(matrix) == len(RUNNERS)
    for runner, key in RUNNERS.items():
        assert key in EXPECTED, runner
    (build,) = steps_using(job, "pypa/cibuildwheel")
    assert build["uses"].startswith("pypa/cibuildwheel@v4")
    assert build["env"]["CIBW_ARCHS"] == "${{ matrix.arch }}"
    (upload,) = steps_using(job, "actions/upload-artifact")
    assert upload["with"]["path"] == "wheelhouse/*.whl"
    assert build["with"]["output-dir"] == "wheelhouse"
    assert "${{ matrix.os }}" in upload["with"]["name"]  # one artifact per runner


def test_workflow_builds_the_sdist(workflow: Dict[Any, Any]) -> None:
    job = workflow["jobs"]["sdist"]
    assert job["runs-on"] == "ubuntu-latest"
    assert any("build --sdist" in str(s.get("run", "")) for s in job["steps"])
    (upload,) = steps_using(job, "actions/upload-artifact")
    assert upload["with"]["path"] == "dist/*.tar.gz"


def test_windows_wheel_is_built_by_the_tested_compiler() -> None:
    """The Windows wheel is compiled by MinGW-w64's gcc, the compiler
    tests/windows builds and runs under Wine, not by the runner's MSVC."""
    if sys.version_info < (3, 11):
        pytest.skip("tomllib needs Python >= 3.11")
    import tomllib
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    env = config["tool"]["cibuildwheel"]["windows"]["environment"]
    assert env["CMAKE_GENERATOR"] == "MinGW Makefiles"
    assert env["CC"] == "gcc"


def test_platforms_workflow_runs_the_native_checks() -> None:
    """.github/workflows/platforms.yml runs on real macOS (both
    architectures) and Windows what .ci/run can only cross-compile or run
    under Wine: the portable Check suites (the same list CMake builds),
    check_windows.exe with its Job Object cases, and the demo."""
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed here (pip install pyyaml)")
    doc = yaml.safe_load((REPO / ".github" / "workflows" / "platforms.yml").read_text())
    jobs = doc["jobs"]
    macs = {m["runner"]: m["arch"] for m in jobs["macos"]["strategy"]["matrix"]["include"]}
    assert macs == {r: a for r, (p, a) in RUNNERS.items() if p == "macos"}
    mac_steps = " ".join(str(s.get("run", "")) for s in jobs["macos"]["steps"])
    assert "SPACRBENCH_REQUIRE_TESTS=ON" in mac_steps and "ctest --test-dir build" in mac_steps
    assert "./build/spacrbench" in mac_steps
    win = jobs["windows"]
    assert win["runs-on"] == "windows-latest"
    win_steps = " ".join(str(s.get("run", "")) for s in win["steps"])
    assert "SPACRBENCH_WINDOWS_CHECK_PREFIX" in win_steps
    assert "check_windows.exe" in win_steps and "spacrbench.exe" in win_steps
    (msys2,) = [s for s in win["steps"] if str(s.get("uses", "")).startswith("msys2/setup-msys2")]
    assert "mingw-w64-x86_64-check" in msys2["with"]["install"]
