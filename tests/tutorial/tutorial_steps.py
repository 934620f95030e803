"""docs/tutorial.md as a shell script: its ```sh blocks, in order, each
after a line that names it, as a reader types them into one shell. Also
checks that each script the page shows (a ```python block after
`<!-- docs/tutorial/NAME.py -->`) is that file, byte for byte: the page and
the files the reader copies are one source.

    python3 tutorial_steps.py TUTORIAL.md REPO > steps.sh
Exit 1 naming the script that differs, or when the page has no steps."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import List, Tuple

SCRIPT = re.compile(r"<!-- (docs/tutorial/[\w.-]+\.py) -->\n```python\n(.*?)```", re.S)
STEP = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)


def shown_scripts(text: str) -> List[Tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in SCRIPT.finditer(text)]


def steps(text: str) -> List[str]:
    return [m.group(1) for m in STEP.finditer(text)]


def main(argv: List[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    page, repo = Path(argv[1]), Path(argv[2])
    text = page.read_text()
    wrong = 0
    scripts = shown_scripts(text)
    for name, body in scripts:
        path = repo / name
        if not path.is_file() or path.read_text() != body:
            print(f"{page}: the {name} shown is not {path} as committed", file=sys.stderr)
            wrong += 1
    shipped = sorted(p.relative_to(repo).as_posix()
                     for p in (repo / "docs" / "tutorial").glob("*.py"))
    unshown = set(shipped) - {name for name, _ in scripts}
    for name in sorted(unshown):
        print(f"{page}: {name} is shipped but the page never shows it", file=sys.stderr)
        wrong += 1
    blocks = steps(text)
    if not blocks or wrong:
        if not blocks:
            print(f"{page}: no ```sh steps", file=sys.stderr)
        return 1
    print("# generated from docs/tutorial.md by tests/tutorial/tutorial_steps.py")
    print("set -euo pipefail")
    for n, block in enumerate(blocks, 1):
        first = block.strip().splitlines()[0]
        print(f"printf '\\n### step %d: %s\\n' {n} {shell_word(first)}")
        print(block.rstrip("\n"))
    print(f"printf '\\n### all {len(blocks)} steps ran\\n'")
    return 0


def shell_word(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
