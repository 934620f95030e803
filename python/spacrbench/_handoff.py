"""Scheduler hand-off beyond today's #SBATCH lines: the job script that
submits as is (spacrbench_format_slurm_script, the same C text as
`spacrbench run --emit slurm --items FILE`) and dask_jobqueue.SLURMCluster
keyword arguments, both from the library's schedule (one margin rule)."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence

from ._binding import check, ffi, format_text, lib, new_struct
from ._convert import c_measurement, c_recommendation
if TYPE_CHECKING:
    from ._results import Recommendation


def schedule_of(rec: Recommendation, what: str) -> Any:
    """The library's spacrbench_schedule for rec (and its measurement)."""
    sched = new_struct("spacrbench_schedule")
    with c_measurement(rec.measurement) as cm:
        check(lib.spacrbench_schedule_compute(cm, c_recommendation(rec), sched), what)
    return sched


def read_items(path: str) -> List[str]:
    """The items of a file as `spacrbench run --items` reads them: one per
    line, a trailing CR dropped, empty lines skipped."""
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    items = []
    for line in lines:
        if line.endswith(b"\r"):
            line = line[:-1]
        if line:
            items.append(line.decode("utf-8", "surrogateescape"))
    return items


def _own_command() -> str:
    """The C command this package ships, else `spacrbench` from PATH."""
    from ._cli import command_path

    exe = command_path()
    if os.access(exe, os.X_OK):
        return str(exe)
    found = shutil.which("spacrbench")
    return found if found else "spacrbench"


def slurm_script(rec: Recommendation, items_file: str, output_dir: str,
                 command: Sequence[str], job_name: Optional[str] = None,
                 extra: Iterable[str] = (), spacrbench: Optional[str] = None) -> str:
    """The job script; creates output_dir (SLURM opens its logs there
    before the script runs), and only once every argument has been checked
    and the script written: a call that raises leaves no folder behind."""
    from ._directives import directive_list

    if isinstance(command, (str, bytes)) or not hasattr(command, "__iter__"):
        raise TypeError("command must be a non-empty list of arguments, {} for the item")
    args = [str(a) for a in command]
    if not args:
        raise TypeError("command must be a non-empty list of arguments, {} for the item")
    directives = directive_list(extra)
    keep: List[Any] = []  # the cdata the struct points into, alive until formatted

    def text(value: str, name: str) -> Any:
        if "\0" in value:
            raise ValueError(f"{name} must not contain a NUL character (the C string would "
                             f"end there), got {value!r}")
        keep.append(ffi.new("char[]", os.fsencode(value)))
        return keep[-1]

    def array(values: Sequence[str], name: str) -> Any:
        keep.append(ffi.new("const char *[]",
                            [text(v, f"{name}[{i}]") for i, v in enumerate(values)]
                            or [ffi.NULL]))
        return keep[-1]

    items_path = text(os.path.abspath(os.fspath(items_file)), "items_file")
    out_path = text(os.path.abspath(os.fspath(output_dir)), "output_dir")
    items = read_items(items_file)
    if not items:
        raise ValueError(f"{items_file} holds no items (one per line)")
    job = ffi.new("spacrbench_slurm_job *")
    check(lib.spacrbench_slurm_job_init(job, ffi.sizeof("spacrbench_slurm_job")), "to_slurm")
    job.items_file = items_path
    job.n_items = len(items)
    job.output_dir = out_path
    job.job_name = text(str(job_name), "job_name") if job_name is not None else ffi.NULL
    job.command = array(args, "command")
    job.command_len = len(args)
    job.spacrbench = text(spacrbench if spacrbench is not None else _own_command(),
                          "spacrbench")
    job.directives = array(directives, "extra")
    job.n_directives = len(directives)
    sched = schedule_of(rec, "to_slurm")
    with c_measurement(rec.measurement) as cm:
        script = format_text(
            lambda buf, cap: lib.spacrbench_format_slurm_script(cm, sched, job, buf, cap),
            "to_slurm")
    os.makedirs(output_dir, exist_ok=True)
    return script


def slurm_cluster_settings(rec: Recommendation, extra: Iterable[str] = ()) -> Dict[str, Any]:
    """dask_jobqueue.SLURMCluster keyword arguments: one worker process per
    job with the schedule's CPUs and memory (margin included)."""
    from ._directives import directive_list

    extra = directive_list(extra)
    sched = schedule_of(rec, "to_dask")
    return {"cores": int(sched.cpus_per_task),
            "processes": 1,
            "memory": f"{int(sched.memory_limit_bytes) >> 20}MiB",
            "job_extra_directives": [str(d) for d in extra]}
