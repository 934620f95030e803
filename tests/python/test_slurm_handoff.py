"""The job script from Python (to_slurm with a job), run through bash as a
SLURM array task would run it; summarize over task reports; the Dask
SLURMCluster settings. (tests/slurm/ does the same on a real cluster.)"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest
from helpers import LINUX, linux_only

import spacrbench
from spacrbench import Measurement, recommend_workers

MIB = 1 << 20
ITEMS = ["plain", "two  spaces", "it's \"q\"", "$HOME `id` $(id)", "*", "-n", "back\\slash"]


def rec_of(peak: int = 700 * MIB) -> spacrbench.Recommendation:
    m = Measurement(items=2, seconds=2.0, peak_rss_bytes=peak, cpu_seconds=2.0,
                    peak_method="cgroup")
    return recommend_workers(m, cores=4, available_bytes=64 << 30, reserve_bytes=0)


def test_to_slurm_without_arguments_is_the_directives() -> None:
    text = rec_of().to_slurm()
    assert "#SBATCH --array=0-ITEMS\n" in text and not text.startswith("#!")
    assert "#SBATCH --time=00:05:00\n" in text
    with pytest.raises(TypeError):
        rec_of().to_slurm(job_name="x")
    with pytest.raises(TypeError):
        rec_of().to_slurm("items.txt")


@linux_only("SLURM job scripts run through bash on Linux nodes")
def test_script_runs_each_item_unchanged(tmp_path: Path) -> None:
    items = tmp_path / "items.txt"
    items.write_text("\n".join(ITEMS[:3]) + "\n\n" + "\r\n".join(ITEMS[3:]) + "\n")
    got = tmp_path / "got.txt"
    helper = tmp_path / "record.py"
    helper.write_text("import sys\nopen(sys.argv[1], 'a').write(repr(sys.argv[2]) + '\\n')\n")
    script = rec_of().to_slurm(str(items), str(tmp_path / "out"),
                               [sys.executable, str(helper), str(got), "{}"], job_name="t",
                               extra=["--time=5"])
    assert (tmp_path / "out").is_dir()
    assert f"#SBATCH --array=0-{len(ITEMS) - 1}\n" in script  # no %K throttle
    manifest = json.loads((tmp_path / "out" / "spacrbench-array.json").read_text())
    assert manifest["tasks"] == len(ITEMS) and manifest["requested"]["time_minutes"] == 5
    # A header line, then one 40-byte line per item.
    assert (tmp_path / "out" / "spacrbench-items.idx").stat().st_size == 40 * (1 + len(ITEMS))
    assert "#SBATCH --job-name=t\n" in script and "#SBATCH --time=5\n" in script
    path = tmp_path / "job.sh"
    path.write_text(script)
    for task in range(len(ITEMS)):
        env = dict(os.environ, SLURM_ARRAY_TASK_ID=str(task), SLURM_JOB_ID="77",
                   SLURM_MEM_PER_NODE="956", SLURM_CPUS_PER_TASK="1")
        r = subprocess.run(["bash", str(path)], env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        doc = json.loads((tmp_path / "out" / f"task-{task}.json").read_text())
        assert doc["job"]["SLURM_ARRAY_TASK_ID"] == str(task)
        assert doc["measurement"]["records"][0]["item"] == ITEMS[task]
    assert [eval(line) for line in got.read_text().splitlines()] == ITEMS
    r = subprocess.run(["bash", str(path)], capture_output=True, text=True,
                       env=dict(os.environ, SLURM_ARRAY_TASK_ID=str(len(ITEMS))))
    assert r.returncode == 2 and "has no item" in r.stderr
    s = spacrbench.summarize(str(tmp_path / "out"))
    assert [t.item for t in s.tasks] == ITEMS and s.failed == 0
    assert all(t.requested_mem_bytes == 956 * MIB for t in s.tasks)


def report(path: Path, task: int, peak: int, outcome: str = "ok", oom: int = 0) -> None:
    """A task report with its structured record, as `run --report` writes it."""
    failed = outcome != "ok"
    doc = {"mode": "run", "job": {"SLURM_JOB_ID": "5", "SLURM_ARRAY_TASK_ID": str(task),
                                  "SLURM_MEM_PER_NODE": "300", "SLURM_CPUS_PER_TASK": "2"},
           "measurement": {"peak_rss_bytes": peak, "seconds": 2.0, "cpu_seconds": 2.0,
                           "stopped": failed, "oom_limit_bytes": oom,
                           "notes": ["any wording: summarize reads no note"],
                           "records": [] if failed else [{"item": f"i{task}"}]},
           "task": {"outcome": outcome, "exit_status": None if failed else 0,
                    "signal": 9 if failed else None, "oom_limit_bytes": oom or None,
                    "timeout_seconds": None, "item_index": 0 if failed else None,
                    "item": "big one" if failed else f"i{task}",
                    "failed_item_peak_bytes": peak if failed else None, "items": 1,
                    "completed": 0 if failed else 1, "elapsed_seconds": 2.0,
                    "array_job_id": "4", "array_task_id": task, "job_id": "5",
                    "array": {"min": 0, "max": 1, "step": 1, "count": 2},
                    "requested": {"mem_bytes": 300 * MIB, "cpus": 2, "time_minutes": 5}}}
    (path / f"task-{task}.json").write_text(json.dumps(doc))


def test_summarize_names_the_oom_and_corrects(tmp_path: Path) -> None:
    report(tmp_path, 0, 100 * MIB)
    report(tmp_path, 1, 300 * MIB, "oom", 300 * MIB)
    s = spacrbench.summarize(str(tmp_path))
    assert s.failed == 1 and s.out_of_memory == 1
    t = s.tasks[1]
    assert t.item == "big one" and t.out_of_memory and "OOM-killed" in t.failure
    assert s.tasks[0].cpu_efficiency == pytest.approx(0.5)  # 2 CPU s / (2 s x 2 CPUs)
    assert s.tasks[0].memory_use == pytest.approx(1 / 3)
    assert s.tasks[0].time_use == pytest.approx(2 / 300)
    # Twice the limit it hit, + the margin: 600 + 256 MiB; task 1 alone.
    assert s.mem_per_task_bytes == 856 * MIB and s.next_array == "1"
    assert "sbatch --array=1 --mem=856M --cpus-per-task=1 --time=00:05:00" in s.text
    if not LINUX:
        pytest.skip(f"Linux only, this is {sys.platform}: the C command's summarize "
                    "(the Python part above ran)")
    from spacrbench._cli import command_path
    r = subprocess.run([str(command_path()), "summarize", str(tmp_path), "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 3, r.stderr
    assert json.loads(r.stdout)["next"]["mem_per_task_bytes"] == s.mem_per_task_bytes


def test_summarize_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no task reports"):
        spacrbench.summarize(str(tmp_path))
    (tmp_path / "task-0.json").write_text("{not json")
    s = spacrbench.summarize(str(tmp_path))
    assert s.unreadable == 1 and "task-0.json: not JSON" in s.text and s.status == 3


def test_dask_slurm_cluster_settings() -> None:
    rec = rec_of()
    local = rec.to_dask()
    slurm = rec.to_dask(cluster="slurm", extra=["--partition=short"])
    assert set(slurm) == {"cores", "processes", "memory", "walltime", "job_extra_directives"}
    assert slurm["memory"] == f"{local['memory_limit'] >> 20}MiB"
    assert slurm["walltime"] == "00:05:00"  # 2 x a 1 s item, the 5-minute floor
    # The peak + margin (700 + 256 MiB) at or below 0.6 of the limit:
    # distributed's target fraction, the smallest of its defaults.
    assert local["memory_limit"] * 0.6 >= 956 * MIB
    assert 700 * MIB / local["memory_limit"] < 0.6
    assert slurm["cores"] == local["threads_per_worker"] and slurm["processes"] == 1
    assert slurm["job_extra_directives"] == ["--partition=short"]
    with pytest.raises(ValueError):
        rec.to_dask(cluster="pbs")  # type: ignore[call-overload]


def test_walltime_is_the_scripts_time_from_a_day_on() -> None:
    """SLURMCluster's walltime is the script's --time: D-HH:MM:00 from a day on."""
    m = Measurement(items=2, seconds=2 * 43230.0, peak_rss_bytes=700 * MIB, cpu_seconds=2.0,
                    peak_method="cgroup")
    rec = recommend_workers(m, cores=4, available_bytes=64 << 30, reserve_bytes=0)
    assert rec.to_dask(cluster="slurm")["walltime"] == "1-00:01:00"  # 2 x (12 h + 30 s)
    assert "#SBATCH --time=1-00:01:00\n" in rec.to_slurm()


def items_file(tmp_path: Path) -> Path:
    path = tmp_path / "items.txt"
    path.write_text("a.tif\nb.tif\n")
    return path


@pytest.mark.parametrize("data, why", [
    (b"a\nb\0c\n", "line 2 holds a NUL byte, which no item can contain"),
    (b"a\n" + b"y" * ((64 << 20) + 1) + b"\n", "line 2 of .* is longer than"),  # > any ARG_MAX
    pytest.param(None, r"'.*items.txt' holds more than 1073741824 bytes \(1 GiB\)",
                 marks=pytest.mark.slow),  # 3 s: writes and reads 1 GiB
])
def test_the_items_file_has_the_commands_bounds(tmp_path: Path, data: Optional[bytes],
                                                why: str) -> None:
    """items_file is read as `spacrbench run --items` reads it, with its
    bounds, as `run --emit slurm` reads it: a NUL byte, a line no command
    can take and a list over 1 GiB are refused naming items_file, and
    nothing is written (to_slurm used to write an array of the last two)."""
    items = tmp_path / "items.txt"
    with open(items, "wb") as f:
        if data is not None:
            f.write(data)
        else:  # 1 GiB of 1 KiB lines, and one more
            block = (b"z" * 1023 + b"\n") * 1024
            for _ in range(1024):
                f.write(block)
            f.write(block[:1024])
    try:
        with pytest.raises(ValueError, match=f"items_file: {why}"):
            rec_of().to_slurm(str(items), str(tmp_path / "out"), ["true", "{}"])
    finally:
        items.unlink()
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_an_items_file_that_is_not_a_regular_file_is_refused_at_once(tmp_path: Path) -> None:
    """A job array reads items_file again in every task: a FIFO with no
    writer (to_slurm used to wait on it forever) or a directory is refused."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path):
        with pytest.raises(ValueError, match="items_file: .* is not a regular file"):
            rec_of().to_slurm(str(path), str(tmp_path / "out"), ["true", "{}"])
    assert not (tmp_path / "out").exists()


def test_a_missing_items_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as info:
        rec_of().to_slurm(str(tmp_path / "none.txt"), str(tmp_path / "out"), ["true", "{}"])
    assert info.value.filename == str(tmp_path / "none.txt")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kwargs, name", [
    ({"command": ["rm\0 -rf", "{}"]}, r"command\[0\]"),
    ({"command": ["echo", "x\0y", "{}"]}, r"command\[1\]"),
    ({"job_name": "job\0name"}, "job_name"),
    ({"extra": ["--partition=short", "--time=5\0"]}, r"extra\[1\]"),
    ({"spacrbench": "/usr/bin/spacrbench\0x"}, "spacrbench"),
    ({"output_dir": "out\0dir"}, "output_dir"),
])
def test_a_nul_in_the_job_text_is_refused_not_cut(tmp_path: Path, kwargs: dict,
                                                  name: str) -> None:
    """C strings end at a NUL: ["rm\\0 -rf", "{}"] used to become
    command=('rm' '{}'). Nothing is created when the call fails."""
    args: dict = {"items_file": str(items_file(tmp_path)),
                  "output_dir": str(tmp_path / "out"), "command": ["echo", "{}"]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=rf"{name} must not contain a NUL character") as info:
        rec_of().to_slurm(**args)
    assert "\\x00" in str(info.value)  # the text is quoted, NUL shown
    assert sorted(os.listdir(tmp_path)) == ["items.txt"]


def test_a_failing_to_slurm_creates_no_output_dir(tmp_path: Path) -> None:
    items = str(items_file(tmp_path))
    for bad in ({"extra": "--partition=short"}, {"extra": 5},
                {"command": ["echo", "{}"], "job_name": "j\0"}):
        args: dict = {"command": ["echo", "{}"]}
        args.update(bad)
        with pytest.raises((TypeError, ValueError)):
            rec_of().to_slurm(items, str(tmp_path / "out"), **args)
        assert not (tmp_path / "out").exists(), bad
    # A recommendation the library refuses (an unknown bound) fails late, in
    # the schedule: the folder used to exist by then.
    broken = dataclasses.replace(rec_of(), bound="bogus")
    with pytest.raises(ValueError, match="bound"):
        broken.to_slurm(items, str(tmp_path / "out"), ["echo", "{}"])
    assert not (tmp_path / "out").exists()
    rec_of().to_slurm(items, str(tmp_path / "out"), ["echo", "{}"])
    assert (tmp_path / "out").is_dir()  # a call that succeeds creates it


def test_extra_as_one_string_is_a_type_error_not_characters(tmp_path: Path) -> None:
    """extra="--partition=short" used to give one #SBATCH line per character."""
    items = str(items_file(tmp_path))
    with pytest.raises(TypeError, match=r"extra must be a list .*--partition=short"):
        rec_of().to_slurm(items, str(tmp_path / "out"), ["echo", "{}"],
                          extra="--partition=short")
    with pytest.raises(TypeError, match="extra"):
        rec_of().to_slurm(extra="--partition=short")
    with pytest.raises(TypeError, match=r"extra must be a list .*--partition=short"):
        rec_of().to_dask(cluster="slurm", extra="--partition=short")
    with pytest.raises(TypeError, match="extra"):
        rec_of().to_dask(cluster="slurm", extra=5)  # type: ignore[call-overload]
    script = rec_of().to_slurm(items, str(tmp_path / "out"), ["echo", "{}"],
                               extra=("--partition=short",))
    assert "#SBATCH --partition=short\n" in script and "#SBATCH -\n" not in script


def test_extra_with_the_local_cluster_is_a_value_error() -> None:
    """LocalCluster has no job directives: extra was silently ignored."""
    rec = rec_of()
    with pytest.raises(ValueError, match="extra applies to cluster='slurm' only"):
        rec.to_dask(extra=["--partition=short"])
    with pytest.raises(ValueError, match="extra applies to cluster='slurm' only"):
        rec.to_dask(text=True, extra=["--partition=short"])
    assert rec.to_dask(extra=[]) == rec.to_dask()  # nothing given, nothing ignored


@linux_only("the array's files are written on POSIX systems (Windows: EUNSUPPORTED)")
def test_to_slurm_array_limit_and_no_array_directive(tmp_path: Path) -> None:
    items = items_file(tmp_path)
    script = rec_of().to_slurm(str(items), str(tmp_path / "o"), ["true", "{}"],
                               array_limit=3)
    assert "#SBATCH --array=0-1%3\n" in script
    for bad in (0, -1, True, 1.5, "2"):
        with pytest.raises(ValueError, match="array_limit"):
            rec_of().to_slurm(str(items), str(tmp_path / "p"), ["true"],
                              array_limit=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="array-limit"):
        rec_of().to_slurm(str(items), str(tmp_path / "q"), ["true"], extra=["--array=0-9"])
    assert not (tmp_path / "p").exists() and not (tmp_path / "q").exists()


@linux_only("SLURM job scripts run through bash on Linux nodes")
def test_one_cr_rule_the_measured_item_is_the_item_run(tmp_path: Path) -> None:
    """`x\\r\\r` is `x\\r` to `run --items`: the task runs `x\\r` too (the
    script used to strip a CR of its own), and a line `\\r\\r` is an item."""
    items = tmp_path / "items.txt"
    items.write_bytes(b"x\r\r\n\r\n\r\r\nlast")
    got = tmp_path / "got.txt"
    helper = tmp_path / "record.py"
    helper.write_text("import sys\nopen(sys.argv[1], 'a').write(repr(sys.argv[2]) + '\\n')\n")
    script = rec_of().to_slurm(str(items), str(tmp_path / "out"),
                               [sys.executable, str(helper), str(got), "{}"])
    assert "#SBATCH --array=0-2\n" in script  # x\r, \r, last: the \r line alone is empty
    path = tmp_path / "job.sh"
    path.write_text(script)
    for task in range(3):
        r = subprocess.run(["bash", str(path)], capture_output=True, text=True,
                           env=dict(os.environ, SLURM_ARRAY_TASK_ID=str(task)))
        assert r.returncode == 0, r.stderr
    assert [eval(line) for line in got.read_text().splitlines()] == ["x\r", "\r", "last"]


@linux_only("the array's files are written on POSIX systems (Windows: EUNSUPPORTED)")
def test_to_slurm_never_replaces_another_arrays_files(tmp_path: Path) -> None:
    """A second to_slurm into the output_dir of a queued job used to
    overwrite its index: the job's tasks then ran the other job's items.
    It is refused, naming the folder and what to do, and leaves the files
    as they were; the same call again is accepted."""
    items = items_file(tmp_path)
    other = tmp_path / "other.txt"
    other.write_text("x\ny\nz\n")
    out = tmp_path / "out"
    first = rec_of().to_slurm(str(items), str(out), ["true", "{}"])
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert sorted(before) == ["spacrbench-array.json", "spacrbench-items.idx",
                              "spacrbench-job.sh"]
    with pytest.raises(ValueError, match="holds another job array's files") as info:
        rec_of().to_slurm(str(other), str(out), ["true", "{}"])
    assert str(out) in str(info.value) and "output_dir" in str(info.value)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    with pytest.raises(ValueError, match="job script"):
        rec_of().to_slurm(str(items), str(out), ["false", "{}"])
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert rec_of().to_slurm(str(items), str(out), ["true", "{}"]) == first
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
