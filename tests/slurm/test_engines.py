"""The hand-off on real engines (run by tests/slurm/run.sh, which starts a
private SLURM cluster, sets SLURM_CONF, SB_WORK and a PATH with the venv
that holds spacrbench, dask[distributed] and dask-jobqueue).

measure -> emit -> sbatch --wait (no edit) -> task reports -> summarize;
an OOM under a too-small --mem, named and corrected by summarize, and the
corrected resubmission; discovery inside a job; Dask LocalCluster and
SLURMCluster with the settings of to_dask()."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

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


def emit(tmp: Path, items: List[str], name: str) -> Path:
    """Measure the items here and write the job script (stdout only)."""
    (tmp / "items.txt").write_text("".join(i + "\n" for i in items))
    r = run([spacrbench(), "run", "--emit", "slurm", "--quiet", "--items", "items.txt",
             "--slurm-output", "tasks", "--job-name", name, "--",
             sys.executable, str(HELPER), str(tmp / "got.txt"), "{}"], cwd=tmp)
    assert r.returncode == 0, r.stderr
    (tmp / "got.txt").unlink()  # the measuring run's own copies
    script = tmp / "job.sh"
    script.write_text(r.stdout)
    return script


def directive(script: Path, name: str) -> str:
    m = re.search(rf"^#SBATCH --{name}=(\S+)$", script.read_text(), re.M)
    assert m, f"no --{name} in {script}"
    return m.group(1)


def reports(tmp: Path) -> Dict[int, Dict[str, Any]]:
    return {int(p.stem.split("-")[1]): json.loads(p.read_text())
            for p in (tmp / "tasks").glob("task-*.json")}


def summarize(tmp: Path) -> subprocess.CompletedProcess:
    return run([spacrbench(), "summarize", str(tmp / "tasks"), "--json"])


def test_script_submits_as_is_and_summarize_reads_it(tmp_path: Path) -> None:
    script = emit(tmp_path, ITEMS, "sbtest")
    mem_mib = int(directive(script, "mem").rstrip("M"))
    assert directive(script, "array").startswith(f"0-{len(ITEMS) - 1}%")
    r = run(["sbatch", "--wait", str(script)], cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr + "".join(
        p.read_text() for p in (tmp_path / "tasks").glob("slurm-*.out"))
    # Every item arrived unchanged, once.
    got = [json.loads(line) for line in (tmp_path / "got.txt").read_text().splitlines()]
    assert sorted(got) == sorted(ITEMS)
    docs = reports(tmp_path)
    assert sorted(docs) == list(range(len(ITEMS)))
    for index, doc in docs.items():
        m, job, machine = doc["measurement"], doc["job"], doc["machine"]
        peak = m["peak_rss_bytes"]
        print(f"task {index} {m['records'][0]['item']!r}: requested {mem_mib} MiB, "
              f"peak {peak / MIB:.1f} MiB, {m['seconds']:.2f} s")
        assert m["records"][0]["item"] == ITEMS[index]
        assert not m["stopped"] and m["oom_limit_bytes"] == 0
        assert int(job["SLURM_ARRAY_TASK_ID"]) == index
        assert int(job["SLURM_MEM_PER_NODE"]) == mem_mib
        assert int(job["SLURM_CPUS_PER_TASK"]) == int(directive(script, "cpus-per-task"))
        assert 0 < peak <= mem_mib * MIB
        # Discovery inside the job: the job's cgroup and its --mem.
        assert f"job_{job['SLURM_JOB_ID']}" in machine["memory_cgroup"]
        assert machine["memory_limit_bytes"] == mem_mib * MIB
    s = summarize(tmp_path)
    assert s.returncode == 0, s.stderr
    summary = json.loads(s.stdout)
    print(summary["report"])
    assert summary["failed"] == 0 and len(summary["tasks"]) == len(ITEMS)
    assert {t["item"] for t in summary["tasks"]} == set(ITEMS)
    assert all(t["requested_mem_bytes"] == mem_mib * MIB for t in summary["tasks"])
    largest = max(d["measurement"]["peak_rss_bytes"] for d in docs.values())
    assert summary["peak_rss_bytes"] == largest
    assert summary["next"]["mem_per_task_bytes"] >= largest + 256 * MIB


def test_too_small_mem_is_named_and_corrected(tmp_path: Path) -> None:
    # The last item needs far more than 200 MiB; the script is submitted
    # with --mem=200M (sbatch's options override its #SBATCH lines).
    script = emit(tmp_path, ["40:small", "40:also small", "400:big"], "sboom")
    r = run(["sbatch", "--wait", "--mem=200M", str(script)], cwd=tmp_path)
    assert r.returncode != 0, "the 400 MiB item should not fit --mem=200M"
    docs = reports(tmp_path)
    assert sorted(docs) == [0, 1, 2]
    big = docs[2]["measurement"]
    print(f"task 2: requested 200 MiB, OOM-killed, oom_limit {big['oom_limit_bytes'] / MIB} MiB")
    assert big["stopped"] and big["oom_limit_bytes"] == 200 * MIB
    s = summarize(tmp_path)
    assert s.returncode == 3, s.stdout + s.stderr
    summary = json.loads(s.stdout)
    print(summary["report"])
    oom = [t for t in summary["tasks"] if t["out_of_memory"]]
    assert [t["task"] for t in oom] == [2] and "OOM" in oom[0]["failure"]
    assert summary["out_of_memory"] == 1
    corrected = summary["next"]["mem_per_task_bytes"]
    assert corrected >= 200 * MIB + 256 * MIB
    # Resubmitted with the correction: every task completes within it.
    for p in (tmp_path / "tasks").glob("task-*.json"):
        p.unlink()
    r = run(["sbatch", "--wait", f"--mem={corrected // MIB}M", str(script)], cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    s = summarize(tmp_path)
    assert s.returncode == 0, s.stdout + s.stderr
    again = json.loads(s.stdout)
    print(again["report"])
    assert again["failed"] == 0
    assert all(t["peak_rss_bytes"] <= corrected for t in again["tasks"])


def test_discovery_inside_a_job(tmp_path: Path) -> None:
    out = tmp_path / "discover.json"
    r = run(["sbatch", "--wait", "--mem=300M", "--cpus-per-task=1", "-o", str(out),
             "--wrap", f"{spacrbench()} --json --fields 1 --size 64x64"])
    assert r.returncode == 0, r.stderr
    job_id = r.stdout.split()[-1]
    machine = json.loads(out.read_text())["machine"]
    print("inside job", job_id, machine)
    assert f"job_{job_id}" in machine["memory_cgroup"]
    assert machine["memory_limit_bytes"] == 300 * MIB
    assert machine["cores"] == 1


def measured_recommendation() -> Any:
    import dask_work
    import spacrbench

    m = spacrbench.benchmark(dask_work.work, [40, 40, 40], warmup=1)
    return spacrbench.recommend_workers(m, start_method="spawn")


def no_memory_trouble(client: Any) -> None:
    """No worker paused, spilled or restarted for memory."""
    logs = client.get_worker_logs()
    words = ("paused", "Restarting worker", "Memory use is high", "exceeded")
    for worker, lines in logs.items():
        for _level, line in lines:
            assert not any(w in line for w in words), f"{worker}: {line}"


def test_dask_local_cluster(tmp_path: Path) -> None:
    import dask_work
    from dask.distributed import Client, LocalCluster

    rec = measured_recommendation()
    settings = rec.to_dask()
    n_workers: int = settings["n_workers"]
    print("LocalCluster", settings)
    with LocalCluster(**settings, dashboard_address=None, local_directory=str(tmp_path),
                      processes=True) as cluster, Client(cluster) as client:
        before = set(client.scheduler_info()["workers"])
        assert len(before) == n_workers
        results = client.gather(client.map(dask_work.work, [40] * 8, pure=False))
        assert results == [40 * MIB] * 8
        assert set(client.scheduler_info()["workers"]) == before  # none restarted
        no_memory_trouble(client)


def test_dask_slurm_cluster(tmp_path: Path) -> None:
    import dask_work
    from dask.distributed import Client
    from dask_jobqueue import SLURMCluster

    rec = measured_recommendation()
    settings = rec.to_dask(cluster="slurm")
    print("SLURMCluster", settings)
    with SLURMCluster(**settings, walltime="00:10:00", log_directory=str(tmp_path),
                      scheduler_options={"dashboard_address": None},
                      local_directory=str(tmp_path)) as cluster:
        script = cluster.job_script()
        print(script)
        assert f"--cpus-per-task={settings['cores']}" in script
        with Client(cluster) as client:
            cluster.scale(2)
            client.wait_for_workers(2, timeout=120)
            before = set(client.scheduler_info()["workers"])
            results = client.gather(client.map(dask_work.work, [40] * 8, pure=False))
            assert results == [40 * MIB] * 8
            assert set(client.scheduler_info()["workers"]) == before
            limits = {w["memory_limit"] for w in client.scheduler_info()["workers"].values()}
            assert limits == {int(settings["memory"][:-3]) * MIB}
            no_memory_trouble(client)
