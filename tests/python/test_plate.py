"""benchmark_plate() (issue 30): advice that holds for the whole plate.

The proof runs in a REAL v1 memory cgroup with real process pools: on a
plate whose dense well needs 6x the memory of the other fields, the
advice from the first three fields (2 workers) is OOM-killed, the plate's
advice (1 worker) completes, and it is the best count that does. Then a
key that does not explain memory (the fallback and its note), no key, a
plate of 100,000 items, hostile keys (an error naming the item, nothing
left running), the note of a plain benchmark() whose items differ, and
the report. Cheap: fields of 24 to 141 MiB, a 256 MiB cgroup, about 10 s
in all."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

import spacrbench
from helpers import linux_only

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import plate_works  # noqa: E402

MiB = 2**20


def run_experiment(tmp_path: Path, shape: str, limit: int, counts: str) -> Dict[str, Any]:
    plate = tmp_path / "plate"
    plate.mkdir()
    plate_works.write_plate(str(plate), plate_works.plate_sizes(shape))
    try:
        with plate_works.memory_cgroup(limit, "sbtest-plate") as cg:
            got = subprocess.run([sys.executable, str(HERE / "plate_works.py"), str(cg),
                                  str(plate), counts], capture_output=True, text=True,
                                 timeout=300)
            left = (cg / "cgroup.procs").read_text().split()
    except plate_works.NoCgroup as why:  # raised before anything runs
        pytest.skip(str(why))
    assert got.returncode == 0, got.stderr
    assert left == [], f"processes left in the cgroup: {left}"
    result: Dict[str, Any] = json.loads(got.stdout.splitlines()[-1])
    return result


@pytest.mark.slow  # about 5 s, the same on every interpreter
@linux_only("real v1 memory cgroups and fork pools")
def test_the_first_three_are_oom_killed_where_the_plate_completes(tmp_path: Path) -> None:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs 2 cores: with one the first three's advice is one worker too")
    r = run_experiment(tmp_path, "dense", 256 * MiB, "1,2")
    three, plate = r["first_three"], r["plate"]
    print(json.dumps({k: v for k, v in r.items() if k != "plate"}, indent=1))
    print(plate["report"])
    assert three["memory_source"] == "cgroup_v1"
    # What the user saw: the first three fields say two workers.
    assert three["workers"] == 2 and three["reason"].startswith("core-bound: 2 core(s)")
    # The plate measured the dense well's largest field and sizes for it.
    assert 8 in plate["measured"] and plate["fit"] == "key"
    assert plate["largest_bytes"] >= 140 * MiB
    assert plate["workers"] == 1
    assert re.search(r"; the plate's largest field \(file size 121 KiB, 5\.8x the plate's "
                     r"median file size\) is predicted to need 0\.1\d GiB$", plate["reason"]), \
        plate["reason"]
    assert plate["reason"].startswith(("memory-bound: ", "one worker needs "))
    pools = {p["workers"]: p for p in r["pools"]}
    # The first three's count is OOM-killed in the cgroup ...
    assert not pools[2]["completed"] and pools[2]["oom_kills"] >= 1, pools
    # ... the plate's completes, and is the best count that completes.
    assert pools[1]["completed"] and pools[1]["oom_kills"] == 0, pools
    done = [p for p in r["pools"] if p["completed"]]
    best = max(done, key=lambda p: p["items_per_second"])["workers"]
    assert best == plate["workers"]
    assert plate["eta_seconds"] is not None and plate["eta_seconds"] > 0


def _files(tmp_path: Path, sizes: List[int]) -> List[str]:
    d = tmp_path / "fields"
    d.mkdir()
    return plate_works.write_plate(str(d), sizes)


def test_the_plate_measures_its_largest_and_predicts_the_rest(tmp_path: Path) -> None:
    fields = _files(tmp_path, plate_works.plate_sizes("dense", 24))
    result = spacrbench.benchmark_plate(plate_works.light_field_work, fields, cores=2,
                                        available_bytes=4 * 2**30, reserve_bytes=0)
    assert isinstance(result, spacrbench.PlateResult)
    assert result.workers == result.recommendation.workers == 2
    assert len(result.sample) == 6 and result.sample[0].is_warmup
    assert [p.item for p in result.sample] == [fields[p.index] for p in result.sample]
    whys = {p.why for p in result.sample}
    assert {"largest_key", "smallest_key", "warmup"} <= whys
    largest = max(range(24), key=lambda i: (os.path.getsize(fields[i]), -i))
    assert any(p.index == largest and p.why == "largest_key" for p in result.sample)
    pr = result.prediction
    assert pr.items == 24 and pr.measured == 6 and pr.key == "bytes"
    assert pr.key_name == "file size" and pr.fit == "key"
    assert pr.largest_bytes is not None and pr.largest_bytes >= 140 * MiB
    # A measured item is predicted as measured; the rest never below the line.
    for p in result.sample:
        assert result.item_prediction(p.index)[0] == p.footprint_bytes
    assert result.recommendation.per_worker_bytes == pr.largest_bytes
    assert result.recommendation.reason.startswith("core-bound: 2 core(s), and memory would "
                                                   "allow ")
    # No spread note: the plate's own measurement is sized for the plate.
    assert not any("benchmark_plate()" in n for n in result.measurement.notes)
    assert result.eta_seconds is not None and pr.total_seconds is not None
    assert result.eta_seconds == pytest.approx(max(pr.total_seconds / 2, pr.slowest_seconds))
    with pytest.raises(ValueError, match="not an item of this plate of 24"):
        result.item_prediction(24)
    dataclass_frozen = pytest.raises(Exception, match="cannot assign")
    with dataclass_frozen:
        result.eta_seconds = 1.0  # type: ignore[misc]


def test_the_report_carries_the_plate_section(tmp_path: Path) -> None:
    fields = _files(tmp_path, plate_works.plate_sizes("gradient", 12))
    result = spacrbench.benchmark_plate(plate_works.light_field_work, fields, cores=2)
    text = spacrbench.format_report(result)
    assert text.startswith("spaCR benchmark\n")
    plate = text[text.index("\nplate\n") + 1:]
    assert plate.startswith("plate\n  items               12, 6 measured (1 warm-up) across "
                            "the file size\n")
    assert "\n  largest predicted   " in plate and "\n  plate time          ETA " in plate
    assert all(len(line) <= 79 for line in plate.splitlines()), plate
    md = spacrbench.format_report(result, format="markdown")
    assert "field\\_" in md  # the measured items' labels, as they ran (escaped)
    with pytest.raises(ValueError, match="carries its recommendation"):
        spacrbench.format_report(result, result.recommendation)


def test_a_key_that_does_not_explain_memory_falls_back_and_says_so(tmp_path: Path) -> None:
    """The dense well's files are the SMALL ones here (they compress
    better): file size says nothing of memory, so the plate takes the
    largest measured plus the spread, and says why."""
    sizes = [20 * 1024 + 500 * (i % 5) for i in range(12)]
    fields = _files(tmp_path, sizes)
    dense = {fields[3], fields[7]}
    sizes[3] = sizes[7] = 8 * 1024
    for i in (3, 7):
        with open(fields[i], "wb") as f:
            f.write(os.urandom(sizes[i]))

    def work(path: str) -> None:
        plate_works.light_field_work(path)
        if path in dense:  # 96 MiB more, whatever its file says
            plate_works.field_work_bytes(96 * MiB, 0.1)

    result = spacrbench.benchmark_plate(work, fields, cores=2, available_bytes=2**30,
                                        reserve_bytes=0)
    pr = result.prediction
    assert pr.fit == "unexplained", pr
    assert any("the file size does not explain the measured footprints" in n for n in pr.notes)
    assert pr.largest_measured_bytes is not None and pr.spread_bytes is not None
    assert pr.largest_bytes == pr.largest_measured_bytes + pr.spread_bytes
    assert pr.largest_measured_bytes >= 90 * MiB  # the smallest file (a dense field) measured
    assert "; the file size does not explain the measured footprints, so the plate's largest " \
           "field is taken to need " in result.recommendation.reason


def test_a_keyless_plate_is_evenly_spaced_and_says_so() -> None:
    seen: List[int] = []

    def work(i: int) -> None:
        seen.append(i)
        plate_works.field_work_bytes((8 + i % 3) * MiB, 0.1)

    result = spacrbench.benchmark_plate(work, list(range(50)))
    assert seen == [25, 0, 12, 24, 37, 49]  # the warm-up nearest the middle, then evenly
    assert [p.why for p in result.sample] == ["warmup"] + ["even"] * 5
    assert all(p.key is None for p in result.sample)
    pr = result.prediction
    assert pr.fit == "keyless" and pr.key == "none" and pr.largest_key is None
    assert any("the plate's largest item cannot be predicted" in n for n in pr.notes)
    assert any("neither paths of existing files nor arrays" in n
               for n in result.measurement.notes)
    assert "; the plate's largest field cannot be predicted without a key" in \
        result.recommendation.reason


def test_arrays_are_keyed_by_nbytes() -> None:
    arrays = [memoryview(bytes(n * 1024)) for n in (4, 4, 4, 64, 4, 4, 4, 4)]
    result = spacrbench.benchmark_plate(lambda a: plate_works.field_work_bytes(a.nbytes * 64),
                                        arrays, sample=3)
    assert result.prediction.key_name == "nbytes" and result.prediction.key == "bytes"
    assert any(p.index == 3 and p.why == "largest_key" for p in result.sample)


def test_a_plate_of_100000_items_reads_each_key_once() -> None:
    calls = 0

    def key(i: int) -> float:
        nonlocal calls
        calls += 1
        return float((i * 7919) % 100003)

    ran: List[int] = []
    result = spacrbench.benchmark_plate(ran.append, range(100_000), key=key)
    assert calls == 100_000
    assert len(ran) == 6
    largest = max(range(100_000), key=lambda i: ((i * 7919) % 100003, -i))
    assert largest in ran
    assert result.prediction.items == 100_000 and result.prediction.key == "number"
    assert result.prediction.total_seconds is not None


@pytest.mark.parametrize("bad, error, words", [
    (lambda i: -1.0 if i == 7 else 1.0, ValueError, r"key\(items\[7\]\) is -1.0; a key must be "
                                                    r"a finite number >= 0"),
    (lambda i: math.nan if i == 7 else 1.0, ValueError, r"key\(items\[7\]\) is nan"),
    (lambda i: math.inf if i == 7 else 1.0, ValueError, r"key\(items\[7\]\) is inf"),
    (lambda i: "big" if i == 7 else 1.0, TypeError, r"key\(items\[7\]\) returned 'big' \(str\), "
                                                    r"not a number; the item is 7"),
    (lambda i: None if i == 7 else 1.0, TypeError, r"key\(items\[7\]\) returned None"),
    (lambda i: True, TypeError, r"key\(items\[0\]\) returned True \(bool\)"),
    (lambda i: 1 / (i - 7) if i == 7 else 1.0, ValueError, r"key\(items\[7\]\) raised ZeroDivisionError: division "
                                        r"by zero; the item is 7"),
])
def test_hostile_keys_name_the_item_and_nothing_runs(bad: Any, error: type, words: str) -> None:
    threads = threading.active_count()
    ran: List[int] = []
    with pytest.raises(error, match=words) as caught:
        spacrbench.benchmark_plate(ran.append, list(range(20)), key=bad)
    assert isinstance(caught.value, spacrbench.SpacrbenchError)
    assert ran == []  # keys are read before any work
    assert threading.active_count() == threads and multiprocessing.active_children() == []


def test_bad_arguments_are_refused_before_any_work() -> None:
    ran: List[int] = []
    with pytest.raises(ValueError, match="sample must be >= 1"):
        spacrbench.benchmark_plate(ran.append, [1, 2], sample=0)
    with pytest.raises(TypeError, match="warmup must be an int"):
        spacrbench.benchmark_plate(ran.append, [1, 2], warmup=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unexpected keyword argument.*corse"):
        spacrbench.benchmark_plate(ran.append, [1, 2], corse=2)
    with pytest.raises(ValueError, match="vram_reserve_bytes must be >= 0"):
        spacrbench.benchmark_plate(ran.append, [1, 2], vram_reserve_bytes=-1)
    with pytest.raises(ValueError, match="^reserve_bytes"):
        spacrbench.benchmark_plate(ran.append, [1, 2], reserve_bytes="-1G")
    with pytest.raises(ValueError, match="at least one item"):
        spacrbench.benchmark_plate(ran.append, [])
    with pytest.raises(TypeError, match="key must be a callable"):
        spacrbench.benchmark_plate(ran.append, [1, 2], key=3)  # type: ignore[arg-type]
    assert ran == []


def test_a_plain_benchmark_of_differing_items_names_benchmark_plate(tmp_path: Path) -> None:
    fields = _files(tmp_path, [20 * 1024, 20 * 1024, 120 * 1024, 20 * 1024])
    m = spacrbench.benchmark(plate_works.light_field_work, fields, warmup=1)
    spread = [i for i, n in enumerate(m.notes) if "spacrbench.benchmark_plate()" in n]
    assert len(spread) == 1, m.notes
    note = m.notes[spread[0]]
    assert re.match(r"the measured items' footprints differ by [56]\.\dx \(2\d\.\d MiB to 1\d\d\.\d "
                    r"MiB\): the plate's other items may need more", note), note
    # spaCR's notes first, in spaCR's order; ours after them.
    assert m.notes[0] == "1 warm-up item(s) excluded from the timing"
    spacr = [i for i, n in enumerate(m.notes)
             if n == m.notes[0] or n.startswith("no CUDA device, so VRAM was not measured")]
    assert spacr == list(range(len(spacr))) and spread[0] > spacr[-1]
    assert spread[0] == len(m.notes) - 1
    # Items that agree: no such note.
    m = spacrbench.benchmark(plate_works.light_field_work, fields[:2] + fields[3:], warmup=1)
    assert not any("benchmark_plate" in n for n in m.notes)


def test_a_negative_reserve_keeps_spacrs_arithmetic_for_the_plate() -> None:
    """benchmark_plate() takes recommend_workers()'s keywords as it does."""
    r = spacrbench.benchmark_plate(lambda i: None, list(range(8)), sample=2,
                                   cores=4, available_bytes=-5, reserve_bytes=-8 * 2**30)
    assert r.recommendation.available_bytes == -5
    assert "reserve_bytes -8.00 GiB is negative: as in spaCR" in r.recommendation.reason
