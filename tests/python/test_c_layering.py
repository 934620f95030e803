"""The C library's layers (docs/architecture.md, "What may call what"): the
#include lines of src/ and the calls between its objects keep the table of
tests/layering/layers.py, as test_library_feel.py keeps the Python
package free of import circles. ctest runs both checks on the real
build (layering_includes, layering_calls)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "tests" / "layering" / "check_includes.py"

if not (ROOT / "src").is_dir():
    pytest.skip("no source tree beside the tests (an installed copy)", allow_module_level=True)


def _check(src: Path, include: Path) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([sys.executable, str(CHECK), str(src), str(include)],
                          capture_output=True, text=True)


def test_the_source_tree_keeps_every_folder_rule() -> None:
    run = _check(ROOT / "src", ROOT / "include")
    assert run.returncode == 0, run.stdout


def _tree(tmp_path: Path, files: Dict[str, str]) -> Path:
    for name, text in {"include/spacrbench.h": "", "src/internal.h": "",
                       "src/util/parse.h": "", "src/core/timeline.h": "",
                       "src/os/sampler.h": "", "src/plate/plate.h": "", **files}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


@pytest.mark.parametrize("files, named", [
    ({"src/util/text.c": '#include "internal.h"\n'},
     "util/text.c:1: includes internal.h (internal/), but util/ may use only nothing of ours"),
    ({"src/os/posix/sampler.c": '#include "sampler.h"\n#include "plate.h"\n'},
     "os/posix/sampler.c:2: includes plate.h (plate/)"),
    ({"src/cli/x.c": '#include "timeline.h"\n'}, "cli/ may use only"),
    ({"src/newfolder/x.c": '#include "parse.h"\n'}, "no rule for folder newfolder/"),
    ({"src/report/parse.h": ""}, "parse.h: more than one header of that name"),
])
def test_a_broken_rule_is_named(tmp_path: Path, files: Dict[str, str], named: str) -> None:
    root = _tree(tmp_path, files)
    run = _check(root / "src", root / "include")
    assert run.returncode == 1 and named in run.stdout, run.stdout


def test_what_a_rule_allows_passes(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"src/core/runner.c": '#include "sampler.h"\n#include <stdio.h>\n'
                                                    '#include "parse.h"\n#include "generated.h"\n',
                            "src/util/x.c": '#include "parse.h"\n'})
    run = _check(root / "src", root / "include")
    assert run.returncode == 0, run.stdout


# The same table on the calls (check_calls.py): tiny objects compiled where
# CMake puts them, src/CMakeFiles/<target>.dir/<folder>/<file>.c.o.
CALLS = ROOT / "tests" / "layering" / "check_calls.py"
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
NM = shutil.which("nm")


def _objects(tmp_path: Path, sources: Dict[str, str]) -> "subprocess.CompletedProcess[str]":
    if not (CC and NM) or sys.platform != "linux":
        pytest.skip("check_calls reads ELF objects with nm: needs Linux, cc and nm")
    objects = []
    for rel, text in sources.items():
        src = tmp_path / "c" / rel
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(text)
        obj = tmp_path / "build" / "src" / "CMakeFiles" / "lib.dir" / (rel + ".o")
        obj.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([CC, "-c", "-fPIC", str(src), "-o", str(obj)], check=True)
        objects.append(str(obj))
    lib = tmp_path / "lib.so"
    subprocess.run([CC, "-shared", "-o", str(lib), *objects], check=True)
    return subprocess.run([sys.executable, str(CALLS), str(lib), *objects],
                          capture_output=True, text=True)


def test_a_call_up_and_a_circle_are_named(tmp_path: Path) -> None:
    run = _objects(tmp_path, {"core/runner.c": "int sb_report(void);\n"
                                               "int sb_run(void) { return sb_report(); }\n",
                              "report/report.c": "int sb_run(void);\n"
                                                 "int sb_report(void) { return sb_run() + 1; }\n"})
    assert run.returncode == 1, run.stdout
    assert "core/ calls report/ (1: runner.c -> sb_report)" in run.stdout, run.stdout
    assert "a circle of folders calling each other: core, report" in run.stdout, run.stdout


def test_calls_down_the_table_pass(tmp_path: Path) -> None:
    run = _objects(tmp_path, {"core/runner.c": "int sb_run(void) { return 1; }\n",
                              "report/report.c": "int sb_run(void);\n"
                                                 "int sb_report(void) { return sb_run() + 1; }\n"})
    assert run.returncode == 0, run.stdout
    assert "0 circle(s), 0 problem(s)" in run.stdout, run.stdout


def test_the_table_is_one_way() -> None:
    sys.path.insert(0, str(CALLS.parent))
    from layers import LAYERS, circles
    assert circles(LAYERS) == []
    assert all(used in LAYERS for uses in LAYERS.values() for used in uses)
