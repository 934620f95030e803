"""spacrbench summarize over real task reports in a temporary directory.
The reading, the decisions and the text are the C library's
(tests/c/check_summarize.c tests them, hostile directories included);
here: the job script run through bash as SLURM runs it, the Python API and
the command giving the same document, the command working without any
Python, and the Python-side errors."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
from helpers import linux_only

import spacrbench

MIB = 1 << 20
# Item = MiB the task allocates: the last task needs the most memory.
ITEMS = ["8", "16", "64"]


def command() -> str:
    from spacrbench._cli import command_path
    return str(command_path())


def summarize_command(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([command(), "summarize", *args], capture_output=True,
                          env=dict(os.environ, **env))


def emit_job(tmp_path: Path) -> Path:
    """The job script of a real `spacrbench run --emit slurm` over ITEMS."""
    items = tmp_path / "items.txt"
    items.write_text("\n".join(ITEMS) + "\n")
    work = [sys.executable, "-c",
            "import sys; b = bytearray(int(sys.argv[1]) << 20); b[::4096] = b'x' * len(b[::4096])",
            "{}"]
    r = subprocess.run([command(), "run", "--emit", "slurm", "--quiet", "--items", str(items),
                        "--slurm-output", str(tmp_path / "out"), "--", *work],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "#SBATCH --array=0-2\n" in r.stdout and "#SBATCH --time=" in r.stdout
    script = tmp_path / "out" / "spacrbench-job.sh"
    # The script beside its reports is the one printed; after it stdout has
    # only spacrbench's "# NOTE" comments (which figure --mem is built from).
    saved = script.read_text()
    assert r.stdout.startswith(saved)
    rest = r.stdout[len(saved):].splitlines()
    assert rest and all(line.startswith("# NOTE (spacrbench): ") for line in rest), rest
    return script


def run_tasks(script: Path, tasks: List[int], job: str = "77", first: int = 0,
              last: int = 2) -> None:
    """Each task as SLURM runs it: the script under bash, the array's env
    (a submission of --array=first-last)."""
    for task in tasks:
        env = dict(os.environ, SLURM_ARRAY_TASK_ID=str(task), SLURM_JOB_ID=str(100 + task),
                   SLURM_ARRAY_JOB_ID=job, SLURM_MEM_PER_NODE="500", SLURM_CPUS_PER_TASK="1",
                   SLURM_ARRAY_TASK_MIN=str(first), SLURM_ARRAY_TASK_MAX=str(last),
                   SLURM_ARRAY_TASK_STEP="1", SLURM_ARRAY_TASK_COUNT=str(last - first + 1))
        r = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


@linux_only("SLURM job scripts run through bash on Linux nodes; the C command")
def test_a_missing_task_is_rerun_alone_and_both_front_ends_agree(tmp_path: Path) -> None:
    script = emit_job(tmp_path)
    out = tmp_path / "out"
    run_tasks(script, [0, 1])  # task 2 cancelled, or killed before its report
    s = spacrbench.summarize(str(out))
    assert [t.task for t in s.tasks] == [0, 1] and s.missing == 1 and s.missing_tasks == "2"
    assert s.array == "0-2" and s.next_array == "2" and s.status == 3
    assert all(t.state == "ok" and t.requested_mem_bytes == 500 * MIB for t in s.tasks)
    assert s.tasks[1].item == "16" and s.tasks[1].peak_rss_bytes >= 16 * MIB
    assert s.tasks[0].requested_time_minutes == s.time_minutes == 5
    assert s.command is not None and s.command.startswith("sbatch --array=2 --mem=")
    assert s.command.endswith(f" {script}")
    assert s.command in s.text and "missing (no report" in s.text

    r = summarize_command(str(out), "--json")
    assert r.returncode == 3, r.stderr
    assert json.loads(r.stdout) == s.to_dict()  # one home: the same C code
    r = summarize_command(str(out))
    assert r.returncode == 3 and r.stdout.decode() == s.text

    # The missing task, rerun by the printed command's own array: 3 of 3 ok.
    run_tasks(script, [2], job="78", first=2, last=2)
    s = spacrbench.summarize(str(out))
    assert s.status == 0 and s.next_array == "" and s.command is None
    assert "3 task(s), 3 ok, 0 failed" in s.text and s.peak_rss_bytes >= 64 * MIB
    # Had job 78 been a rerun of all three (0-2), job 77's reports are stale.
    run_tasks(script, [2], job="79")
    s = spacrbench.summarize(str(out))
    assert [t.state for t in s.tasks] == ["stale", "stale", "ok"] and s.next_array == "0-1"
    assert "missing (a report from job 77" in s.tasks[0].result


@linux_only("the C command")
def test_the_command_needs_no_python(tmp_path: Path) -> None:
    report = {"mode": "run", "measurement": {"peak_rss_bytes": 10 * MIB, "seconds": 1.0}}
    (tmp_path / "task-0.json").write_text(json.dumps(report))
    r = summarize_command(str(tmp_path), PATH="/nonexistent", SPACRBENCH_PYTHON="/nonexistent")
    assert r.returncode == 0, r.stderr
    assert b"1 task(s), 1 ok" in r.stdout


def test_the_job_script_array_and_errors(tmp_path: Path) -> None:
    (tmp_path / "task-0.json").write_text(json.dumps(
        {"mode": "run", "measurement": {"peak_rss_bytes": MIB, "seconds": 1.0}}))
    job = tmp_path / "job.sh"
    job.write_text("#!/bin/bash\n#SBATCH --array=0-3%2\necho hi\n#SBATCH --array=0-99\n")
    s = spacrbench.summarize(tmp_path, job_script=job)
    assert s.array == "0-3" and s.next_array == "1-3" and s.missing == 3
    job.write_text("#!/bin/bash\necho no array\n")
    with pytest.raises(ValueError, match="no #SBATCH --array line"):
        spacrbench.summarize(tmp_path, job_script=job)
    with pytest.raises(FileNotFoundError):
        spacrbench.summarize(tmp_path / "none")
    with pytest.raises(ValueError, match="NUL"):
        spacrbench.summarize("a\0b")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no task reports"):
        spacrbench.summarize(empty)


@pytest.mark.parametrize("content, words", [
    ("{not json", "not JSON"),
    ('{"mode": "run", "measurement": null}', '"measurement" is null'),
    ('{"mode": "run", "measurement": {"seconds": 1e308}}', "not a number of seconds"),
    ('{"mode": "run", "measurement": {"seconds": Infinity}}', "not JSON"),
    ('{"mode": "scale"}', "not a `spacrbench run --json` report"),
    ("[" * 100000 + "]" * 100000, "nested deeper than 64"),
])
def test_an_unreadable_report_is_a_task_to_rerun(tmp_path: Path, content: str,
                                                   words: str) -> None:
    (tmp_path / "task-0.json").write_text(json.dumps(
        {"mode": "run", "measurement": {"peak_rss_bytes": MIB, "seconds": 1.0}}))
    (tmp_path / "task-1.json").write_text(content)
    s = spacrbench.summarize(tmp_path)
    bad = s.tasks[1]
    assert bad.state == "unreadable" and bad.failed and words in bad.result
    assert s.unreadable == 1 and s.next_array == "1" and s.status == 3
    assert "Infinity" not in json.dumps(s.to_dict())


@linux_only("a FIFO and /dev/zero")
def test_a_fifo_and_a_device_are_unreadable_not_a_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "task-1.json")
    os.symlink("/dev/zero", tmp_path / "task-2.json")
    (tmp_path / "task-final.json").write_text("{}")
    s = spacrbench.summarize(tmp_path)
    assert [t.state for t in s.tasks] == ["unreadable", "unreadable"]
    assert "a FIFO" in s.tasks[0].result and "character device" in s.tasks[1].result
    assert "ignored: task-final.json" in s.text


@linux_only("a non-UTF-8 file name")
def test_a_non_utf8_directory_name_is_read(tmp_path: Path) -> None:
    d = os.path.join(os.fsencode(tmp_path), b"job-\xff")
    os.mkdir(d)
    with open(os.path.join(d, b"task-0.json"), "w") as f:
        json.dump({"mode": "run", "measurement": {"peak_rss_bytes": MIB, "seconds": 1.0}}, f)
    s = spacrbench.summarize(os.fsdecode(d))
    assert s.status == 0 and "1 ok" in s.text and json.dumps(s.to_dict())


@pytest.mark.parametrize("where, words", [("none", "directory does not exist"),
                                          ("file", "directory is not a directory")])
def test_a_missing_directory_is_a_spacrbench_and_a_file_not_found_error(
        tmp_path: Path, where: str, words: str) -> None:
    """It was a plain FileNotFoundError: `except SpacrbenchError` missed it."""
    (tmp_path / "file").write_text("x")
    path = tmp_path / where
    with pytest.raises(spacrbench.SpacrbenchFileNotFoundError) as info:
        spacrbench.summarize(path)
    e = info.value
    assert isinstance(e, spacrbench.SpacrbenchError) and isinstance(e, FileNotFoundError)
    assert isinstance(e, OSError) and isinstance(e, spacrbench.SpacrbenchOSError)
    assert e.errno == errno.ENOENT and e.filename == str(path)
    assert words in str(e) and str(path) in str(e) and str(e).startswith("[Errno 2] summarize(): ")


def test_a_missing_job_script_and_values_that_are_no_path_name_the_argument(
        tmp_path: Path) -> None:
    (tmp_path / "task-0.json").write_text(json.dumps(
        {"mode": "run", "measurement": {"peak_rss_bytes": MIB, "seconds": 1.0}}))
    with pytest.raises(spacrbench.SpacrbenchFileNotFoundError,
                       match="job_script does not exist") as info:
        spacrbench.summarize(tmp_path, job_script=tmp_path / "job.sh")
    assert info.value.filename == str(tmp_path / "job.sh")
    with pytest.raises(FileNotFoundError, match="job_script is not a regular file"):
        spacrbench.summarize(tmp_path, job_script=tmp_path)
    for args in ((5,), (tmp_path, 5)):
        with pytest.raises(spacrbench.SpacrbenchTypeError,
                           match=r"summarize\(\): (directory|job_script) must be a path"):
            spacrbench.summarize(*args)  # type: ignore[arg-type]
