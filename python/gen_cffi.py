"""Generate the C source of the cffi extension spacrbench._spacrbench.

Usage: python gen_cffi.py INCLUDE_DIR OUTPUT.c

The declarations come verbatim from the public header (between the
SPACRBENCH_CDEF_BEGIN / _END markers), so a header the binding does not match
fails here, at build time, rather than at run time. The region also holds the
header's macros (the *_INIT macros sit beside their structs): its
preprocessor lines are dropped, since cffi parses declarations only.
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


def header_cdef(header_text: str) -> str:
    """The cdef text of the header: the marked region without macros and
    ABI markers."""
    start = header_text.find(BEGIN)
    stop = header_text.find(END)
    if start < 0 or stop < start:
        raise SystemExit("spacrbench.h: SPACRBENCH_CDEF_BEGIN/END markers not found")
    region = without_preprocessor_lines(header_text[start + len(BEGIN):stop])
    return re.sub(r"\bSPACRBENCH_(EXTERN|CALLBACK)\b", "", region)


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
