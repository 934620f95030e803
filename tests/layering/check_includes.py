#!/usr/bin/env python3
"""The dependency rules of docs/architecture.md (layers.py), checked on
the #include lines of src/ (check_calls.py checks the calls): every `#include "x.h"` of a file is resolved
to the folder that holds x.h, and that folder must be one the file's
folder may use. The rules are by folder, so a new file is held to its
folder's rule; a new folder fails until it has one.

    python3 tests/layering/check_includes.py [SRC_DIR [INCLUDE_DIR]]

prints each broken rule (file:line, what it includes, the rule) and exits
1 when there is one, 0 otherwise."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

# What each folder's files may include (besides their own folder's
# headers): the folders layers.py lets it call, and "api"
# (include/spacrbench.h) and "internal" (src/internal.h: the library's
# error channel, size-versioned structs and text delivery), which the
# portable helpers, the workload and the command do without.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from layers import LAYERS  # noqa: E402

_SHARED = {"util": (), "workload": (), "cli": ("api",)}
RULES: Dict[str, Tuple[str, ...]] = {
    folder: uses + _SHARED.get(folder, ("internal", "api")) for folder, uses in LAYERS.items()
}
RULES["internal"] = ("util", "api")


_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(path: Path, src: Path) -> str:
    """A file's folder as the rules name it: its path under src/ (a file of
    src/ itself is "internal")."""
    parts = path.relative_to(src).parts[:-1]
    return "/".join(parts) if parts else "internal"


def rule_for(folder: str) -> Optional[Tuple[str, Tuple[str, ...]]]:
    """The most specific rule whose folder holds this one."""
    best = None
    for name in RULES:
        if (folder == name or folder.startswith(name + "/")) and (best is None or
                                                                  len(name) > len(best)):
            best = name
    return None if best is None else (best, RULES[best])


def allowed(target: str, rule: str, uses: Tuple[str, ...]) -> bool:
    """Whether a header of folder target may be included under rule's
    folder (its own subfolders are its own)."""
    return any(target == u or target.startswith(u + "/") for u in (rule, *uses))


def headers(src: Path, include: Path) -> Dict[str, List[str]]:
    """Header name -> the folders that hold one of that name."""
    found: Dict[str, List[str]] = {}
    for h in sorted(src.rglob("*.h")):
        found.setdefault(h.name, []).append(folder_of(h, src))
    for h in sorted(include.glob("*.h")):
        found.setdefault(h.name, []).append("api")
    return found


def violations(src: Path, include: Path) -> Iterator[str]:
    """Each include that breaks its folder's rule, in words."""
    where = headers(src, include)
    for name, folders in sorted(where.items()):
        if len(folders) > 1:
            yield f"{name}: more than one header of that name ({', '.join(folders)})"
    for path in sorted(p for p in src.rglob("*") if p.suffix in (".c", ".h", ".cu")):
        own = folder_of(path, src)
        rule = rule_for(own)
        if rule is None:
            yield f"{path.relative_to(src)}: no rule for folder {own}/ (tests/layering)"
            continue
        name, uses = rule
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = _INCLUDE.match(line)
            if not m:
                continue
            header = Path(m.group(1)).name
            targets = where.get(header)
            if not targets:
                continue  # a generated or system header
            target = targets[0]
            if not allowed(target, name, uses):
                yield (f"{path.relative_to(src)}:{number}: includes {header} ({target}/), but "
                       f"{name}/ may use only {', '.join(uses) or 'nothing of ours'}")


def main(argv: List[str]) -> int:
    here = Path(__file__).resolve().parents[2]
    src = Path(argv[1]) if len(argv) > 1 else here / "src"
    include = Path(argv[2]) if len(argv) > 2 else here / "include"
    broken = list(violations(src, include))
    for b in broken:
        print(b)
    if not broken:
        print(f"check_includes: every #include of {src} keeps its folder's rule")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
