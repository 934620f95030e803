"""The C library's layers (docs/architecture.md, "What may use what"): the
#include lines of src/ keep the rule of their folder, as
test_library_feel.py keeps the Python package free of import circles.
tests/layering/check_includes.py holds the rules; ctest runs it too."""

from __future__ import annotations

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
