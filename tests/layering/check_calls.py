#!/usr/bin/env python3
"""Which folder's code calls which, read from the object files' symbols
(`nm`): a symbol an object uses is resolved to the folder of the object
that defines it, and every such use must keep layers.py's table (which
#include lines cannot show: calls through spacrbench.h, a header of one
folder defined in another). The command (cli) may also call any function
the shared library exports.

    python3 tests/layering/check_calls.py [--graph] LIBRARY OBJECT...

An object's folder is its source's first folder under src/, read from
CMake's object path (src/CMakeFiles/<target>.dir/core/runner.c.o is
core; src/cli/CMakeFiles/<target>.dir/cmd_run.c.o is cli). Prints each use
that breaks the table (with up to three of its symbols) and each circle
of folders, and exits 1 when there is one; --graph prints every edge."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from layers import LAYERS, circles, may_use  # noqa: E402

Symbols = Tuple[Set[str], Set[str]]  # (defined, used)


def folder_of(obj: str) -> str:
    """The src/ folder an object was compiled from (see the docstring)."""
    parts = Path(obj).parts
    cmake = len(parts) - 1 - parts[::-1].index("CMakeFiles")
    src = max((i for i, p in enumerate(parts[:cmake]) if p == "src"), default=-1)
    path = list(parts[src + 1:cmake]) + list(parts[cmake + 2:-1])
    return path[0] if path else "internal"


def symbols(nm: str, path: str, dynamic: bool = False) -> Symbols:
    """The global symbols path defines and the ones it uses."""
    args = [nm, "-P"] + (["-D", "--defined-only"] if dynamic else []) + [path]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    defined: Set[str] = set()
    used: Set[str] = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0].split("@")[0], fields[1]
        if kind == "U":
            used.add(name)
        elif kind in "ABCDGIRSTVWiu":  # global (lower case but these: local)
            defined.add(name)
    return defined, used


def uses(nm: str, objects: List[str]) -> Dict[Tuple[str, str], Set[str]]:
    """(user folder, defining folder) -> the symbols that make the edge."""
    owner: Dict[str, str] = {}
    wanted: List[Tuple[str, str, Set[str]]] = []
    for obj in objects:
        folder = folder_of(obj)
        defined, used = symbols(nm, obj)
        for name in defined:
            owner.setdefault(name, folder)
        wanted.append((folder, obj, used))
    edges: Dict[Tuple[str, str], Set[str]] = {}
    for folder, obj, used in wanted:
        for name in used:
            target = owner.get(name)
            if target and target != folder:
                edges.setdefault((folder, target), set()).add(
                    f"{os.path.basename(obj)[:-2]} -> {name}")
    return edges


def main(argv: List[str]) -> int:
    show_graph = "--graph" in argv
    args = [a for a in argv[1:] if a != "--graph"]
    if len(args) < 2:
        print(__doc__)
        return 2
    nm = os.environ.get("NM", "nm")
    library, objects = args[0], args[1:]
    exported, _ = symbols(nm, library, dynamic=True)
    edges = uses(nm, objects)
    if not edges:
        print(f"check_calls: no call between folders in {len(objects)} object(s): wrong files?")
        return 1
    broken = []
    for (user, used), names in sorted(edges.items()):
        if show_graph:
            print(f"{user} -> {used}: {len(names)}")
        if user not in LAYERS:
            broken.append(f"{user}/: no rule for this folder (tests/layering/layers.py)")
            continue
        if user == "cli":  # the command may call the library's public API
            names = {n for n in names if n.split(" -> ")[1] not in exported}
        if names and not may_use(user, used):
            some = ", ".join(sorted(names)[:3])
            broken.append(f"{user}/ calls {used}/ ({len(names)}: {some}), but {user}/ may call "
                          f"only {', '.join(LAYERS[user]) or 'nothing of ours'}")
    graph: Dict[str, Tuple[str, ...]] = {}
    for (user, used) in edges:
        graph[user] = graph.get(user, ()) + (used,)
    found = circles(graph)
    for c in found:
        broken.append("a circle of folders calling each other: " + ", ".join(c))
    for b in dict.fromkeys(broken):
        print(b)
    print(f"check_calls: {len({f for e in edges for f in e})} folders, {len(edges)} edges, "
          f"{len(found)} circle(s), {len(broken)} problem(s)")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
