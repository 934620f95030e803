"""``spacrbench summarize DIR`` and ``spacrbench.summarize(dir)``: like SLURM's
seff, per task. Reads the task reports a job script wrote
(DIR/task-<index>.json, `spacrbench run --json --report`), sets what each
task used (peak memory, CPU time, wall time) against what it asked for (the
run document's "job" member: SLURM_MEM_PER_NODE, SLURM_CPUS_PER_TASK),
names the failures (exit status, OOM), and gives --mem, --cpus-per-task and
the array concurrency for the next submission by the library's margin rule
(docs/scheduler-handoff.md), from the largest peak any task reached (an
OOM-killed task counts with the limit it hit: it needed more).

Which tasks the array had: with ``--job JOB_SCRIPT`` (``job_script=``) it
is the script's ``#SBATCH --array`` line (what `spacrbench run --emit
slurm` wrote from the items file's count); without it, the manifest that
`run --emit slurm` writes beside the reports (DIR/spacrbench-array.json,
its "tasks"); without either (an older spacrbench), every index up to the
highest one DIR shows (a report, or a
SLURM log slurm-<array job>_<index>.out of the same array). A task in that
set with no report (killed by SIGKILL, node failure, cancelled, never
started) is a failed task whose memory is unknown, and stays in the next
submission's --array. So is a report that cannot be read (not JSON, not a
run document, a member of the wrong kind): named, with what is wrong."""

from __future__ import annotations

import glob
import json
import math
import os
import re
import sys
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional, Set, Tuple

from ._convert import format_bytes
from ._results import Measurement

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
    missing: bool = False  # no report: what it used is unknown
    unreadable: bool = False  # a report that cannot be read (failure says why)

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
    array: str = ""  # the array's task indices, as sbatch --array takes them
    array_source: str = ""  # where they come from (the job script, or DIR)

    @property
    def failed(self) -> int:
        return sum(t.failed for t in self.tasks)

    @property
    def missing(self) -> int:
        """Tasks of the array that left no report."""
        return sum(t.missing for t in self.tasks)

    @property
    def unreadable(self) -> int:
        """Reports that cannot be read (not JSON, or not a run report)."""
        return sum(t.unreadable for t in self.tasks)

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
                "out_of_memory": self.out_of_memory, "missing": self.missing,
                "unreadable": self.unreadable,
                "peak_rss_bytes": self.peak_rss_bytes,
                "array": self.array, "array_source": self.array_source,
                "next": {"mem_per_task_bytes": self.mem_per_task_bytes,
                         "cpus_per_task": self.cpus_per_task,
                         "array_concurrency": self.array_concurrency,
                         "array": self.array},
                "report": self.text}

    def __str__(self) -> str:
        return self.text


_INT64_MAX = (1 << 63) - 1
_BYTES_MAX = 1 << 60  # 1 EiB: more than any node has, and room for the margin rule


class _Malformed(Exception):
    """What is wrong in a report (the caller names the file)."""


def _shown(value: Any) -> str:
    """A JSON value, short, for a message."""
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _object(doc: Dict[str, Any], key: str, where: str = "") -> Dict[str, Any]:
    value = doc.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Malformed(f'"{where}{key}" is {_shown(value)}, not an object')
    return value


def _list(doc: Dict[str, Any], key: str, kind: type, what: str) -> List[Any]:
    value = doc.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Malformed(f'"measurement.{key}" is {_shown(value)}, not a list')
    for i, v in enumerate(value):
        if not isinstance(v, kind):
            raise _Malformed(f'"measurement.{key}[{i}]" is {_shown(v)}, not {what}')
    return value


def _int_env(job: Dict[str, Any], name: str, most: int = _INT64_MAX) -> Optional[int]:
    """A whole number the job recorded (SLURM writes them as text)."""
    value = job.get(name)
    if value is None:
        return None
    text = value if isinstance(value, str) else None
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value)
    if text is None or not text.isdigit() or not text.isascii() or int(text) > most:
        raise _Malformed(f'"job.{name}" is {_shown(value)}, not a whole number')
    return int(text)


def _bytes(m: Dict[str, Any], key: str) -> Optional[int]:
    value = m.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _BYTES_MAX:
        raise _Malformed(f'"measurement.{key}" is {_shown(value)}, not a byte count '
                         "(0 to 1 EiB)")
    return value


def _seconds(m: Dict[str, Any], key: str) -> Optional[float]:
    value = m.get(key)
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or value < 0):
        raise _Malformed(f'"measurement.{key}" is {_shown(value)}, not a number of seconds')
    return float(value)


def _stem_index(path: str) -> Optional[int]:
    stem = os.path.basename(path)[len("task-"):-len(".json")]
    return int(stem) if stem.isdigit() and stem.isascii() else None


def _task(path: str, doc: Any) -> TaskSummary:
    """One report; _Malformed says what in it cannot be read."""
    if not isinstance(doc, dict):
        raise _Malformed(f"not a `spacrbench run --json` report (a JSON {type(doc).__name__}, "
                         "not an object)")
    if doc.get("mode") != "run":
        raise _Malformed(f'not a `spacrbench run --json` report ("mode" is '
                         f'{_shown(doc.get("mode"))}, not "run")')
    job = _object(doc, "job")
    if "measurement" not in doc:
        raise _Malformed('no "measurement"')
    m = _object(doc, "measurement")
    named = _stem_index(path)
    index = _int_env(job, "SLURM_ARRAY_TASK_ID")
    if index is not None and named is not None and index != named:
        raise _Malformed(f'"job.SLURM_ARRAY_TASK_ID" is {_shown(job["SLURM_ARRAY_TASK_ID"])} '
                         f"but the file is named for task {named}")
    if index is None:
        index = named if named is not None else -1
    if index >= _ARRAY_MAX:
        raise _Malformed(f"task index {index} is beyond any SLURM array")
    mem_mib = _int_env(job, "SLURM_MEM_PER_NODE", _INT64_MAX // _MIB)
    cpus = _int_env(job, "SLURM_CPUS_PER_TASK")
    records = _list(m, "records", dict, "an object")
    item = records[0].get("item") if records else None
    if item is not None and not isinstance(item, str):
        raise _Malformed(f'"measurement.records[0].item" is {_shown(item)}, not text')
    failure = ""
    for note in _list(m, "notes", str, "text"):
        hit = _STOPPED.search(note)
        if hit:
            item = item if item is not None else hit.group(1)
            failure = hit.group(2)
    stopped = m.get("stopped")
    if stopped is not None and not isinstance(stopped, bool):
        raise _Malformed(f'"measurement.stopped" is {_shown(stopped)}, not true or false')
    failed = bool(stopped) or bool(failure)
    if failed and not failure:
        failure = f"stopped (work result {_shown(m.get('work_result'))})"
    return TaskSummary(task=index, item=item, report=path,
                       requested_mem_bytes=mem_mib * _MIB if mem_mib else None,
                       requested_cpus=cpus, peak_rss_bytes=_bytes(m, "peak_rss_bytes"),
                       seconds=_seconds(m, "seconds") or 0.0,
                       cpu_seconds=_seconds(m, "cpu_seconds"),
                       oom_limit_bytes=_bytes(m, "oom_limit_bytes") or 0,
                       failed=failed, failure=failure)


def _unreadable(path: str, doc: Any, what: str) -> TaskSummary:
    """A report that cannot be read: a failed task, its index from the
    file name (else the job's), its memory unknown."""
    index = _stem_index(path)
    if index is None and isinstance(doc, dict):
        try:
            index = _int_env(_object(doc, "job"), "SLURM_ARRAY_TASK_ID")
        except _Malformed:
            index = None
    return TaskSummary(task=-1 if index is None else index, item=None, report=path,
                       requested_mem_bytes=None, requested_cpus=None, peak_rss_bytes=None,
                       seconds=0.0, cpu_seconds=None, oom_limit_bytes=0, failed=True,
                       failure=f"unreadable report {os.path.basename(path)}: {what}",
                       unreadable=True)


def _load(path: str) -> Any:
    """A report's JSON; _Malformed when it is not."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise _Malformed(f"cannot be read: {e.strerror or e}") from None
    except RecursionError:
        raise _Malformed("not JSON: nested too deeply") from None
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError
        raise _Malformed(f"not JSON: {e}") from None


def _read(directory: str) -> Tuple[List[TaskSummary], Set[str]]:
    """The reports (an unreadable one as a failed task that says what is
    wrong), and the array job IDs they name."""
    paths = glob.glob(os.path.join(glob.escape(directory), "task-*.json"))
    tasks = []
    jobs: Set[str] = set()
    for path in paths:
        doc: Any = None
        try:
            doc = _load(path)
            tasks.append(_task(path, doc))
        except _Malformed as e:
            tasks.append(_unreadable(path, doc, str(e)))
            continue
        except (TypeError, ValueError, AttributeError, KeyError, IndexError,
                OverflowError) as e:  # what the checks above did not foresee
            tasks.append(_unreadable(path, doc, f"unexpected content ({type(e).__name__}: "
                                                f"{e})"))
            continue
        job = doc.get("job")
        if isinstance(job, dict) and isinstance(job.get("SLURM_ARRAY_JOB_ID"), str):
            jobs.add(job["SLURM_ARRAY_JOB_ID"])
    return sorted(tasks, key=lambda t: (t.task, t.report)), jobs


_LOG = re.compile(r"slurm-(\d+)_(\d+)\.out")
_ARRAY_LINE = re.compile(r"#SBATCH\s+(?:--array(?:=|\s+)|-a\s*)(\S+)")
_ARRAY_PART = re.compile(r"(\d+)(?:-(\d+)(?::(\d+))?)?")
_ARRAY_MAX = 1 << 22  # more task indices than any SLURM allows (MaxArraySize)


def _logs(directory: str, jobs: Set[str]) -> Dict[int, str]:
    """index -> SLURM log (slurm-<array job>_<index>.out, the script's
    --output) in DIR, for the array jobs the reports name: a task that
    started leaves one even when it was killed before writing its report."""
    found: Dict[int, str] = {}
    for name in sorted(os.listdir(directory)):
        hit = _LOG.fullmatch(name)
        if hit and hit.group(1) in jobs:
            found.setdefault(int(hit.group(2)), os.path.join(directory, name))
    return found


def _array_indices(spec: str) -> List[int]:
    """The task indices of an sbatch --array value ("0-11%2", "1,3,5-9:2")."""
    indices: Set[int] = set()
    for part in spec.split("%", 1)[0].split(","):
        hit = _ARRAY_PART.fullmatch(part)
        if not hit:
            raise ValueError(f"--array={spec}: cannot read '{part}'")
        first = int(hit.group(1))
        last = int(hit.group(2)) if hit.group(2) else first
        step = int(hit.group(3)) if hit.group(3) else 1
        if last < first or step < 1 or last >= _ARRAY_MAX:
            raise ValueError(f"--array={spec}: '{part}' is not a range of task indices")
        indices.update(range(first, last + 1, step))
    return sorted(indices)


def _array_spec(indices: List[int]) -> str:
    """Task indices as sbatch --array takes them: runs as first-last."""
    parts: List[str] = []
    ordered = sorted(set(indices))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)


def _job_array(path: str) -> List[int]:
    """The task indices of a job script: its #SBATCH --array line, read
    as sbatch does (#SBATCH lines before the first command; the last wins)."""
    spec = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f):
            line = line.strip()
            if n == 0 and line.startswith("#!"):
                continue
            if line and not line.startswith("#"):
                break
            hit = _ARRAY_LINE.match(line)
            if hit:
                spec = hit.group(1)
    if spec is None:
        raise ValueError(f"{path} has no #SBATCH --array line: give the job script "
                         "`spacrbench run --emit slurm` wrote")
    try:
        return _array_indices(spec)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


MANIFEST = "spacrbench-array.json"


def _manifest_array(directory: str) -> Tuple[Optional[List[int]], str]:
    """The task indices the manifest of `run --emit slurm` gives, with
    where they come from; (None, why) when there is none to use."""
    path = os.path.join(directory, MANIFEST)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        return None, ""
    except (OSError, ValueError) as e:
        return None, f"{path} cannot be read ({e}), so "
    tasks = doc.get("tasks") if isinstance(doc, dict) else None
    if type(tasks) is not int or not 1 <= tasks <= _ARRAY_MAX:
        return None, f"{path} holds no task count from 1 to {_ARRAY_MAX} ({tasks!r}), so "
    return list(range(tasks)), f"from {path} (written with the job script: {tasks} task(s))"


def _missing(directory: str, index: int, log: Optional[str]) -> TaskSummary:
    report = os.path.join(directory, f"task-{index}.json")
    seen = f" (its SLURM log: {os.path.basename(log)})" if log else ""
    return TaskSummary(task=index, item=None, report=report, requested_mem_bytes=None,
                       requested_cpus=None, peak_rss_bytes=None, seconds=0.0,
                       cpu_seconds=None, oom_limit_bytes=0, failed=True,
                       failure=f"no report {os.path.basename(report)}{seen}: killed "
                               "(SIGKILL, node failure), cancelled or never started; "
                               "memory unknown",
                       missing=True)


def _with_missing(directory: str, tasks: List[TaskSummary], jobs: Set[str],
                  job_script: Optional[str]) -> Tuple[List[TaskSummary], List[int], str]:
    """The tasks, those of the array without a report added; the array's
    indices; where they come from."""
    logs = _logs(directory, jobs)
    reported = {t.task for t in tasks if t.task >= 0}
    manifest, why_not = (None, "") if job_script is not None else _manifest_array(directory)
    if job_script is not None:
        expected = _job_array(job_script)
        source = f"from the #SBATCH --array line of {job_script}"
    elif manifest is not None:
        expected, source = manifest, why_not
    else:
        known = {i for i in reported | set(logs) if i < _ARRAY_MAX}
        expected = list(range(max(known) + 1)) if known else []
        source = why_not + (f"as far as {directory} shows (its task reports and SLURM logs): a task "
                  f"after {max(known) if known else 0} that left neither is not seen; "
                  "--job JOB_SCRIPT checks against the script's --array")
    outside = sorted(reported - set(expected))
    if outside:
        source += (f"; report(s) of task(s) {_array_spec(outside)} are not in it (left from "
                   "another submission?): shown and counted, not resubmitted")
    added = [_missing(directory, i, logs.get(i)) for i in expected if i not in reported]
    return (sorted(tasks + added, key=lambda t: (t.task, t.report)), expected, source)


def _next_settings(tasks: List[TaskSummary]) -> Tuple[int, int, int, int]:
    """(peak, --mem, --cpus-per-task, concurrency) by the library's rule,
    from the largest peak and all the tasks' time, on this machine."""
    from ._handoff import schedule_of
    from ._recommend import recommend_workers

    peaks = [t.peak_rss_bytes for t in tasks if t.peak_rss_bytes]
    peaks += [t.oom_limit_bytes for t in tasks if t.oom_limit_bytes]
    if not peaks:
        why = [f"task {t.task}: {t.failure}" for t in tasks if t.failure][:5]
        raise ValueError("no task report holds a peak memory: nothing to size from"
                         + (f" ({'; '.join(why)}{'; ...' if len(why) == 5 else ''})"
                            if why else ""))
    top = max(tasks, key=lambda t: max(t.peak_rss_bytes or 0, t.oom_limit_bytes))
    where = f"the largest peak, task {top.task} ({top.report})"
    timed = [t for t in tasks if not t.failed and t.cpu_seconds is not None]
    seconds = sum(t.seconds for t in timed)
    cpu = sum(float(t.cpu_seconds or 0.0) for t in timed)
    try:
        m = Measurement(items=max(1, len(timed)), seconds=seconds if seconds > 0 else 1.0,
                        peak_rss_bytes=max(peaks), cpu_seconds=cpu if seconds > 0 else None,
                        oom_limit_bytes=max(t.oom_limit_bytes for t in tasks))
        rec = recommend_workers(m)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{where}: {e}") from None
    sched = schedule_of(rec, where)  # its ValueError: "<where>: <the library's words>"
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
          conc: int, array: str, source: str) -> str:
    failed = [t for t in tasks if t.failed]
    ooms = [t for t in tasks if t.out_of_memory]
    missing = [t for t in tasks if t.missing]
    unreadable = [t for t in tasks if t.unreadable]
    unknown = missing + unreadable
    counts = f"{len(ooms)} out of memory"
    if missing:
        counts += f", {len(missing)} without a report"
    if unreadable:
        counts += f", {len(unreadable)} with an unreadable report"
    lines = [f"spacrbench summarize {directory}: {len(tasks)} task(s), "
             f"{len(failed)} failed ({counts})",
             f"tasks {array or '-'}, {source}",
             f"{'task':>5}  {'item':<24}  {'requested':>10}  {'peak':>10}  {'mem use':>7}  "
             f"{'CPU eff':>7}  {'wall':>8}  result"]
    for t in tasks:
        req = format_bytes(t.requested_mem_bytes) if t.requested_mem_bytes else "-"
        used = format_bytes(t.peak_rss_bytes) if t.peak_rss_bytes is not None else "-"
        if t.out_of_memory:
            used = ">" + format_bytes(t.oom_limit_bytes)
        if t.missing or t.unreadable:
            used = "unknown"
        wall = "-" if t.missing or t.unreadable else f"{t.seconds:.2f}s"
        lines.append(f"{t.task:>5}  {_label(t.item):<24}  {req:>10}  {used:>10}  "
                     f"{_pct(t.memory_use):>7}  {_pct(t.cpu_efficiency):>7}  "
                     f"{wall:>8}  {t.failure or 'ok'}")
    requested = {t.requested_mem_bytes for t in tasks if t.requested_mem_bytes}
    lines.append(f"largest peak {format_bytes(peak)}"
                 + (f" (at least: {len(ooms)} task(s) were OOM-killed at their limit and "
                    "needed more)" if ooms else ""))
    if unknown:
        known = _array_spec([t.task for t in unknown if t.task >= 0])
        lines.append(f"memory unknown for {len(unknown)} task(s){' ' + known if known else ''} "
                     "(no report, or an unreadable one): the --mem below comes from the "
                     "others' peaks and may be too small for them")
    if requested:
        lines.append(f"requested --mem {', '.join(format_bytes(r) for r in sorted(requested))}")
    lines += ["next submission (peak + max(25%, 256 MiB), rounded up to a MiB; CPUs from the "
              "measured CPU time; concurrency for a node like this one):",
              f"  #SBATCH --mem={mem // _MIB}M",
              f"  #SBATCH --cpus-per-task={cpus}",
              f"  #SBATCH --array={array}%{conc}",
              f"  or: sbatch --mem={mem // _MIB}M --cpus-per-task={cpus} "
              f"--array={array}%{conc} JOB_SCRIPT"]
    if ooms:
        lines.append("an OOM-killed task shows only a lower bound: if it fails again, "
                     "summarize again after the resubmission")
    if unknown:
        lines.append("a task without a readable report shows nothing of its memory: if it "
                     "fails again, summarize again after the resubmission")
    return "\n".join(lines) + "\n"


def summarize(directory: str, job_script: Optional[str] = None) -> Summary:
    """Read directory/task-*.json and summarize them (see the module);
    job_script: the script the tasks ran, whose --array says which tasks
    there were (else: those DIR shows)."""
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"{directory} is not a directory")
    if job_script is not None:
        job_script = os.fspath(job_script)
    tasks, jobs = _read(directory)
    if not tasks:
        raise FileNotFoundError(f"no task reports (task-*.json) in {directory}")
    tasks, expected, source = _with_missing(directory, tasks, jobs, job_script)
    peak, mem, cpus, conc = _next_settings(tasks)
    array = _array_spec(expected)
    return Summary(directory=directory, tasks=tuple(tasks), peak_rss_bytes=peak,
                   mem_per_task_bytes=mem, cpus_per_task=cpus, array_concurrency=conc,
                   text=_text(directory, tasks, peak, mem, cpus, conc, array, source),
                   array=array, array_source=source)


USAGE = "usage: spacrbench summarize DIR [--job JOB_SCRIPT] [--json]"


def _usage() -> int:
    print(f"spacrbench: summarize: {USAGE}", file=sys.stderr)
    return 2


def main(argv: List[str]) -> int:
    """The command: 0 all tasks succeeded, 3 some failed or left no report,
    1 nothing to read, 2 bad arguments."""
    if any(a in ("-h", "--help") for a in argv):
        print(USAGE)
        return 0
    args: List[str] = []
    job_script: Optional[str] = None
    as_json = False
    rest = list(argv)
    while rest:
        a = rest.pop(0)
        if a == "--json":
            as_json = True
        elif a == "--job" or a.startswith("--job="):
            if a == "--job" and not rest:
                return _usage()
            job_script = rest.pop(0) if a == "--job" else a[len("--job="):]
            if not job_script:
                return _usage()
        elif a.startswith("-"):
            return _usage()
        else:
            args.append(a)
    if len(args) != 1:
        return _usage()
    try:
        s = summarize(args[0], job_script)
    except (OSError, ValueError) as e:
        print(f"spacrbench: summarize: {e}", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps(s.to_dict(), indent=2))
    else:
        sys.stdout.write(s.text)
    return 3 if s.failed else 0
