"""Generate the cffi extension's C source from the public headers' marked regions.

Usage: python gen_cffi.py INCLUDE_DIR OUTPUT.c"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import cffi

BEGIN = "/* SPACRBENCH_CDEF_BEGIN */"
END = "/* SPACRBENCH_CDEF_END */"

# Callbacks are extern "Python": cffi compiles them as C functions, so no
# libffi trampoline (writable+executable memory) is ever needed.
# The #defines are resolved by the C compiler: the version compiled in, and
# the sentinels the Python layer must agree with.
EXTRA_CDEF = """
extern "Python" int _spacrbench_work(void *item, void *payload);
extern "Python" int _spacrbench_progress(const spacrbench_progress *progress,
                                         void *payload);
extern "Python" int _spacrbench_scale_open(spacrbench_scale_driver *driver, int64_t workers,
                                           int64_t budget_bytes, int64_t *pids,
                                           spacrbench_scale_outcome *out, void *payload);
extern "Python" int _spacrbench_scale_round(spacrbench_scale_driver *driver,
                                            const spacrbench_scale_round *round,
                                            spacrbench_scale_worker *workers,
                                            spacrbench_scale_outcome *out, void *payload);
extern "Python" int _spacrbench_scale_close(spacrbench_scale_driver *driver, int32_t failed,
                                            spacrbench_scale_count *count, void *payload);
#define SPACRBENCH_VERSION_NUMBER ...
#define SPACRBENCH_NOT_MEASURED ...
#define SPACRBENCH_AUTO ...
#define SPACRBENCH_SCALE_MAX_WORKERS ...
#define SPACRBENCH_SCALE_MAX_ROUND_ITEMS ...
"""


def without_preprocessor_lines(text: str) -> str:
    """text without its # lines and their backslash continuations."""
    kept: list[str] = []
    continued = False
    for line in text.splitlines():
        directive = continued or line.lstrip().startswith("#")
        continued = directive and line.rstrip().endswith("\\")
        if not directive:
            kept.append(line)
    return "\n".join(kept) + "\n"


_INCLUDE = re.compile(r'^#include "([^"]+)"\n', re.M)


def flattened(header: Path, seen: set[Path]) -> str:
    """header's text with each #include of ours inlined once, in the compiler's order."""
    seen.add(header.resolve())

    def inline(m: re.Match[str]) -> str:
        included = (header.parent / m.group(1)).resolve()
        return "" if included in seen else flattened(included, seen)

    return _INCLUDE.sub(inline, header.read_text(encoding="utf-8"))


def headers_cdef(include_dir: Path) -> str:
    """The cdef text of the public headers' marked regions; an unincluded header is an error."""
    seen: set[Path] = set()
    text = flattened(include_dir / "spacrbench.h", seen)
    stray = sorted(set(include_dir.resolve().rglob("*.h")) - seen)
    if stray:
        raise SystemExit(f"not included by spacrbench.h: {', '.join(map(str, stray))}")
    regions = []
    for piece in text.split(BEGIN)[1:]:
        if piece.count(END) != 1:
            raise SystemExit("SPACRBENCH_CDEF_BEGIN/END markers do not pair up")
        regions.append(without_preprocessor_lines(piece[:piece.index(END)]))
    if not regions:
        raise SystemExit("spacrbench.h: SPACRBENCH_CDEF_BEGIN/END markers not found")
    return re.sub(r"\bSPACRBENCH_(EXTERN|CALLBACK)\b", "", "".join(regions))


def make_builder(include_dir: Path) -> cffi.FFI:
    ffibuilder = cffi.FFI()
    ffibuilder.cdef(headers_cdef(include_dir) + EXTRA_CDEF)
    ffibuilder.set_source("spacrbench._spacrbench", '#include "spacrbench.h"\n')
    return ffibuilder


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    make_builder(Path(argv[1])).emit_c_code(argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
