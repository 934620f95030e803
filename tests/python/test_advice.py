"""The advice rule through Python: start method, the reserve that fits where
it runs, and cores per worker from the measured CPU time. The arithmetic is
the library's; these tests check the binding passes it through."""

from __future__ import annotations

import threading
import time

import pytest

import spacrbench
from spacrbench import Measurement

MiB = 2**20
GiB = 2**30


def test_spawn_workers_pay_the_baseline() -> None:
    m = Measurement(items=1, seconds=1.0, peak_rss_bytes=400 * MiB, baseline_rss_bytes=300 * MiB)
    fork = spacrbench.recommend_workers(m, cores=64, available_bytes=2 * GiB + 1000 * MiB)
    spawn = spacrbench.recommend_workers(m, cores=64, available_bytes=2 * GiB + 1000 * MiB,
                                         start_method="spawn")
    assert (fork.workers, fork.start_method, fork.per_worker_bytes) == (10, "fork", 100 * MiB)
    assert (spawn.workers, spawn.start_method, spawn.baseline_bytes) == (2, "spawn", 300 * MiB)
    assert spawn.reason.startswith("memory-bound: ")
    assert "spawn workers each also load the 300.0 MiB baseline" in spawn.reason
    assert "start method        spawn" in spacrbench.format_report(m, spawn)


def test_bad_start_method_names_the_argument() -> None:
    with pytest.raises(ValueError, match="start_method"):
        spacrbench.recommend_workers(None, start_method="thread")
    with pytest.raises(TypeError, match="start_method"):
        spacrbench.recommend_workers(None, start_method=2)  # type: ignore[arg-type]


def test_reserve_default_and_explicit() -> None:
    m = Measurement(items=1, seconds=1.0, peak_rss_bytes=300 * MiB)
    auto = spacrbench.recommend_workers(m, cores=8, available_bytes=16 * GiB)
    assert (auto.reserve_bytes, auto.reserve_rule) == (2 * GiB, "host")
    fixed = spacrbench.recommend_workers(m, cores=8, available_bytes=16 * GiB,
                                         reserve_bytes=GiB)
    assert (fixed.reserve_bytes, fixed.reserve_rule) == (GiB, "caller")


def _two_threads(_: object) -> None:
    until = time.monotonic() + 0.15

    def burn() -> None:
        x = 0
        while time.monotonic() < until:
            x += 1

    t = threading.Thread(target=burn)
    t.start()
    burn()
    t.join()


def test_cores_per_worker_follows_the_measured_cpu_time() -> None:
    m = spacrbench.benchmark(_two_threads, [0, 1, 2], warmup=1)
    rec = spacrbench.recommend_workers(m, cores=4, available_bytes=64 * GiB)
    assert m.cpu_seconds is not None
    parallelism = m.cpu_seconds / m.seconds
    # The GIL lets two Python threads keep about one core busy: the rule
    # must follow what was measured, whatever it is.
    assert rec.cpu_parallelism == pytest.approx(parallelism)
    expected = 1 if parallelism < 1.5 else round(parallelism)
    assert rec.cores_per_worker == expected
    assert rec.workers == max(1, 4 // expected)
    print(f"two Python threads: {parallelism:.2f} cores busy -> {rec.cores_per_worker} per worker")
