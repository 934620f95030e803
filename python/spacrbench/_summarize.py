"""``spacrbench summarize DIR`` and ``spacrbench.summarize(dir)``: like SLURM's
seff, per task. Reads the task reports a job script wrote
(DIR/task-<index>.json, `spacrbench run --json --report`), sets what each
task used (peak memory, CPU time, wall time) against what it asked for (the
run document's "job" member: SLURM_MEM_PER_NODE, SLURM_CPUS_PER_TASK),
names the failures (exit status, OOM), and gives --mem, --cpus-per-task and
the array concurrency for the next submission by the library's margin rule
(docs/scheduler-handoff.md), from the largest peak any task reached (an
OOM-killed task counts with the limit it hit: it needed more)."""

from __future__ import annotations

import glob
import json
import math
import os
import re
import sys
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional, Tuple

from ._convert import format_bytes
from ._types import Measurement

_MIB = 1 << 20
_STOPPED = re.compile(r"stopped at item \d+ \((.*)\): (.*) after [0-9.]+ s")


@dataclass(frozen=True)
class TaskSummary:
    """One task: what it asked for, what it used, how it ended."""

    task: int
    item: Optional[str]
    report: str
    requested_mem_bytes: Optional[int]
    requested_cpus: Optional[int]
    peak_rss_bytes: Optional[int]
    seconds: float
    cpu_seconds: Optional[float]
    oom_limit_bytes: int
    failed: bool
    failure: str  # "" when it succeeded, else the run's own words

    @property
    def memory_use(self) -> Optional[float]:
        """Peak / requested memory (1.0 = all of it)."""
        if not self.requested_mem_bytes or self.peak_rss_bytes is None:
            return None
        return self.peak_rss_bytes / self.requested_mem_bytes

    @property
    def cpu_efficiency(self) -> Optional[float]:
        """CPU seconds / (wall seconds x requested CPUs), as seff."""
        cpus = self.requested_cpus or 1
        if self.cpu_seconds is None or self.seconds <= 0:
            return None
        return self.cpu_seconds / (self.seconds * cpus)

    @property
    def out_of_memory(self) -> bool:
        return self.oom_limit_bytes > 0


@dataclass(frozen=True)
class Summary:
    """All tasks, and the settings for the next submission."""

    directory: str
    tasks: Tuple[TaskSummary, ...]
    peak_rss_bytes: int
    mem_per_task_bytes: int
    cpus_per_task: int
    array_concurrency: int
    text: str

    @property
    def failed(self) -> int:
        return sum(t.failed for t in self.tasks)

    @property
    def out_of_memory(self) -> int:
        return sum(t.out_of_memory for t in self.tasks)

    def to_dict(self) -> Dict[str, Any]:
        tasks = []
        for t in self.tasks:
            d = asdict(t)
            d["memory_use"] = t.memory_use
            d["cpu_efficiency"] = t.cpu_efficiency
            d["out_of_memory"] = t.out_of_memory
            tasks.append(d)
        return {"directory": self.directory, "tasks": tasks, "failed": self.failed,
                "out_of_memory": self.out_of_memory, "peak_rss_bytes": self.peak_rss_bytes,
                "next": {"mem_per_task_bytes": self.mem_per_task_bytes,
                         "cpus_per_task": self.cpus_per_task,
                         "array_concurrency": self.array_concurrency},
                "report": self.text}

    def __str__(self) -> str:
        return self.text


def _int_env(job: Dict[str, Any], name: str) -> Optional[int]:
    try:
        return int(str(job[name]))
    except (KeyError, ValueError):
        return None


def _task(path: str, doc: Dict[str, Any]) -> TaskSummary:
    job = doc.get("job") or {}
    m = doc.get("measurement") or {}
    stem = os.path.basename(path)[len("task-"):-len(".json")]
    index = _int_env(job, "SLURM_ARRAY_TASK_ID")
    if index is None:
        index = int(stem) if stem.isdigit() else -1
    mem_mib = _int_env(job, "SLURM_MEM_PER_NODE")
    records = m.get("records") or []
    item = records[0].get("item") if records else None
    failure = ""
    for note in m.get("notes") or []:
        hit = _STOPPED.search(note)
        if hit:
            item = item if item is not None else hit.group(1)
            failure = hit.group(2)
    failed = bool(m.get("stopped")) or bool(failure)
    if failed and not failure:
        failure = f"stopped (work result {m.get('work_result')})"
    return TaskSummary(task=index, item=item, report=path,
                       requested_mem_bytes=mem_mib * _MIB if mem_mib else None,
                       requested_cpus=_int_env(job, "SLURM_CPUS_PER_TASK"),
                       peak_rss_bytes=m.get("peak_rss_bytes"),
                       seconds=float(m.get("seconds") or 0.0),
                       cpu_seconds=m.get("cpu_seconds"),
                       oom_limit_bytes=int(m.get("oom_limit_bytes") or 0),
                       failed=failed, failure=failure)


def _read(directory: str) -> List[TaskSummary]:
    paths = glob.glob(os.path.join(glob.escape(directory), "task-*.json"))
    tasks = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            try:
                doc = json.load(f)
            except ValueError as e:
                raise ValueError(f"{path} is not a task report (JSON): {e}") from None
        if not isinstance(doc, dict) or doc.get("mode") != "run":
            raise ValueError(f"{path} is not a `spacrbench run --json` report")
        tasks.append(_task(path, doc))
    return sorted(tasks, key=lambda t: (t.task, t.report))


def _next_settings(tasks: List[TaskSummary]) -> Tuple[int, int, int, int]:
    """(peak, --mem, --cpus-per-task, concurrency) by the library's rule,
    from the largest peak and all the tasks' time, on this machine."""
    from ._handoff import schedule_of
    from ._recommend import recommend_workers

    peaks = [t.peak_rss_bytes for t in tasks if t.peak_rss_bytes]
    peaks += [t.oom_limit_bytes for t in tasks if t.oom_limit_bytes]
    if not peaks:
        raise ValueError("no task report holds a peak memory: nothing to size from")
    timed = [t for t in tasks if not t.failed and t.cpu_seconds is not None]
    seconds = sum(t.seconds for t in timed)
    cpu = sum(float(t.cpu_seconds or 0.0) for t in timed)
    m = Measurement(items=max(1, len(timed)), seconds=seconds if seconds > 0 else 1.0,
                    peak_rss_bytes=max(peaks), cpu_seconds=cpu if seconds > 0 else None,
                    oom_limit_bytes=max(t.oom_limit_bytes for t in tasks))
    sched = schedule_of(recommend_workers(m), "summarize")
    return (max(peaks), int(sched.mem_per_task_bytes), int(sched.cpus_per_task),
            int(sched.array_concurrency))


def _pct(x: Optional[float]) -> str:
    return "-" if x is None or math.isnan(x) else f"{100 * x:.0f}%"


def _label(item: Optional[str]) -> str:
    if item is None:
        return "?"
    shown = item.encode("unicode_escape").decode("ascii")  # one line, no escapes
    return shown if len(shown) <= 24 else shown[:21] + "..."


def _text(directory: str, tasks: List[TaskSummary], peak: int, mem: int, cpus: int,
          conc: int) -> str:
    failed = [t for t in tasks if t.failed]
    ooms = [t for t in tasks if t.out_of_memory]
    lines = [f"spacrbench summarize {directory}: {len(tasks)} task(s), "
             f"{len(failed)} failed ({len(ooms)} out of memory)",
             f"{'task':>5}  {'item':<24}  {'requested':>10}  {'peak':>10}  {'mem use':>7}  "
             f"{'CPU eff':>7}  {'wall':>8}  result"]
    for t in tasks:
        req = format_bytes(t.requested_mem_bytes) if t.requested_mem_bytes else "-"
        used = format_bytes(t.peak_rss_bytes) if t.peak_rss_bytes is not None else "-"
        if t.out_of_memory:
            used = ">" + format_bytes(t.oom_limit_bytes)
        lines.append(f"{t.task:>5}  {_label(t.item):<24}  {req:>10}  {used:>10}  "
                     f"{_pct(t.memory_use):>7}  {_pct(t.cpu_efficiency):>7}  "
                     f"{t.seconds:>7.2f}s  {t.failure or 'ok'}")
    requested = {t.requested_mem_bytes for t in tasks if t.requested_mem_bytes}
    lines.append(f"largest peak {format_bytes(peak)}"
                 + (f" (at least: {len(ooms)} task(s) were OOM-killed at their limit and "
                    "needed more)" if ooms else ""))
    if requested:
        lines.append(f"requested --mem {', '.join(format_bytes(r) for r in sorted(requested))}")
    last = max(t.task for t in tasks)
    lines += ["next submission (peak + max(25%, 256 MiB), rounded up to a MiB; CPUs from the "
              "measured CPU time; concurrency for a node like this one):",
              f"  #SBATCH --mem={mem // _MIB}M",
              f"  #SBATCH --cpus-per-task={cpus}",
              f"  #SBATCH --array=0-{last}%{conc}",
              f"  or: sbatch --mem={mem // _MIB}M --cpus-per-task={cpus} "
              f"--array=0-{last}%{conc} JOB_SCRIPT"]
    if ooms:
        lines.append("an OOM-killed task shows only a lower bound: if it fails again, "
                     "summarize again after the resubmission")
    return "\n".join(lines) + "\n"


def summarize(directory: str) -> Summary:
    """Read directory/task-*.json and summarize them (see the module)."""
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"{directory} is not a directory")
    tasks = _read(directory)
    if not tasks:
        raise FileNotFoundError(f"no task reports (task-*.json) in {directory}")
    peak, mem, cpus, conc = _next_settings(tasks)
    return Summary(directory=directory, tasks=tuple(tasks), peak_rss_bytes=peak,
                   mem_per_task_bytes=mem, cpus_per_task=cpus, array_concurrency=conc,
                   text=_text(directory, tasks, peak, mem, cpus, conc))


USAGE = "usage: spacrbench summarize DIR [--json]"


def main(argv: List[str]) -> int:
    """The command: 0 all tasks succeeded, 3 some failed, 1 nothing to
    read, 2 bad arguments."""
    args = [a for a in argv if a != "--json"]
    if any(a in ("-h", "--help") for a in args):
        print(USAGE)
        return 0
    if len(args) != 1 or args[0].startswith("-"):
        print(f"spacrbench: summarize: {USAGE}", file=sys.stderr)
        return 2
    try:
        s = summarize(args[0])
    except (OSError, ValueError) as e:
        print(f"spacrbench: summarize: {e}", file=sys.stderr)
        return 1
    if "--json" in argv:
        print(json.dumps(s.to_dict(), indent=2))
    else:
        sys.stdout.write(s.text)
    return 3 if s.failed else 0
