"""The hand-off on real engines (run by tests/slurm/run.sh, which starts a
private SLURM cluster, sets SLURM_CONF, SB_WORK and a PATH with the venv
that holds spacrbench, dask[distributed] and dask-jobqueue).

measure -> emit -> sbatch (no edit) -> task reports -> summarize; a task
OOM-killed under the --mem of a small measurement, named by summarize,
whose printed resubmission, run unedited, completes it (4 of 4 ok); a task
over its --time named TIMEOUT with a larger next --time; a stale report of
a newer submission's cancelled task; discovery inside a job; Dask
LocalCluster and SLURMCluster with a 1 GiB work and no worker paused,
spilled or restarted. The TIMEOUT job is submitted first and waited for
before the SLURMCluster test, which needs the node's CPUs: SLURM needs a
minute or more to end it."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

HERE = Path(__file__).resolve().parent
WORK = Path(os.environ.get("SB_WORK", "/nonexistent"))
HELPER = HERE / "alloc_write.py"
MIB = 1 << 20

pytestmark = pytest.mark.skipif("SLURM_CONF" not in os.environ,
                                reason="needs the cluster of tests/slurm/run.sh")

# Items with spaces, quotes, $, backquotes and globs: each must reach the
# command unchanged. "<MiB>:" says how much the helper allocates.
ITEMS = ["40:plain", "40:with  two spaces", "40:it's \"quoted\"", "40:$HOME `id` $(id)",
         "40:glob * ? [a]", "60:semi; amp & pipe | back\\slash"]


def spacrbench() -> str:
    from spacrbench._cli import command_path

    return str(command_path())


def run(args: List[str], **kw: Any) -> subprocess.CompletedProcess:
    print("$", " ".join(args))
    return subprocess.run(args, capture_output=True, text=True, timeout=240, **kw)


def emit(tmp: Path, items: List[str], name: str, options: Optional[List[str]] = None) -> Path:
    """Measure the items here and write the job script; the script the
    tasks run is the one beside their reports."""
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "items.txt").write_text("".join(i + "\n" for i in items))
    r = run([spacrbench(), "run", "--emit", "slurm", "--quiet", "--items", "items.txt",
             "--slurm-output", "tasks", "--job-name", name, *(options or []), "--",
             sys.executable, str(HELPER), str(tmp / "got.txt"), "{}"], cwd=tmp)
    assert r.returncode == 0, r.stderr
    (tmp / "got.txt").unlink()  # the measuring run's own copies
    script = tmp / "tasks" / "spacrbench-job.sh"
    # The script beside its reports is the one printed; after it stdout has
    # only spacrbench's "# NOTE" comments (which figure --mem is built from).
    saved = script.read_text()
    assert r.stdout.startswith(saved)
    rest = r.stdout[len(saved):].splitlines()
    assert rest and all(line.startswith("# NOTE (spacrbench): ") for line in rest), rest
    return script


def directive(script: Path, name: str) -> str:
    m = re.search(rf"^#SBATCH --{name}=(\S+)$", script.read_text(), re.M)
    assert m, f"no --{name} in {script}"
    return m.group(1)


def reports(tmp: Path) -> Dict[int, Dict[str, Any]]:
    return {int(p.stem.split("-")[1]): json.loads(p.read_text())
            for p in (tmp / "tasks").glob("task-*.json")}


def summarize(tmp: Path) -> Dict[str, Any]:
    r = run([spacrbench(), "summarize", str(tmp / "tasks"), "--json"])
    assert r.returncode in (0, 3), r.stderr
    doc: Dict[str, Any] = json.loads(r.stdout)
    print(doc["report"])
    assert doc["status"] == r.returncode
    return doc


def submitted(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"Submitted batch job (\d+)", r.stdout)
    assert m, r.stdout
    return m.group(1)


def wait_for(job: str, timeout: float = 200) -> None:
    """Until SLURM has no task of job left (no accounting here: squeue)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r = run(["squeue", "-h", "-j", job, "-o", "%i %T"])
        if not r.stdout.strip():
            return
        time.sleep(0.2)  # squeue is cheap: a job that ends is seen at once
    raise AssertionError(f"job {job} still queued or running after {timeout} s")


def logs(tmp: Path) -> str:
    return "".join(p.read_text() for p in (tmp / "tasks").glob("slurm-*.out"))


# The TIMEOUT job, submitted when the module starts (see the docstring).
_TIMEOUT: Dict[str, Any] = {}


@pytest.fixture(scope="module", autouse=True)
def timeout_job() -> None:
    tmp = WORK / "timeout"
    script = emit(tmp, ["120:long:sleep"], "sbtime")
    # A 1-minute limit, exported as summarize's own command line does.
    _TIMEOUT.update(tmp=tmp, job=submitted(run(
        ["sbatch", "--time=1", "--export=ALL,SPACRBENCH_TIME_LIMIT_MINUTES=1", str(script)],
        cwd=tmp)))


def test_script_submits_as_is_and_summarize_reads_it(tmp_path: Path) -> None:
    script = emit(tmp_path, ITEMS, "sbtest")
    mem_mib = int(directive(script, "mem").rstrip("M"))
    assert directive(script, "array") == f"0-{len(ITEMS) - 1}"  # no %K throttle
    assert re.fullmatch(r"\d\d:\d\d:00", directive(script, "time"))
    r = run(["sbatch", "--wait", str(script)], cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr + logs(tmp_path)
    # Every item arrived unchanged, once.
    got = [json.loads(line) for line in (tmp_path / "got.txt").read_text().splitlines()]
    assert sorted(got) == sorted(ITEMS)
    docs = reports(tmp_path)
    assert sorted(docs) == list(range(len(ITEMS)))
    for index, doc in docs.items():
        m, task, machine = doc["measurement"], doc["task"], doc["machine"]
        assert m["records"][0]["item"] == ITEMS[index]
        assert task["outcome"] == "ok" and task["array_task_id"] == index
        assert task["requested"]["mem_bytes"] == mem_mib * MIB
        assert task["requested"]["cpus"] == int(directive(script, "cpus-per-task"))
        assert task["requested"]["time_minutes"] == 5
        assert 0 < m["peak_rss_bytes"] <= mem_mib * MIB
        # Discovery inside the job: the job's cgroup and its --mem.
        assert f"job_{doc['job']['SLURM_JOB_ID']}" in machine["memory_cgroup"]
        assert machine["memory_limit_bytes"] == mem_mib * MIB
    s = summarize(tmp_path)
    assert s["status"] == 0 and s["counts"]["ok"] == len(ITEMS) and s["next"]["command"] is None
    assert {t["item"] for t in s["tasks"]} == set(ITEMS)
    largest = max(d["measurement"]["peak_rss_bytes"] for d in docs.values())
    assert s["peak_rss_bytes"] == largest
    assert s["next"]["mem_per_task_bytes"] >= largest + 256 * MIB


def test_an_oom_is_named_and_its_printed_resubmission_completes_it(tmp_path: Path) -> None:
    # Measured here at 40 MiB each; on the cluster the last item needs 600 MiB.
    script = emit(tmp_path, ["40:a", "40:b", "40:c", "600:d:big"], "sboom")
    mem_mib = int(directive(script, "mem").rstrip("M"))
    assert mem_mib < 600
    r = run(["sbatch", "--wait", str(script)], cwd=tmp_path)
    assert r.returncode != 0, "the 600 MiB item should not fit --mem=%dM" % mem_mib
    docs = reports(tmp_path)
    assert sorted(docs) == [0, 1, 2, 3]
    big = docs[3]["task"]
    assert big["outcome"] == "oom" and big["oom_limit_bytes"] == mem_mib * MIB
    s = summarize(tmp_path)
    assert s["status"] == 3 and s["counts"]["out_of_memory"] == 1
    oom = [t for t in s["tasks"] if t["out_of_memory"]]
    assert [t["task"] for t in oom] == [3] and "OOM-killed" in oom[0]["result"]
    command = s["next"]["command"]
    assert command.startswith("sbatch --array=3 --mem=") and s["next"]["array"] == "3"
    assert s["next"]["mem_per_task_bytes"] >= 600 * MIB
    # The printed command, run unedited, by a shell.
    job = submitted(run(["bash", "-c", command], cwd=tmp_path))
    wait_for(job)
    s = summarize(tmp_path)
    assert s["status"] == 0, logs(tmp_path)
    assert s["counts"]["ok"] == 4 and "4 task(s), 4 ok, 0 failed" in s["report"]
    assert reports(tmp_path)[3]["task"]["array_job_id"] == job

    # A newer submission of all four whose task 1 is cancelled before it
    # starts: task 1's report from the first job is stale.
    again = submitted(run(["sbatch", "--hold", "--mem=900M", str(script)], cwd=tmp_path))
    assert run(["scancel", f"{again}_1"]).returncode == 0
    assert run(["scontrol", "release", again]).returncode == 0
    wait_for(again)
    s = summarize(tmp_path)
    assert s["status"] == 3 and s["next"]["array"] == "1"
    stale = [t for t in s["tasks"] if t["state"] == "stale"]
    assert [t["task"] for t in stale] == [1]
    assert f"missing (a report from job {docs[1]['task']['array_job_id']}" in stale[0]["result"]


def follow(tmp: Path, script: Path, first: List[str], act: tuple = ("item_timeout",),
           rounds: int = 6) -> List[Dict[str, Any]]:
    """A history played for real: `sbatch FIRST script`, then every line
    summarize prints (the next submission's, and the needs-you lines of
    the reasons in act, as a user acting on them would), run as printed by
    a shell, until summarize prints none. The summaries, in order."""
    wait_for(submitted(run(["sbatch", *first, str(script)], cwd=tmp)))
    seen: List[Dict[str, Any]] = []
    for _ in range(rounds):
        s = summarize(tmp)
        seen.append(s)
        lines = list(s["next"]["commands"]) + [
            c for n in s["needs_you"] if n["reason"] in act for c in n["commands"]]
        if not lines:
            return seen
        for line in lines:
            assert all(len(w) <= 131071 for w in shlex.split(line)), "an argument over 128 KiB"
            wait_for(submitted(run(["bash", "-c", line], cwd=tmp)))
    raise AssertionError(f"the loop did not end in {rounds} rounds")


def test_an_item_timeout_is_raised_by_the_offered_line_until_it_fits(tmp_path: Path) -> None:
    """The real loop with the job script's own fractional item --timeout
    (1.1 s, written so the task's parser reads it back) and an
    --array-limit: the item that sleeps 3 s in the job is ended by it, named
    with the override; the offered lines double it (2.2, then 4.4), each
    keeping the %2, until all three tasks are ok."""
    script = emit(tmp_path, ["1:a", "3:b:sleep", "1:c"], "sbitem",
                  ["--timeout", "1.1", "--array-limit", "2"])
    seen = follow(tmp_path, script, [])
    first = seen[0]
    assert first["counts"]["ok"] == 2, first["report"]  # 1.1 read back: nothing exited 2
    offers = [n for s in seen for n in s["needs_you"] if n["reason"] == "item_timeout"]
    assert [n["next_item_timeout_seconds"] for n in offers] == [2.2, 4.4], first["report"]
    for n in offers:
        assert n["tasks"] == "1" and n["commands"][0].startswith("sbatch --array=1%2 ")
    assert seen[-1]["status"] == 0 and seen[-1]["counts"]["ok"] == 3, seen[-1]["report"]
    task = reports(tmp_path)[1]["task"]
    assert task["outcome"] == "ok" and task["requested"]["time_minutes"] >= 5


def test_another_array_in_the_directory_and_a_stepped_submission(tmp_path: Path) -> None:
    """The docs' recipe for a new array where another one ran (remove its
    three files, emit): the old reports are another array's, never counted;
    a first submission of every other task (--array=0-5:2) leaves the odd
    ones missing, which the printed stepped line reruns: 6 of 6 ok."""
    script = emit(tmp_path, ["40:a", "40:b", "40:c", "40:d"], "sbold")
    wait_for(submitted(run(["sbatch", str(script)], cwd=tmp_path)))
    assert summarize(tmp_path)["counts"]["ok"] == 4
    for name in ("spacrbench-items.idx", "spacrbench-job.sh", "spacrbench-array.json"):
        (tmp_path / "tasks" / name).unlink()
    script = emit(tmp_path, [f"40:n{i}" for i in range(6)], "sbnew")
    s = summarize(tmp_path)
    assert s["counts"]["ok"] == 0 and s["counts"]["foreign"] == 4, s["report"]
    seen = follow(tmp_path, script, ["--array=0-5:2"])
    assert seen[0]["next"]["commands"][0].startswith("sbatch --array=1-5:2 "), seen[0]["report"]
    assert seen[0]["counts"]["ok"] == 3 and seen[0]["counts"]["foreign"] == 2  # 1 and 3
    assert seen[-1]["status"] == 0 and seen[-1]["counts"]["ok"] == 6, seen[-1]["report"]
    assert seen[-1]["counts"]["foreign"] == 0


def test_discovery_inside_a_job(tmp_path: Path) -> None:
    out = tmp_path / "discover.json"
    r = run(["sbatch", "--wait", "--mem=300M", "--cpus-per-task=1", "-o", str(out),
             "--wrap", f"{spacrbench()} --json --fields 1 --size 64x64"])
    assert r.returncode == 0, r.stderr
    job_id = r.stdout.split()[-1]
    machine = json.loads(out.read_text())["machine"]
    assert f"job_{job_id}" in machine["memory_cgroup"]
    assert machine["memory_limit_bytes"] == 300 * MIB
    assert machine["cores"] == 1


GIB_WORK = 1024  # MiB each Dask task allocates


def measured_recommendation() -> Any:
    import dask_work
    import spacrbench

    m = spacrbench.benchmark(dask_work.work, [GIB_WORK] * 2, warmup=1)
    assert m.peak_rss_bytes >= GIB_WORK * MIB
    return spacrbench.recommend_workers(m, start_method="spawn")


def no_memory_trouble(client: Any, logs_dir: Optional[Path] = None) -> None:
    """No worker paused, spilled or restarted for memory: the workers' own
    logs (and the SLURM job logs, where the workers ran)."""
    words = ("paused", "Pausing", "Restarting worker", "Memory use is high", "exceeded",
             "Unmanaged memory use is high", "spill", "Worker is at")
    lines = [line for _worker, entries in client.get_worker_logs().items()
             for _level, line in entries]
    if logs_dir is not None:
        lines += [line for p in logs_dir.glob("*.err") for line in p.read_text().splitlines()]
    assert lines, "no worker log to read"
    bad = [line for line in lines if any(w in line for w in words)]
    assert not bad, bad


def test_dask_local_cluster(tmp_path: Path) -> None:
    import dask_work
    from dask.distributed import Client, LocalCluster

    rec = measured_recommendation()
    settings = rec.to_dask()
    print("LocalCluster", settings)
    assert settings["memory_limit"] * 0.6 >= rec.measurement.peak_rss_bytes
    with LocalCluster(**settings, dashboard_address=None, local_directory=str(tmp_path),
                      processes=True) as cluster, Client(cluster) as client:
        before = set(client.scheduler_info()["workers"])
        assert len(before) == settings["n_workers"]
        results = client.gather(client.map(dask_work.work, [GIB_WORK] * 4, pure=False))
        assert results == [GIB_WORK * MIB] * 4
        assert set(client.scheduler_info()["workers"]) == before  # none restarted
        no_memory_trouble(client)


def test_a_task_over_its_time_is_timeout_and_the_next_time_is_larger() -> None:
    tmp, job = _TIMEOUT["tmp"], _TIMEOUT["job"]
    wait_for(job, timeout=240)
    s = summarize(tmp)
    print(logs(tmp))
    assert s["status"] == 3 and s["counts"]["timeout"] == 1, s["report"]
    t = s["tasks"][0] if s["tasks"] else None
    assert t is not None and t["timeout"] and "TIMEOUT" in t["result"]
    assert t["requested_time_minutes"] == 1
    assert s["next"]["time_minutes"] > 1 and s["next"]["array"] == "0"


def test_dask_slurm_cluster(tmp_path: Path) -> None:
    import dask_work
    from dask.distributed import Client
    from dask_jobqueue import SLURMCluster

    rec = measured_recommendation()
    settings = rec.to_dask(cluster="slurm")
    print("SLURMCluster", settings)
    assert re.fullmatch(r"\d\d:\d\d:00", settings["walltime"])
    with SLURMCluster(**settings, log_directory=str(tmp_path),
                      scheduler_options={"dashboard_address": None},
                      local_directory=str(tmp_path)) as cluster:
        script = cluster.job_script()
        print(script)
        assert f"--cpus-per-task={settings['cores']}" in script
        assert f"-t {settings['walltime']}" in script
        with Client(cluster) as client:
            cluster.scale(2)
            client.wait_for_workers(2, timeout=120)
            before = set(client.scheduler_info()["workers"])
            results = client.gather(client.map(dask_work.work, [GIB_WORK] * 4, pure=False))
            assert results == [GIB_WORK * MIB] * 4
            assert set(client.scheduler_info()["workers"]) == before
            # dask-jobqueue hands the worker its memory in 3 digits
            # ("2.20GiB"): within 1 % of ours, the peak well below 0.6 of it.
            ours = int(settings["memory"][:-3]) * MIB
            for w in client.scheduler_info()["workers"].values():
                assert abs(w["memory_limit"] - ours) <= ours // 100
                assert rec.measurement.peak_rss_bytes < 0.6 * w["memory_limit"]
            no_memory_trouble(client, tmp_path)
