"""summarize(): the library's spacrbench_summarize document as frozen dataclasses."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple, Type, TypeVar

from ._binding import check, ffi, format_text, lib
from ._errors import SpacrbenchFileNotFoundError, SpacrbenchTypeError, SpacrbenchValueError

T = TypeVar("T")


@dataclass(frozen=True)
class TaskSummary:
    """One task's report: what it asked for, what it used, how it ended.
    state: "ok", "failed", "unreadable", "stale", "outside" or "foreign";
    needs: what a task that is not ok needs ("rerun", or see
    Summary.needs_you), None when ok."""

    task: int
    state: str
    item: Optional[str]
    report: str
    result: str  # how it ended, in words ("ok", "OOM-killed (limit 256.0 MiB)", ...)
    requested_mem_bytes: Optional[int]
    requested_cpus: Optional[int]
    requested_time_minutes: Optional[int]
    peak_rss_bytes: Optional[int]  # a failed task's: a lower bound
    seconds: Optional[float]
    cpu_seconds: Optional[float]
    oom_limit_bytes: int
    out_of_memory: bool
    timeout: bool  # SLURM's time limit ended it
    item_timeout: bool  # the measuring run's --timeout ended its item
    array_job: Optional[str]
    exit_status: Optional[int]
    signal: Optional[int]
    array_key: Optional[str] = None  # the key of the script that ran it
    needs: Optional[str] = None
    preempted: bool = False  # its SLURM log says DUE TO PREEMPTION

    @property
    def failed(self) -> bool:
        """Needs a resubmission (failed, unreadable or stale)."""
        return self.state in ("failed", "unreadable", "stale")

    @property
    def failure(self) -> str:
        return "" if self.state == "ok" else self.result

    @property
    def unreadable(self) -> bool:
        return self.state == "unreadable"

    @property
    def memory_use(self) -> Optional[float]:
        """Peak / requested memory (1.0 = all of it)."""
        if not self.requested_mem_bytes or self.peak_rss_bytes is None:
            return None
        return self.peak_rss_bytes / self.requested_mem_bytes

    @property
    def cpu_efficiency(self) -> Optional[float]:
        """CPU seconds / (wall seconds x requested CPUs), as seff."""
        if self.cpu_seconds is None or not self.seconds:
            return None
        return self.cpu_seconds / (self.seconds * (self.requested_cpus or 1))

    @property
    def time_use(self) -> Optional[float]:
        """Elapsed / the --time limit (seff's wall-clock efficiency)."""
        if self.seconds is None or not self.requested_time_minutes:
            return None
        return self.seconds / (self.requested_time_minutes * 60)


@dataclass(frozen=True)
class NeedsYou:
    """Tasks a resubmission with more memory or time does not fix, and the
    lines summarize offers for them. reason: "item_timeout",
    "command_failed", "job_files" or "beyond_limits"."""

    reason: str
    tasks: str  # their indices, as sbatch --array takes them
    count: int
    commands: Tuple[str, ...]


@dataclass(frozen=True)
class Summary:
    """All tasks, and the command line(s) of the next submission."""

    directory: str
    tasks: Tuple[TaskSummary, ...]
    array: str  # the array's task indices, as sbatch --array takes them
    array_source: str
    missing_tasks: str  # the indices without a report ("5-999999")
    missing: int  # how many (stale reports included)
    failed: int
    out_of_memory: int
    timed_out: int
    unreadable: int
    peak_rss_bytes: Optional[int]
    next_array: str  # only the tasks to rerun ("" when none)
    mem_per_task_bytes: Optional[int]
    cpus_per_task: int
    time_minutes: Optional[int]
    time: Optional[str]  # "HH:MM:SS", as sbatch --time takes it
    command: Optional[str]  # the next sbatch command line, runs as is
    status: int  # 0 all ok, 3 some task needs a resubmission (or the user)
    text: str
    document: Dict[str, Any]
    commands: Tuple[str, ...] = ()  # every line of the next submission
    needs_you: Tuple[NeedsYou, ...] = ()
    foreign: int = 0  # reports of another array in the directory, not counted

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.document)

    def __str__(self) -> str:
        return self.text


def _read(cls: Type[T], d: Dict[str, Any], **given: Any) -> T:
    """A cls from the document's object d, member by field name."""
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        v, kind = d.get(f.name), str(f.type)
        given.setdefault(f.name, bool(v) if kind == "bool" else int(v or 0) if kind == "int"
                         else str(v or "") if kind == "str" else v)
    return cls(**given)


def summary_of(doc: Dict[str, Any]) -> Summary:
    """The Summary of the library's JSON document."""
    counts = doc["counts"]
    nxt = doc["next"]
    return Summary(
        directory=str(doc["directory"]), tasks=tuple(_read(TaskSummary, t) for t in doc["tasks"]),
        array=str(doc["array"]), array_source=str(doc.get("array_source") or ""),
        missing_tasks=str(doc["missing"]),
        missing=int(counts["missing"]) + int(counts["stale"]),
        failed=int(counts["failed"]), out_of_memory=int(counts["out_of_memory"]),
        timed_out=int(counts["timeout"]), unreadable=int(counts["unreadable"]),
        peak_rss_bytes=doc.get("peak_rss_bytes"), next_array=str(nxt["array"]),
        mem_per_task_bytes=nxt.get("mem_per_task_bytes"),
        cpus_per_task=int(nxt["cpus_per_task"]), time_minutes=nxt.get("time_minutes"),
        time=nxt.get("time"), command=nxt.get("command"), status=int(doc["status"]),
        text=str(doc["report"]), document=doc,
        commands=tuple(str(c) for c in nxt.get("commands") or ()),
        needs_you=tuple(_read(NeedsYou, n, commands=tuple(str(c) for c in n.get("commands") or ()))
                        for n in doc.get("needs_you") or ()),
        foreign=int(counts.get("foreign") or 0))


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
    """The FileNotFoundError for a path that is not there or not a `what`."""
    why = "does not exist" if not os.path.lexists(path) else f"is not a {what}"
    return SpacrbenchFileNotFoundError(errno.ENOENT, f"summarize(): {name} {why}",
                                       os.fsdecode(path))


def summarize(directory: "os.PathLike[str] | str",
              job_script: "Optional[os.PathLike[str] | str]" = None) -> Summary:
    """Read directory/task-*.json (and the array's manifest) and summarize
    them; job_script: the script the tasks ran. SpacrbenchFileNotFoundError
    naming the argument for a path that is not there."""
    path = _path(directory, "directory")
    job = _path(job_script, "job_script") if job_script is not None else None
    if not os.path.isdir(path):
        raise _missing(path, "directory", "directory")
    if job is not None and not os.path.isfile(job):
        raise _missing(job, "job_script", "regular file")
    out = ffi.new("spacrbench_summary **")
    check(lib.spacrbench_summarize(path, job if job else ffi.NULL, out), "summarize")
    try:
        return summary_of(json.loads(format_text(
            lambda buf, cap: lib.spacrbench_summary_json(out[0], buf, cap), "summarize")))
    finally:
        lib.spacrbench_summary_free(out[0])
