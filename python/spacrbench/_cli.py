"""The `spacrbench` console script and `python -m spacrbench`: both exec the
C command shipped inside the package, so they behave exactly like it."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional


def command_path() -> Path:
    """Where the wheel puts the C command."""
    return Path(__file__).resolve().parent / "_bin" / "spacrbench"


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    exe = command_path()
    if not os.access(exe, os.X_OK):
        print(f"spacrbench: the command is not part of this installation ({exe} is "
              "missing); it is built when CMake has the spacrbench_cli target",
              file=sys.stderr)
        return 127
    # `--plot` runs Python: this one, which has the package.
    os.environ.setdefault("SPACRBENCH_PYTHON", sys.executable)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(str(exe), [str(exe)] + args)  # does not return


if __name__ == "__main__":
    sys.exit(main())
