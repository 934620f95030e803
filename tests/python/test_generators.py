"""Items without a length (#23): a generator or tqdm(generator) is taken one
item at a time as it is processed (spacrbench_benchmark_stream), never read
whole, and the measurement means what a list's does."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import tracemalloc
from typing import Any, Iterator, List

import pytest

import spacrbench
from helpers import linux_only, thread_count
from spacrbench import Progress


def _recorded(items: List[int], events: List[str]) -> Iterator[int]:
    for item in items:
        events.append(f"pull {item}")
        yield item


def test_generator_items_are_pulled_exactly_as_they_are_processed() -> None:
    events: List[str] = []
    m = spacrbench.benchmark(lambda i: events.append(f"work {i}"), _recorded([0, 1, 2, 3], events),
                             warmup=1)
    assert events == ["pull 0", "work 0", "pull 1", "work 1", "pull 2", "work 2",
                      "pull 3", "work 3"]
    assert m.items == 3 and m.warmup_items == 1
    assert [r.is_warmup for r in m.records] == [True, False, False, False]


def test_a_generator_measures_as_the_same_list_does() -> None:
    for warmup in (0, 1, 3, 10):
        gen = spacrbench.benchmark(lambda i: None, (i for i in range(3)), warmup=warmup)
        lst = spacrbench.benchmark(lambda i: None, [0, 1, 2], warmup=warmup)
        assert (gen.items, gen.warmup_items) == (lst.items, lst.warmup_items), warmup
        assert [r.is_warmup for r in gen.records] == [r.is_warmup for r in lst.records]
        warm = [n for n in gen.notes if "warm-up" in n]
        assert warm == [n for n in lst.notes if "warm-up" in n], warmup
    assert gen.items == 1 and any("clamped to 2" in n for n in gen.notes)


def test_real_tqdm_over_a_generator_moves_with_the_work() -> None:
    tqdm = pytest.importorskip("tqdm").tqdm
    seen: List[int] = []
    with open("/dev/null", "w") as sink:
        bar = tqdm((i for i in range(4)), disable=False, mininterval=0, miniters=1, file=sink)
        assert bar.total is None  # no length: the old path read it whole first
        m = spacrbench.benchmark(lambda i: seen.append(bar.n), bar, warmup=0)
        bar.close()
    assert seen == [0, 1, 2, 3]  # item k runs when k items are done
    assert m.items == 4


def test_an_empty_generator_is_spacrs_value_error() -> None:
    calls: List[Any] = []
    with pytest.raises(ValueError, match=r"^benchmark needs at least one item to measure "
                                         r"\(items is empty\)$"):
        spacrbench.benchmark(calls.append, (i for i in []))
    assert calls == []
    with pytest.raises(ValueError, match="benchmark needs at least one item to measure"):
        spacrbench.benchmark(calls.append, [])
    m = spacrbench.benchmark(calls.append, (i for i in [7]))  # the library is clean after
    assert m.items == 1 and calls == [7]


class Broken(Exception):
    pass


def test_a_generator_that_raises_midway_propagates_the_same_exception() -> None:
    error = Broken("plate 7 is unreadable")
    done: List[int] = []

    def plates() -> Iterator[int]:
        yield 1
        yield 2
        raise error

    with pytest.raises(Broken) as info:
        spacrbench.benchmark(done.append, plates(), warmup=0)
    assert info.value is error
    assert done == [1, 2]


def _settled_threads(at_most: int) -> int:
    """This process's threads once joined ones have left /proc's list too."""
    for _ in range(500):
        if thread_count() <= at_most:
            break
        time.sleep(0.01)
    return thread_count()


@linux_only("counts this process's fds and threads in /proc/self/fd and /proc/self/task")
def test_a_generator_that_raises_leaves_no_fd_thread_or_run_behind() -> None:
    def plates(n: int) -> Iterator[int]:
        yield from range(n)
        raise Broken(f"after {n}")

    before = thread_count()  # with threads that are not Python's (a BLAS pool, say)
    spacrbench.benchmark(lambda i: None, (i for i in [1]))  # first-use setup happens here
    fds, threads = len(os.listdir("/proc/self/fd")), _settled_threads(before)
    for n in range(1, 12):  # the end in the warm-up, at it and after it
        with pytest.raises(Broken, match=f"^after {n}$"):
            spacrbench.benchmark(lambda i: None, plates(n), warmup=2)
    assert len(os.listdir("/proc/self/fd")) == fds
    assert _settled_threads(threads) == threads
    m = spacrbench.benchmark(lambda i: None, (i for i in range(3)), warmup=1)  # usable after
    assert (m.items, m.warmup_items) == (2, 1)


def test_keyboard_interrupt_from_the_generator_propagates() -> None:
    interrupt = KeyboardInterrupt()
    done: List[int] = []

    def plates() -> Iterator[int]:
        yield 0
        raise interrupt

    with pytest.raises(KeyboardInterrupt) as info:
        spacrbench.benchmark(done.append, plates(), warmup=0)
    assert info.value is interrupt and done == [0]
    assert spacrbench.benchmark(lambda i: None, (i for i in [1, 2])).items == 1


@pytest.mark.skipif(sys.platform == "win32",
                    reason="Windows: os.kill(pid, SIGINT) terminates the process, no signal")
def test_real_sigint_while_the_generator_waits_stops_the_run() -> None:
    started = threading.Event()
    pulled: List[int] = []

    def slow_plates() -> Iterator[int]:
        for i in range(10**6):  # hours of items: only the interrupt ends this run
            pulled.append(i)
            if i == 1:
                started.set()
                # Interrupted by the signal below. Short sleeps: a signal
                # that lands between set() and one long sleep's syscall
                # would only be seen once that sleep ended.
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    time.sleep(0.02)
            yield i

    def interrupt() -> None:
        started.wait(30)
        os.kill(os.getpid(), signal.SIGINT)

    sender = threading.Thread(target=interrupt)
    sender.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            spacrbench.benchmark(lambda i: None, slow_plates(), warmup=0)
    finally:
        sender.join()
    assert pulled == [0, 1]  # stopped at the item it was taking, none after
    assert spacrbench.benchmark(lambda i: None, (i for i in [1, 2])).items == 1


class Enough(Exception):
    pass


def test_a_huge_generator_is_never_held_whole() -> None:
    pulled = [0]

    def huge() -> Iterator[bytes]:
        for _ in range(10**6):
            pulled[0] += 1
            yield bytes(64)  # ~100 MB of objects were it read whole

    def work(item: bytes) -> None:
        if pulled[0] == 3:
            raise Enough()

    tracemalloc.start()
    try:
        with pytest.raises(Enough):
            spacrbench.benchmark(work, huge(), warmup=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert pulled[0] == 3
    # Read whole it traced ~100 MiB; one item at a time, the first run's
    # imports are most of what is left (~1.6 MiB in a fresh process).
    assert peak < 8 << 20, f"{peak} bytes traced: the generator was read ahead"


@pytest.mark.parametrize("timeline", [False, True])
@pytest.mark.parametrize("kind", ["list", "generator"])
def test_the_records_and_marks_are_not_the_works_memory(kind: str, timeline: bool) -> None:
    n = 50_000  # ~3 MiB of records (and as much of timeline marks)
    items = list(range(n)) if kind == "list" else (i for i in range(n))
    m = spacrbench.benchmark(lambda i: None, items, warmup=0, timeline=timeline)
    assert m.items == n and len(m.records) == n
    assert m.work_rss_bytes < 1 << 20, (
        f"a work that allocates nothing is given {m.work_rss_bytes} bytes: the run's own "
        f"records or marks were counted as its memory")


def test_progress_of_a_generator_has_no_total() -> None:
    got: List[Progress] = []
    spacrbench.benchmark(lambda i: None, (i for i in range(3)), warmup=1, progress=got.append)
    assert [p.index for p in got] == [0, 1, 2]
    assert all(p.total == -1 for p in got)
    assert [p.is_warmup for p in got] == [True, False, False]


def test_progress_true_of_a_generator_says_the_count_is_unknown(
        capsys: pytest.CaptureFixture[str]) -> None:
    spacrbench.benchmark(lambda i: None, (i for i in range(3)), warmup=1, progress=True)
    err = capsys.readouterr().err
    assert "item 1/? (warm-up) done in" in err and "item 3/? done in" in err
    assert err.endswith("\n")
