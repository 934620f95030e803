"""Generate the C source of the cffi extension spacrbench._spacrbench.

Usage: python gen_cffi.py INCLUDE_DIR OUTPUT.c

The declarations come verbatim from the public header (between the
SPACRBENCH_CDEF_BEGIN / _END markers), so a header the binding does not match
fails here, at build time, rather than at run time.
"""

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
#define SPACRBENCH_VERSION_NUMBER ...
#define SPACRBENCH_NOT_MEASURED ...
#define SPACRBENCH_AUTO ...
"""


def header_cdef(header_text: str) -> str:
    """The cdef text of the header: every marked region (later additions
    carry their own markers) without ABI markers."""
    regions = []
    start = header_text.find(BEGIN)
    while start >= 0:
        stop = header_text.find(END, start)
        if stop < 0:
            break
        regions.append(header_text[start + len(BEGIN):stop])
        start = header_text.find(BEGIN, stop)
    if not regions:
        raise SystemExit("spacrbench.h: SPACRBENCH_CDEF_BEGIN/END markers not found")
    return re.sub(r"\bSPACRBENCH_(EXTERN|CALLBACK)\b", "", "\n".join(regions))


def make_builder(include_dir: Path) -> cffi.FFI:
    header = (include_dir / "spacrbench.h").read_text(encoding="utf-8")
    ffibuilder = cffi.FFI()
    ffibuilder.cdef(header_cdef(header) + EXTRA_CDEF)
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
