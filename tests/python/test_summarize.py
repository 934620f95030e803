"""spacrbench summarize over real task reports in a temporary directory:
tasks that wrote no report (killed, node failure, cancelled) are failed
tasks of the array, not left out; malformed reports are named and counted
as failed, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
from helpers import LINUX, linux_only

import spacrbench

MIB = 1 << 20
# Item = MiB the task allocates: the last task needs the most memory.
ITEMS = ["8", "16", "64"]


def command() -> str:
    from spacrbench._cli import command_path
    return str(command_path())


def summarize_command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([command(), "summarize", *args], capture_output=True, text=True,
                          env=dict(os.environ, SPACRBENCH_PYTHON=sys.executable))


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
    script = tmp_path / "job.sh"
    script.write_text(r.stdout)
    assert "#SBATCH --array=0-2%" in r.stdout
    return script


def run_tasks(script: Path, tasks: List[int]) -> None:
    """Each task as SLURM runs it: the script under bash, the array's env."""
    for task in tasks:
        env = dict(os.environ, SLURM_ARRAY_TASK_ID=str(task), SLURM_JOB_ID=str(100 + task),
                   SLURM_ARRAY_JOB_ID="77", SLURM_MEM_PER_NODE="500", SLURM_CPUS_PER_TASK="1")
        r = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


@linux_only("SLURM job scripts run through bash on Linux nodes; the C command")
def test_a_task_without_a_report_is_a_failed_task_of_the_array(tmp_path: Path) -> None:
    """Task 2 (the one that needs the most memory) never wrote its report:
    summarize used to say `2 task(s), 0 failed`, exit 0, --array=0-1."""
    script = emit_job(tmp_path)
    out = tmp_path / "out"
    run_tasks(script, [0, 1])  # task 2 cancelled, or killed before its report
    s = spacrbench.summarize(str(out), job_script=str(script))
    assert [t.task for t in s.tasks] == [0, 1, 2]
    assert s.failed == 1 and s.missing == 1 and s.array == "0-2"
    gone = s.tasks[2]
    assert gone.missing and gone.failed and gone.peak_rss_bytes is None
    assert "no report task-2.json" in gone.failure and "memory unknown" in gone.failure
    assert "1 failed" in s.text and "1 without a report" in s.text
    assert "memory unknown for 1 task(s) 2 (no report" in s.text
    assert f"--array=0-2%{s.array_concurrency}" in s.text
    assert s.to_dict()["next"]["array"] == "0-2" and s.to_dict()["missing"] == 1

    r = summarize_command(str(out), "--job", str(script))
    assert r.returncode == 3, r.stdout + r.stderr
    assert "--array=0-2%" in r.stdout and "unknown" in r.stdout
    r = summarize_command(str(out), f"--job={script}", "--json")
    assert r.returncode == 3, r.stderr
    doc = json.loads(r.stdout)
    assert doc["missing"] == 1 and [t["task"] for t in doc["tasks"] if t["missing"]] == [2]

    # Without the job script: the manifest `run --emit slurm` wrote beside
    # the reports knows the array had 3 tasks, the last one included.
    manifest = out / "spacrbench-array.json"
    assert json.loads(manifest.read_text())["tasks"] == 3
    s = spacrbench.summarize(str(out))
    assert s.array == "0-2" and s.missing == 1 and "spacrbench-array.json" in s.text
    assert summarize_command(str(out)).returncode == 3
    # A manifest that cannot be used is said, and DIR alone is read.
    manifest.write_text('{"tasks": "three"}')
    s = spacrbench.summarize(str(out))
    assert s.array == "0-1" and "holds no task count" in s.text
    # DIR alone (an older spacrbench wrote no manifest): a task after the
    # last one seen cannot be known, and the output says so...
    manifest.unlink()
    s = spacrbench.summarize(str(out))
    assert s.array == "0-1" and "--job JOB_SCRIPT" in s.text
    # ...but a task that started leaves its SLURM log (--output of the
    # script: slurm-<array job>_<task>.out) even when it was killed.
    (out / "slurm-77_2.out").write_text("slurmstepd: error: *** JOB 102 CANCELLED ***\n")
    (out / "slurm-12_5.out").write_text("another array job's log: not this one's task\n")
    s = spacrbench.summarize(str(out))
    assert s.array == "0-2" and s.missing == 1 and "slurm-77_2.out" in s.tasks[2].failure
    assert summarize_command(str(out)).returncode == 3

    # A gap below the last task is seen from DIR alone.
    run_tasks(script, [2])
    (out / "task-1.json").unlink()
    s = spacrbench.summarize(str(out))
    assert [t.task for t in s.tasks if t.missing] == [1] and s.array == "0-2"
    assert s.peak_rss_bytes >= 64 * MIB  # task 2's report counts now


def test_the_array_of_a_job_script(tmp_path: Path) -> None:
    """--job reads #SBATCH --array as sbatch does; bad scripts are named."""
    (tmp_path / "out").mkdir()
    doc = {"mode": "run", "job": {"SLURM_ARRAY_TASK_ID": "3", "SLURM_MEM_PER_NODE": "300"},
           "measurement": {"peak_rss_bytes": 100 * MIB, "seconds": 1.0, "cpu_seconds": 1.0,
                           "stopped": False, "oom_limit_bytes": 0, "notes": [],
                           "records": [{"item": "x"}]}}
    (tmp_path / "out" / "task-3.json").write_text(json.dumps(doc))
    job = tmp_path / "job.sh"
    job.write_text("#!/bin/bash\n# a comment\n#SBATCH --mem=1G\n#SBATCH --array=1,3,5-9:2%4\n"
                   "echo hi\n#SBATCH --array=0-99\n")  # after a command: not read
    s = spacrbench.summarize(str(tmp_path / "out"), job_script=str(job))
    assert [t.task for t in s.tasks] == [1, 3, 5, 7, 9] and s.missing == 4
    assert s.array == "1,3,5,7,9"
    job.write_text("#!/bin/bash\n#SBATCH --mem=1G\n")
    with pytest.raises(ValueError, match="job.sh has no #SBATCH --array line"):
        spacrbench.summarize(str(tmp_path / "out"), job_script=str(job))
    if LINUX:  # the C command execs the same main()
        r = summarize_command(str(tmp_path / "out"), "--job", str(job))
        assert r.returncode == 1 and "no #SBATCH --array line" in r.stderr
        assert "Traceback" not in r.stderr
    from spacrbench._summarize import main
    assert main([str(tmp_path / "out"), "--job"]) == 2
    assert main([str(tmp_path / "out"), "--job="]) == 2
    assert main([str(tmp_path / "out"), "--job", str(tmp_path / "absent.sh")]) == 1


def good_report(directory: Path, task: int, peak: int = 100 * MIB) -> dict:
    doc = {"mode": "run", "job": {"SLURM_JOB_ID": "5", "SLURM_ARRAY_TASK_ID": str(task),
                                  "SLURM_MEM_PER_NODE": "300", "SLURM_CPUS_PER_TASK": "1"},
           "measurement": {"peak_rss_bytes": peak, "seconds": 2.0, "cpu_seconds": 2.0,
                           "stopped": False, "work_result": 0, "oom_limit_bytes": 0,
                           "notes": ["a note"], "records": [{"item": f"i{task}"}]}}
    (directory / f"task-{task}.json").write_text(json.dumps(doc))
    return doc


def set_path(doc: dict, path: str, value: object) -> None:
    *parents, last = path.split(".")
    for key in parents:
        doc = doc[key]
    doc[last] = value


# (what to change in task 1's report, what the summary must say is wrong)
MALFORMED = [
    ("measurement", [1], '"measurement" is [1], not an object'),
    ("job", "x", '"job" is "x", not an object'),
    ("measurement.notes", [5], '"measurement.notes[0]" is 5, not text'),
    ("measurement.notes", "text", '"measurement.notes" is "text", not a list'),
    ("measurement.records", [5], '"measurement.records[0]" is 5, not an object'),
    ("measurement.records", [{"item": 7}], '"measurement.records[0].item" is 7, not text'),
    ("measurement.peak_rss_bytes", "x", '"measurement.peak_rss_bytes" is "x", not a byte count'),
    ("measurement.peak_rss_bytes", 1 << 70, "not a byte count"),
    ("measurement.peak_rss_bytes", -5, "not a byte count"),
    ("measurement.oom_limit_bytes", 1.5, "not a byte count"),
    ("measurement.seconds", "abc", '"measurement.seconds" is "abc", not a number of seconds'),
    ("measurement.cpu_seconds", float("nan"), "not a number of seconds"),
    ("measurement.stopped", "no", '"measurement.stopped" is "no", not true or false'),
    ("job.SLURM_MEM_PER_NODE", "lots", '"job.SLURM_MEM_PER_NODE" is "lots", not a whole number'),
    ("job.SLURM_MEM_PER_NODE", str(1 << 62), "not a whole number"),
    ("job.SLURM_ARRAY_TASK_ID", "4", "the file is named for task 1"),
    ("mode", "demo", 'not a `spacrbench run --json` report ("mode" is "demo"'),
]


@pytest.mark.parametrize("path, value, said", MALFORMED, ids=[m[0] + "=" + repr(m[1])[:12]
                                                               for m in MALFORMED])
def test_a_malformed_report_is_named_and_failed(tmp_path: Path, path: str, value: object,
                                                said: str) -> None:
    """Used to end in a traceback (AttributeError, TypeError) or a bare
    `could not convert string to float` naming no file."""
    good_report(tmp_path, 0)
    bad = good_report(tmp_path, 1)
    set_path(bad, path, value)
    (tmp_path / "task-1.json").write_text(json.dumps(bad))
    s = spacrbench.summarize(str(tmp_path))
    assert s.failed == 1 and s.unreadable == 1 and [t.task for t in s.tasks] == [0, 1]
    t = s.tasks[1]
    assert t.unreadable and t.failed and t.peak_rss_bytes is None
    assert t.failure.startswith("unreadable report task-1.json: ") and said in t.failure
    assert said in s.text and "1 with an unreadable report" in s.text
    assert "memory unknown for 1 task(s) 1" in s.text
    assert s.peak_rss_bytes == 100 * MIB  # sized from the readable one
    if LINUX:
        r = summarize_command(str(tmp_path))
        assert r.returncode == 3, r.stdout + r.stderr
        assert "Traceback" not in r.stderr and r.stderr == ""
        assert said in r.stdout


@pytest.mark.parametrize("content, said", [
    ("{not json", "not JSON: "),
    ("[1, 2]", "a JSON list, not an object"),
    ("\"text\"", "a JSON str, not an object"),
    ("[" * 100000 + "]" * 100000, "not JSON"),
    (b"\xff\xfe{}", "not JSON: "),
])
def test_a_report_that_is_no_run_report_is_named_and_failed(tmp_path: Path, content: object,
                                                            said: str) -> None:
    good_report(tmp_path, 0)
    path = tmp_path / "task-1.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(str(content))
    s = spacrbench.summarize(str(tmp_path))
    assert s.failed == 1 and s.unreadable == 1
    assert s.tasks[1].failure.startswith("unreadable report task-1.json: ")
    assert said in s.tasks[1].failure
    from spacrbench._summarize import main
    assert main([str(tmp_path)]) == 3


def test_no_readable_report_and_a_peak_too_large_name_the_files(tmp_path: Path) -> None:
    """Nothing to size from: exit 1, the files named, one prefix. A peak
    the margin rule cannot take used to end in `summarize: summarize:`."""
    (tmp_path / "task-0.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"nothing to size from \(task 0: unreadable report "
                                         r"task-0\.json: not JSON"):
        spacrbench.summarize(str(tmp_path))
    if LINUX:
        r = summarize_command(str(tmp_path))
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert r.stderr.startswith("spacrbench: summarize: no task report holds a peak")
        assert r.stderr.count("summarize:") == 1 and "task-0.json" in r.stderr
    good_report(tmp_path, 0, peak=(1 << 63) - 1)
    good_report(tmp_path, 1)
    s = spacrbench.summarize(str(tmp_path))
    assert s.failed == 1 and s.tasks[0].unreadable and "not a byte count" in s.tasks[0].failure
    if LINUX:
        r = summarize_command(str(tmp_path))
        assert r.returncode == 3 and r.stderr == "", r.stderr


def test_a_stray_report_with_a_huge_index_is_named_not_expanded(tmp_path: Path) -> None:
    """Without --job the array runs up to the highest index seen: a stray
    task-999999999999.json must not make a billion missing tasks."""
    good_report(tmp_path, 0)
    doc = good_report(tmp_path, 1)
    (tmp_path / "task-1.json").unlink()
    doc["job"]["SLURM_ARRAY_TASK_ID"] = "999999999999"
    (tmp_path / "task-999999999999.json").write_text(json.dumps(doc))
    s = spacrbench.summarize(str(tmp_path))
    assert [t.task for t in s.tasks] == [0, 999999999999] and s.array == "0"
    assert s.tasks[1].unreadable and "beyond any SLURM array" in s.tasks[1].failure
