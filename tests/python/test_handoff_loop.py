"""The resubmission loop from Python (issue 32): to_slurm racing itself
into one new directory never removes what another call made; an --sbatch
line sbatch reads as --array is refused however it is spelled, and one
with --time gives the script, its manifest and its tasks that time;
summarize's Summary says what needs the user (NeedsYou) and which reports
are another array's."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import linux_only

import spacrbench
from spacrbench import Measurement, NeedsYou, recommend_workers

MIB = 1 << 20


def rec_of(peak: int = 700 * MIB) -> spacrbench.Recommendation:
    m = Measurement(items=2, seconds=2.0, peak_rss_bytes=peak, cpu_seconds=2.0,
                    peak_method="cgroup")
    return recommend_workers(m, cores=4, available_bytes=64 << 30, reserve_bytes=0)


def _emit(items: str, out: str, go: Any, results: Any) -> None:
    """One to_slurm into out, started with the other by the event."""
    go.wait()
    try:
        script = rec_of().to_slurm(items, out, ["true", "{}"])
        results.put(("ok", items, script))
    except ValueError as e:
        results.put(("refused", items, str(e)))


@linux_only("two processes racing to_slurm (fork)")
def test_to_slurm_racing_itself_never_removes_the_winners_directory(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    for trial in range(20):
        a, b = tmp_path / f"a{trial}.txt", tmp_path / f"b{trial}.txt"
        a.write_text("x\ny\n")
        b.write_text("p\nq\nr\n")  # another array: one of the two calls is refused
        out = tmp_path / f"new{trial}" / "out"
        go, results = ctx.Event(), ctx.Queue()
        procs = [ctx.Process(target=_emit, args=(str(p), str(out), go, results))
                 for p in (a, b)]
        for p in procs:
            p.start()
        go.set()
        got = [results.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        won = [g for g in got if g[0] == "ok"]
        assert len(won) == 1, got
        refused = [g for g in got if g[0] == "refused"]
        assert refused and "another job array's files" in refused[0][2]
        # The winner's three files are there, its script the one it returned.
        assert (out / "spacrbench-job.sh").read_text() == won[0][2]
        assert (out / "spacrbench-items.idx").is_file()
        manifest = json.loads((out / "spacrbench-array.json").read_text())
        assert manifest["items_file"] == won[0][1]
    # A call that made the directory and was refused removes only what it made.
    fresh = tmp_path / "fresh" / "deeper"
    with pytest.raises(ValueError):
        rec_of().to_slurm(str(tmp_path / "a0.txt"), str(fresh), ["true", "{}"],
                          extra=["--arr=0-9"])
    assert not (tmp_path / "fresh").exists()


@pytest.mark.parametrize("line", ["--array=0-9", "--arr=0-9", "-a0-9", "-Ha1-2",
                                  "--partition=short --array=0-99", "--ar 0-3",
                                  "#SBATCH --partition=x -a 3"])
def test_an_array_however_spelled_is_refused(tmp_path: Path, line: str) -> None:
    items = tmp_path / "items.txt"
    items.write_text("a\nb\n")
    with pytest.raises(ValueError, match="as --array: the script sets the array"):
        rec_of().to_slurm(str(items), str(tmp_path / "out"), ["true", "{}"], extra=[line])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("line,why", [("--mem-per-cpu=2G", "beside the script's own --mem"),
                                      ("--output=/tmp/x", "as --output or --error"),
                                      ("-e x", "as --output or --error"),
                                      ("--ti=5", "ambiguous abbreviation"),
                                      ("--time=INFINITE", "no INFINITE")])
def test_lines_that_break_the_loop_are_refused(tmp_path: Path, line: str, why: str) -> None:
    items = tmp_path / "items.txt"
    items.write_text("a\n")
    with pytest.raises(ValueError, match=why):
        rec_of().to_slurm(str(items), str(tmp_path / "out"), ["true", "{}"], extra=[line])


@linux_only("the job script runs through bash")
@pytest.mark.parametrize("line", ["--time=2:00:00", "-t 120", "--time 0-2", "-t120"])
def test_a_time_line_is_the_scripts_time(tmp_path: Path, line: str) -> None:
    items = tmp_path / "items.txt"
    items.write_text("a\n")
    script = rec_of().to_slurm(str(items), str(tmp_path / "out"), ["true", "{}"],
                               extra=["--partition=short", line])
    assert "#SBATCH --time=02:00:00\n" in script and "# --time = as given\n" in script
    manifest = json.loads((tmp_path / "out" / "spacrbench-array.json").read_text())
    assert manifest["requested"]["time_minutes"] == 120
    assert "SPACRBENCH_TIME_LIMIT_MINUTES=${SPACRBENCH_TIME_LIMIT_MINUTES:-120}" in script


def _report(out: Path, index: int, key: str, outcome: str = "ok",
            timeout: Any = None, job: str = "8") -> None:
    doc: Dict[str, Any] = {
        "mode": "run",
        "measurement": {"peak_rss_bytes": 40 * MIB, "seconds": 1.0, "cpu_seconds": 0.9,
                        "stopped": outcome != "ok", "records": [{"item": f"i{index}"}]},
        "task": {"outcome": outcome, "exit_status": 3 if outcome == "exit" else None,
                 "signal": None, "oom_limit_bytes": None, "timeout_seconds": timeout,
                 "item": f"i{index}", "elapsed_seconds": 1.0, "array_job_id": job,
                 "array_task_id": index, "array_key": key,
                 "array": {"min": None, "max": None, "step": None, "count": None},
                 "requested": {"mem_bytes": 257 * MIB, "cpus": 1, "time_minutes": 5}}}
    (out / f"task-{index}.json").write_text(json.dumps(doc))


@linux_only("the C command")
def test_summary_says_what_needs_the_user(tmp_path: Path) -> None:
    key = "a1b2c3d4e5f60718"
    (tmp_path / "spacrbench-array.json").write_text(json.dumps(
        {"tasks": 5, "script": str(tmp_path / "spacrbench-job.sh"), "array_key": key,
         "requested": {"mem_bytes": 257 * MIB, "cpus": 1, "time_minutes": 5},
         "array_limit": 2, "item_timeout_seconds": 0.1}))
    _report(tmp_path, 0, key)
    _report(tmp_path, 1, key, "exit")
    _report(tmp_path, 2, key, "timeout", timeout=0.1)
    _report(tmp_path, 3, "0000000000000bad")  # another array's
    s = spacrbench.summarize(tmp_path)
    assert s.status == 3 and s.foreign == 1
    assert [t.state for t in s.tasks] == ["ok", "failed", "failed", "foreign"]
    assert [t.needs for t in s.tasks] == [None, "command_failed", "item_timeout", None]
    # Tasks 3 (another array's report) and 4 never ran: the next submission.
    assert s.next_array == "3-4" and s.commands == (s.command,)
    assert s.command is not None and s.command.startswith("sbatch --array=3-4%2 ")
    reasons = {n.reason: n for n in s.needs_you}
    assert set(reasons) == {"command_failed", "item_timeout"}
    assert isinstance(reasons["item_timeout"], NeedsYou) and reasons["item_timeout"].tasks == "2"
    offer = reasons["item_timeout"].commands[0]
    assert offer.startswith("sbatch --array=2%2 ") and ",SPACRBENCH_ITEM_TIMEOUT=0.2 " in offer
    assert reasons["command_failed"].commands[0].startswith("sbatch --array=1%2 ")
    for n in s.needs_you:
        assert all(c in s.text for c in n.commands)
    assert s.to_dict()["needs_you"][0]["count"] == 1


@linux_only("the job script runs through bash")
def test_the_item_timeout_override_is_checked_before_anything_runs(tmp_path: Path) -> None:
    """The script reads SPACRBENCH_ITEM_TIMEOUT (summarize's override) and
    refuses, before anything runs, a value the task's parser would refuse;
    its first line says which array and what the submission asked."""
    items = tmp_path / "items.txt"
    items.write_text("a\n")
    out = tmp_path / "out"
    rec_of().to_slurm(str(items), str(out), ["true", "{}"])
    script = out / "spacrbench-job.sh"
    assert "item_timeout=${SPACRBENCH_ITEM_TIMEOUT:-0}\n" in script.read_text()
    for bad in ("1e3", "-1", "1.1234567891", "ten"):
        env = dict(os.environ, SLURM_ARRAY_TASK_ID="0", SLURM_MEM_PER_NODE="900",
                   SPACRBENCH_ITEM_TIMEOUT=bad)
        r = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True)
        assert r.returncode == 2, r.stderr
        assert f"SPACRBENCH_ITEM_TIMEOUT={bad} is not a number of seconds" in r.stderr
        assert r.stderr.endswith("; nothing was run\n")
        first = r.stderr.splitlines()[0]
        assert first.startswith("spacrbench job: array job none task 0: key ")
        assert first.endswith(f", --mem 900 MiB, --time 5 min, item --timeout {bad} s")


def test_needs_you_is_exported() -> None:
    assert "NeedsYou" in spacrbench.__all__
    fields: List[str] = [f for f in NeedsYou.__dataclass_fields__]
    assert fields == ["reason", "tasks", "count", "commands"]
