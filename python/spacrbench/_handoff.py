"""Scheduler hand-off beyond today's #SBATCH lines: the job script that
submits as is (spacrbench_format_slurm_script, the same C text as
`spacrbench run --emit slurm --items FILE`) and dask_jobqueue.SLURMCluster
keyword arguments, both from the library's schedule (one margin rule)."""

from __future__ import annotations

import os
import shutil
from typing import Any, Dict, Iterable, List, Optional, Sequence

from ._binding import check, ffi, format_text, lib, new_struct
from ._convert import c_measurement, c_recommendation
from ._types import Recommendation


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
    before the script runs)."""
    if isinstance(command, (str, bytes)) or not command:
        raise TypeError("command must be a non-empty list of arguments, {} for the item")
    items = read_items(items_file)
    if not items:
        raise ValueError(f"{items_file} holds no items (one per line)")
    os.makedirs(output_dir, exist_ok=True)
    keep: List[Any] = []  # the cdata the struct points into, alive until formatted

    def text(value: str) -> Any:
        keep.append(ffi.new("char[]", os.fsencode(value)))
        return keep[-1]

    def array(values: Sequence[str]) -> Any:
        keep.append(ffi.new("const char *[]", [text(v) for v in values] or [ffi.NULL]))
        return keep[-1]

    args = [str(a) for a in command]
    directives = [str(d) for d in extra]
    job = ffi.new("spacrbench_slurm_job *")
    check(lib.spacrbench_slurm_job_init(job, ffi.sizeof("spacrbench_slurm_job")), "to_slurm")
    job.items_file = text(os.path.abspath(items_file))
    job.n_items = len(items)
    job.output_dir = text(os.path.abspath(output_dir))
    job.job_name = text(job_name) if job_name is not None else ffi.NULL
    job.command = array(args)
    job.command_len = len(args)
    job.spacrbench = text(spacrbench if spacrbench is not None else _own_command())
    job.directives = array(directives)
    job.n_directives = len(directives)
    sched = schedule_of(rec, "to_slurm")
    with c_measurement(rec.measurement) as cm:
        return format_text(
            lambda buf, cap: lib.spacrbench_format_slurm_script(cm, sched, job, buf, cap),
            "to_slurm")


def slurm_cluster_settings(rec: Recommendation, extra: Iterable[str] = ()) -> Dict[str, Any]:
    """dask_jobqueue.SLURMCluster keyword arguments: one worker process per
    job with the schedule's CPUs and memory (margin included)."""
    sched = schedule_of(rec, "to_dask")
    return {"cores": int(sched.cpus_per_task),
            "processes": 1,
            "memory": f"{int(sched.memory_limit_bytes) >> 20}MiB",
            "job_extra_directives": [str(d) for d in extra]}
