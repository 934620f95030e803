"""benchmark() in a forked child: a process forked (os.fork, a fork-context
multiprocessing pool) while ANOTHER thread of the parent is inside
benchmark() must be able to benchmark; the thread that held the lock does
not exist in the child. Each scenario runs in a fresh interpreter, so a hang
is a timeout here, never a hung test session."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import LINUX

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Windows has no fork")

# The parent keeps a benchmark() running in a second thread (its work waits
# for an event) until the child is done.
PARENT = """
import os, sys, threading, time, warnings
warnings.simplefilter("ignore", DeprecationWarning)  # 3.12: fork() with threads
from spacrbench import benchmark

started, release = threading.Event(), threading.Event()

def slow(item):
    started.set()
    release.wait(60)

runner = threading.Thread(target=lambda: benchmark(slow, [0, 1], warmup=0))
runner.start()
started.wait()

def child_job(_):
    return benchmark(lambda item: None, [0, 1, 2], warmup=0).items
"""

OS_FORK = PARENT + """
pid = os.fork()
if pid == 0:
    try:
        print("child measured", child_job(0), flush=True)
        os._exit(0)
    except BaseException as exc:
        print("child:", type(exc).__name__, exc, flush=True)
        os._exit(1)
deadline = time.monotonic() + 30
while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    if time.monotonic() > deadline:
        print("child still blocked in benchmark() after 30 s", flush=True)
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        status = -1
        break
    time.sleep(0.05)
release.set()
runner.join()
print("parent done", flush=True)
sys.exit(0 if status == 0 else 1)
"""

FORK_POOL = PARENT + """
import multiprocessing
if __name__ == "__main__":
    pool = multiprocessing.get_context("fork").Pool(1)
    try:
        print("child measured", pool.map_async(child_job, [0]).get(timeout=30)[0], flush=True)
        code = 0
    except multiprocessing.TimeoutError:
        print("pool worker still blocked in benchmark() after 30 s", flush=True)
        code = 1
    except BaseException as exc:
        print("child:", type(exc).__name__, exc, flush=True)
        code = 1
    pool.terminate()
    pool.join()
    release.set()
    runner.join()
    print("parent done", flush=True)
    sys.exit(code)
"""

# The work itself forks: the child is the run's own thread, so its state is
# kept, and the library refuses to let it return into the run (EFORKED); the
# parent's run is unaffected.
WORK_FORKS = """
import os, sys, warnings
warnings.simplefilter("ignore", DeprecationWarning)
from spacrbench import benchmark
parent = os.getpid()

def work(item):
    if item == 1 and os.fork() == 0:
        return  # the child returns into the run: refused
    if item == 1:
        os.wait()

try:
    m = benchmark(work, [0, 1, 2], warmup=0)
    print("parent measured", m.items, flush=True)
except RuntimeError as exc:
    if os.getpid() == parent:
        raise
    print("child refused:", exc, flush=True)
    os._exit(0)
"""


def run_script(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    try:
        r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                           timeout=90, cwd=tmp_path)
    except subprocess.TimeoutExpired as exc:  # pragma: no cover - the bug itself
        pytest.fail(f"{name}: hung (a blocked child was not even killed): {exc.stdout!r}")
    assert r.returncode == 0, f"{name}: exit {r.returncode}\n{r.stdout}{r.stderr}"
    return r.stdout


def test_child_forked_during_another_threads_benchmark_can_benchmark(tmp_path: Path) -> None:
    out = run_script(tmp_path, "os_fork", OS_FORK)
    assert "child measured 3\n" in out and "parent done" in out


def test_fork_pool_worker_started_during_a_benchmark_can_benchmark(tmp_path: Path) -> None:
    out = run_script(tmp_path, "fork_pool", FORK_POOL)
    assert "child measured 3\n" in out and "parent done" in out


@pytest.mark.skipif(not LINUX, reason="the library's fork check (EFORKED) is tested on Linux")
def test_a_child_forked_by_the_work_keeps_the_run_state(tmp_path: Path) -> None:
    out = run_script(tmp_path, "work_forks", WORK_FORKS)
    assert "parent measured 3" in out
    assert "child refused:" in out and "forked" in out
