"""``spacrbench.summarize(dir)``: SLURM's seff per task, and the ONE
command line that reruns the tasks that need it. The reading (bounded:
regular files only, 16 MiB, JSON depth 64), the decisions (the newest
submission wins, every measured peak counts, TIMEOUT, the next --mem,
--time and --array) and the rendering are the C library's
spacrbench_summarize, the same code `spacrbench summarize` runs; this
module calls it and returns its document as dataclasses (_summary.py)."""

from __future__ import annotations

import errno
import json
import os
from typing import Any, Optional

from ._binding import check, ffi, lib
from ._errors import SpacrbenchFileNotFoundError, SpacrbenchTypeError, SpacrbenchValueError
from ._summary import NeedsYou, Summary, TaskSummary, summary_of

__all__ = ["NeedsYou", "Summary", "TaskSummary", "summarize"]


def _path(value: Any, name: str) -> bytes:
    try:
        path = os.fsencode(os.fspath(value))
    except TypeError:
        raise SpacrbenchTypeError(f"summarize(): {name} must be a path (str or os.PathLike), "
                                  f"not {type(value).__name__}") from None
    if b"\0" in path:
        raise SpacrbenchValueError(f"{name} must not contain a NUL character, got {value!r}")
    return path


def _missing(path: bytes, name: str, what: str) -> SpacrbenchFileNotFoundError:
    """The error for a path that is not there, or is there but not a
    `what` (no such directory either way: ENOENT): errno and filename set,
    the message naming the argument."""
    why = "does not exist" if not os.path.lexists(path) else f"is not a {what}"
    return SpacrbenchFileNotFoundError(errno.ENOENT, f"summarize(): {name} {why}",
                                       os.fsdecode(path))


def _document(directory: bytes, job_script: Optional[bytes]) -> str:
    out = ffi.new("spacrbench_summary **")
    check(lib.spacrbench_summarize(directory, job_script if job_script else ffi.NULL, out),
          "summarize")
    try:
        n = check(lib.spacrbench_summary_json(out[0], ffi.NULL, 0), "summarize")
        buf = ffi.new("char[]", n + 1)
        check(lib.spacrbench_summary_json(out[0], buf, n + 1), "summarize")
        return bytes(ffi.buffer(buf, n)).decode("utf-8", "replace")
    finally:
        lib.spacrbench_summary_free(out[0])


def summarize(directory: "os.PathLike[str] | str",
              job_script: "Optional[os.PathLike[str] | str]" = None) -> Summary:
    """Read directory/task-*.json (and the array's manifest) and summarize
    them; job_script: the script the tasks ran, whose #SBATCH --array says
    which tasks there were (else the manifest, else what DIR shows).
    SpacrbenchFileNotFoundError (a FileNotFoundError, so an OSError, and a
    SpacrbenchError) naming the argument for a directory or job_script
    that is not there (or not a directory / a file); TypeError for a value
    that is not a path; ValueError (the library's words) for a directory
    that holds nothing to summarize."""
    path = _path(directory, "directory")
    job = _path(job_script, "job_script") if job_script is not None else None
    if not os.path.isdir(path):
        raise _missing(path, "directory", "directory")
    if job is not None and not os.path.isfile(job):
        raise _missing(job, "job_script", "regular file")
    return summary_of(json.loads(_document(path, job)))
