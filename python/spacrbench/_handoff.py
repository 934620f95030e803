"""Scheduler hand-off: #SBATCH lines, Dask settings and the job script, from the library's schedule."""

from __future__ import annotations

import errno
import os
import shutil
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence

from ._binding import check, ffi, format_text, lib, new_struct
from ._convert import c_recommendation, c_string, handoff_measurement
from ._errors import SpacrbenchFileNotFoundError, SpacrbenchTypeError, SpacrbenchValueError

if TYPE_CHECKING:
    from ._results import Recommendation


def directive_list(extra: Any) -> List[str]:
    """extra (#SBATCH options) as a list of str; a single string is refused."""
    if isinstance(extra, (str, bytes)):
        raise SpacrbenchTypeError(f"extra must be a list of #SBATCH options, not a single "
                                  f"{type(extra).__name__} ({extra!r}); write extra=[{extra!r}]")
    try:
        options = iter(extra)
    except TypeError:
        raise SpacrbenchTypeError(f"extra must be a list of #SBATCH options, not "
                                  f"{type(extra).__name__} ({extra!r})") from None
    return [str(d) for d in options]


def dask_fraction() -> float:
    """The smallest enabled worker memory fraction of the installed distributed (0.6 without it)."""
    import importlib

    try:  # the config alone: no cluster, no worker; distributed loads its defaults
        config: Any = importlib.import_module("dask.config")
        importlib.import_module("distributed")
    except ImportError:
        return 0.6
    found = [float(v) for v in (config.get(f"distributed.worker.memory.{name}", default=None)
                                for name in ("target", "spill", "pause", "terminate"))
             if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= 1]
    return min(found) if found else 1.0


def dask_memory_limit(sched: Any, what: str) -> int:
    """memory_limit for a worker: the schedule's memory below that fraction."""
    out = ffi.new("int64_t *")
    check(lib.spacrbench_dask_memory_limit(sched.mem_per_task_bytes, dask_fraction(), out), what)
    return int(out[0])


def schedule_of(rec: Recommendation, what: str) -> Any:
    """The library's spacrbench_schedule for rec (and its measurement)."""
    sched, cr = new_struct("spacrbench_schedule"), c_recommendation(rec)
    with handoff_measurement(rec.measurement, what) as cm:  # a plate's: its largest item's
        check(lib.spacrbench_schedule_compute(cm, cr, sched), what)
    return sched


def handoff_text(rec: Recommendation, what: str) -> str:
    """The library's #SBATCH lines (to_slurm) or LocalCluster snippet (to_dask) of rec."""
    fn = lib.spacrbench_format_slurm if what == "to_slurm" else lib.spacrbench_format_dask
    cr = c_recommendation(rec)
    with handoff_measurement(rec.measurement, what) as cm:
        return format_text(lambda buf, cap: fn(cm, cr, buf, cap), what)


def dask_settings(rec: Recommendation) -> Dict[str, int]:
    """LocalCluster keyword arguments from the library's schedule."""
    sched = schedule_of(rec, "to_dask")
    return {"n_workers": int(sched.n_workers),
            "threads_per_worker": int(sched.threads_per_worker),
            "memory_limit": dask_memory_limit(sched, "to_dask")}


def _item_count(path: str) -> int:
    """How many items the file holds (spacrbench_slurm_count_items)."""
    if not os.path.exists(path):
        raise SpacrbenchFileNotFoundError(errno.ENOENT, "to_slurm(): items_file does not exist",
                                          path)
    n = ffi.new("int64_t *")
    check(lib.spacrbench_slurm_count_items(os.fsencode(path), n), "to_slurm(): items_file")
    return int(n[0])


def _own_command() -> str:
    """The C command this package ships, else `spacrbench` from PATH."""
    from ._cli import command_path

    exe = command_path()
    if os.access(exe, os.X_OK):
        return str(exe)
    return shutil.which("spacrbench") or "spacrbench"


def _walltime(rec: Recommendation) -> str:
    """SLURMCluster's walltime: the library's --time of the measurement."""
    with handoff_measurement(rec.measurement, "to_dask") as cm:
        return format_text(lambda buf, cap: lib.spacrbench_format_time_limit(cm, buf, cap),
                           "to_dask")


def slurm_script(rec: Recommendation, items_file: str, output_dir: str,
                 command: Sequence[str], job_name: Optional[str] = None,
                 extra: Iterable[str] = (), spacrbench: Optional[str] = None,
                 array_limit: Optional[int] = None) -> str:
    """The job script; creates output_dir with the array's index and manifest
    only once everything is checked (a call that raises leaves no folder)."""
    if isinstance(command, (str, bytes)) or not hasattr(command, "__iter__"):
        raise SpacrbenchTypeError("command must be a non-empty list of arguments, {} for the item")
    args = [str(a) for a in command]
    if not args:
        raise SpacrbenchTypeError("command must be a non-empty list of arguments, {} for the item")
    directives = list(extra)
    keep: List[Any] = []  # the cdata the struct points into, alive until formatted

    def text(value: str, name: str) -> Any:
        keep.append(ffi.new("char[]", c_string(value, name)))
        return keep[-1]

    def array(values: Sequence[str], name: str) -> Any:
        keep.append(ffi.new("const char *[]",
                            [text(v, f"{name}[{i}]") for i, v in enumerate(values)]
                            or [ffi.NULL]))
        return keep[-1]

    if array_limit is not None and (isinstance(array_limit, bool)
                                    or not isinstance(array_limit, int)
                                    or not 1 <= array_limit <= 1_000_000):
        raise SpacrbenchValueError(f"array_limit must be a whole number of tasks from 1 to 1000000 "
                         f"(at most that many at once on the whole cluster), got "
                         f"{array_limit!r}")
    items_path = text(os.path.abspath(os.fspath(items_file)), "items_file")
    out_path = text(os.path.abspath(os.fspath(output_dir)), "output_dir")
    n_items = _item_count(items_file)
    if not n_items:
        raise SpacrbenchValueError(f"{items_file} holds no items (one per line)")
    job = ffi.new("spacrbench_slurm_job *")
    check(lib.spacrbench_slurm_job_init(job, ffi.sizeof("spacrbench_slurm_job")), "to_slurm")
    job.items_file = items_path
    job.n_items = n_items
    job.output_dir = out_path
    job.job_name = text(str(job_name), "job_name") if job_name is not None else ffi.NULL
    job.command = array(args, "command")
    job.command_len = len(args)
    job.spacrbench = text(spacrbench if spacrbench is not None else _own_command(),
                          "spacrbench")
    job.directives = array(directives, "extra")
    job.n_directives = len(directives)
    tasks = ffi.new("spacrbench_slurm_tasks *")
    check(lib.spacrbench_slurm_tasks_init(tasks, ffi.sizeof("spacrbench_slurm_tasks")),
          "to_slurm")
    tasks.array_limit = array_limit or 0
    sched = schedule_of(rec, "to_slurm")
    with handoff_measurement(rec.measurement, "to_slurm") as cm:
        script = format_text(
            lambda buf, cap: lib.spacrbench_format_slurm_job(cm, sched, job, tasks, buf, cap),
            "to_slurm")
        made = _make_dirs(os.path.abspath(os.fspath(output_dir)))
        try:
            check(lib.spacrbench_slurm_write_array(cm, sched, job, tasks), "to_slurm")
        except BaseException:
            _unmake_dirs(made)
            raise
    return script


def _make_dirs(path: str) -> List[str]:
    """mkdir -p, returning the directories THIS call made (outermost first)."""
    missing: List[str] = []
    head = path
    while head and not os.path.isdir(head):
        missing.append(head)
        parent = os.path.dirname(head)
        if parent == head:
            break
        head = parent
    made: List[str] = []
    for d in reversed(missing):
        try:
            os.mkdir(d)
            made.append(d)
        except FileExistsError:
            pass  # another process made it: never ours to remove
        except BaseException:
            _unmake_dirs(made)
            raise
    return made


def _unmake_dirs(made: List[str]) -> None:
    """Remove what _make_dirs made while empty (rmdir, never rmtree)."""
    for d in reversed(made):
        try:
            os.rmdir(d)
        except OSError:
            break


def slurm_cluster_settings(rec: Recommendation, extra: Iterable[str] = ()) -> Dict[str, Any]:
    """dask_jobqueue.SLURMCluster keyword arguments from the schedule."""
    sched = schedule_of(rec, "to_dask")
    return {"cores": int(sched.cpus_per_task),
            "processes": 1,
            "memory": f"{dask_memory_limit(sched, 'to_dask') >> 20}MiB",
            "walltime": _walltime(rec),
            "job_extra_directives": [str(d) for d in extra]}
