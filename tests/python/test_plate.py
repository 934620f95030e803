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

import dataclasses
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
from typing import Any, Dict, Iterator, List

import pytest

import spacrbench
from helpers import linux_only

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import plate_works  # noqa: E402

MiB = 2**20


def run_experiment(tmp_path: Path, shape: str, limit: int, counts: str,
                   repeats: int = 1) -> Dict[str, Any]:
    plate = tmp_path / "plate"
    plate.mkdir()
    plate_works.write_plate(str(plate), plate_works.plate_sizes(shape),
                            plate_works.plate_needs(shape))
    env = dict(os.environ, PLATE_POOL_REPEATS=str(repeats), PLATE_WORK_CPU="0.5")
    try:
        with plate_works.memory_cgroup(limit, "sbtest-plate") as cg:
            got = subprocess.run([sys.executable, str(HERE / "plate_works.py"), str(cg),
                                  str(plate), counts], capture_output=True, text=True,
                                 timeout=300, env=env)
            left = (cg / "cgroup.procs").read_text().split()
    except plate_works.NoCgroup as why:  # raised before anything runs
        pytest.skip(str(why))
    assert got.returncode == 0, got.stderr
    assert left == [], f"processes left in the cgroup: {left}"
    result: Dict[str, Any] = json.loads(got.stdout.splitlines()[-1])
    return result


def pool_figures(pools: List[Dict[str, Any]]) -> str:
    """Per count: its throughput and runs, or that it was OOM-killed."""
    shown = []
    for p in pools:
        if p["completed"]:
            runs = ", ".join(f"{x:.2f}" for x in p["runs"])
            shown.append(f"{p['workers']}: {p['items_per_second']:.2f} items/s (runs {runs})")
        else:
            shown.append(f"{p['workers']}: OOM-killed ({p['oom_kills']} kill(s))")
    return "; ".join(shown)


# The proof (finding 8): real pools of every count 1..3 over the whole
# plate, in a real v1 memory cgroup. "dense": the plate; "equal":
# every file the same size, the dense well in the middle all the same (the
# first fields say nothing of it; the spread sample measures it);
# "sparse" (every field alike and small): every count completes, so the
# plate's count is tested against others that complete, not only against
# OOM kills. Each count runs twice where more than one completes: their
# spread is the measurement's.
PROOF_PLATES = [("dense", 256 * MiB, True), ("equal", 256 * MiB, True),
                ("sparse", 256 * MiB, False)]


@pytest.mark.slow  # 4 to 7 s each: pools of 1..3 over 12 fields
@linux_only("real v1 memory cgroups and fork pools")
@pytest.mark.parametrize("shape, limit, three_oom", PROOF_PLATES,
                         ids=[p[0] for p in PROOF_PLATES])
def test_the_plate_advice_completes_with_the_best_throughput(tmp_path: Path, shape: str,
                                                              limit: int,
                                                              three_oom: bool) -> None:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs 2 cores: with one the first three's advice is one worker too")
    r = run_experiment(tmp_path, shape, limit, "1,2,3", repeats=1 if three_oom else 2)
    three, plate, pools = r["first_three"], r["plate"], r["pools"]
    print(f"{shape}, {limit >> 20} MiB: first three {three['workers']}, plate "
          f"{plate['workers']} ({plate['fit']}); pools {pool_figures(pools)}")
    print(plate["report"])
    assert three["memory_source"] == "cgroup_v1"
    by_count = {p["workers"]: p for p in pools}
    assert sorted(by_count) == [1, 2, 3]
    # The plate's pool completes, with no OOM kill ...
    mine = by_count[plate["workers"]]
    assert mine["completed"] and mine["oom_kills"] == 0, pools
    # Which completing count is fastest is timing on a shared machine (the
    # sparse plate's 2 against 3 flipped under load): tests/perf/
    # bench_plate_pools.py prints those throughputs side by side. Here: a
    # plate whose fields are all alike gets the first fields' advice.
    done = [p for p in pools if p["completed"]]
    assert len(done) == 1 or all(len(p["runs"]) == 2 for p in done)
    if not three_oom:
        assert len(done) == 3 and plate["workers"] == three["workers"], (plate, three)
    # No count at or below the plate's is OOM-killed.
    assert all(p["completed"] for p in pools if p["workers"] <= plate["workers"]), pools
    if three_oom:
        # What the user saw: the first three fields say two workers,
        # and two are OOM-killed at the dense well.
        assert three["workers"] == 2 and three["reason"].startswith("core-bound: 2 core(s)")
        assert not by_count[2]["completed"] and by_count[2]["oom_kills"] >= 1, pools
        assert plate["workers"] == 1
        assert any(6 <= i <= 8 for i in plate["measured"]), plate["measured"]  # the well
        assert plate["largest_bytes"] >= 140 * MiB
    if shape == "dense":
        assert plate["fit"] == "key"
        assert re.search(r"; the plate's largest field \(file size 121 KiB, 5\.8x the plate's "
                         r"median file size\) is predicted to need 0\.1\d GiB$",
                         plate["reason"]), plate["reason"]
    if shape == "equal":
        assert plate["fit"] == "unexplained"
        assert "; the file size is the same for every field, so the plate's largest field " \
               "is taken to need " in plate["reason"]
    if shape == "sparse":
        assert plate["workers"] == 2 and len(done) == 3
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
    # By the plate's size: 5 + ceil(1.5 ln(24 / 5)) = 8, and the warm-up.
    assert len(result.sample) == 9 and result.sample[0].is_warmup
    assert [p.item for p in result.sample] == [fields[p.index] for p in result.sample]
    whys = {p.why for p in result.sample}
    assert {"largest_key", "smallest_key", "warmup"} <= whys
    largest = max(range(24), key=lambda i: (os.path.getsize(fields[i]), -i))
    assert any(p.index == largest and p.why == "largest_key" for p in result.sample)
    pr = result.prediction
    assert pr.items == 24 and pr.measured == 9 and pr.key == "bytes"
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
    result = spacrbench.benchmark_plate(plate_works.light_field_work, fields, cores=2, sample=5)
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
    largest measured plus ln(n / k) x the disagreement (k the least sample
    the plate measures), and says why."""
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
    # ln(12 / 7) x (the disagreement, which holds the dense well's) above
    assert pr.largest_bytes > pr.largest_measured_bytes + 0.5 * pr.spread_bytes
    assert any("the plate's bound: the largest measured" in n for n in pr.notes)
    assert pr.largest_measured_bytes >= 90 * MiB  # the smallest file (a dense field) measured
    assert "; the file size does not explain the measured footprints, so the plate's largest " \
           "field is taken to need " in result.recommendation.reason


def test_a_keyless_plate_is_evenly_spaced_and_says_so() -> None:
    seen: List[int] = []

    def work(i: int) -> None:
        seen.append(i)
        plate_works.field_work_bytes((8 + i % 3) * MiB, 0.1)

    result = spacrbench.benchmark_plate(work, list(range(50)), sample=5)
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
    # No export names an unmeasured item as the largest (the review's
    # Markdown said "item 2").
    text = spacrbench.format_report(result)
    md = spacrbench.format_report(result, format="markdown")
    assert ": any item not measured (no key tells" in text
    assert "), any item not measured (no key tells which is largest" in md
    assert "), item " not in md.split("Predicted largest:")[1].split("\n")[0]


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
    assert len(ran) == 21  # 5 + ceil(1.5 ln(100000 / 5)), and the warm-up
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
        spacrbench.benchmark_plate(ran.append, [1, 2], sample=0)  # None: by the plate
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


def _measured(result: Any) -> List[int]:
    return sorted(p.index for p in result.sample if not p.is_warmup)


def test_equal_and_few_keys_spread_the_sample_through_the_plate() -> None:
    """Finding 1: equal keys measured the first K items; now they spread
    through the plate (evenly, first and last), and a note says why."""
    ran: List[int] = []
    r = spacrbench.benchmark_plate(ran.append, list(range(12)), key=lambda i: 500.0, sample=5)
    assert _measured(r) == [0, 3, 6, 8, 11]
    assert ran[0] == 5  # the warm-up, next to the middle
    assert any("every item of the plate has the same key" in n for n in r.prediction.notes)
    # Two values, alternating: each value's items spread.
    r = spacrbench.benchmark_plate(ran.append, list(range(12)), key=lambda i: 1.0 + i % 2,
                                   sample=5)
    assert _measured(r) == [0, 1, 7, 10, 11]  # a halfway step goes to the larger key
    # Duplicated items: ten times "a", then "b".
    items = ["a"] * 10 + ["b"]
    r = spacrbench.benchmark_plate(lambda x: None, items, key=lambda x: 5.0 if x == "a" else 7.0,
                                   warmup=0, sample=5)
    assert _measured(r) == [0, 2, 5, 9, 10]  # a's run: first, last, middle, quarter (nested)
    assert r.sample[0].index == 10 and r.sample[0].why == "largest_key"  # it runs first


def test_the_warmup_is_cut_not_the_sample() -> None:
    """Finding 7: warmup=100 on 12 items gave a sample of 1."""
    r = spacrbench.benchmark_plate(lambda i: None, list(range(12)), key=float, warmup=100,
                                   sample=5)
    assert len(_measured(r)) == 5
    assert sum(p.is_warmup for p in r.sample) == 7
    assert r.measurement.items == 5 and r.measurement.warmup_items == 7
    assert any("the warm-up was cut to 7 item(s) (100 asked)" in n for n in r.prediction.notes)
    r = spacrbench.benchmark_plate(lambda i: None, list(range(4)), key=float, sample=5)
    assert len(_measured(r)) == 4 and r.measurement.warmup_items == 0
    assert any("no warm-up item (1 asked)" in n for n in r.prediction.notes)


def test_the_largest_runs_first_so_its_failure_shows_at_once() -> None:
    ran: List[int] = []

    def work(i: int) -> None:
        ran.append(i)
        if i == 19:
            raise MemoryError("the dense field")

    with pytest.raises(MemoryError, match="the dense field"):
        spacrbench.benchmark_plate(work, list(range(20)), key=float, warmup=0)
    assert ran == [19]  # nothing before it, no advice from the small ones


def _mem_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("# --mem = "))


def test_the_plates_handoff_sizes_from_its_prediction(tmp_path: Path) -> None:
    """Finding 2: to_slurm()/to_dask() of a PlateResult's recommendation
    sized from the sample; they size for the plate's predicted largest."""
    d = tmp_path / "fields"
    d.mkdir()  # every file the same size: the largest is an item not measured
    fields = plate_works.write_plate(str(d), plate_works.plate_sizes("equal"),
                                     plate_works.plate_needs("equal"))
    r = spacrbench.benchmark_plate(plate_works.light_field_work, fields, sample=3, cores=2)
    pr, m = r.prediction, r.measurement
    assert pr.largest_bytes is not None and pr.largest_measured_bytes is not None
    assert pr.largest_bytes > pr.largest_measured_bytes  # the prediction is above the sample
    assert pr.largest_index not in [p.index for p in r.sample]
    need = m.baseline_rss_bytes + pr.largest_bytes
    slurm = r.recommendation.to_slurm()
    assert _mem_line(slurm).startswith("# --mem = predicted peak ")
    mem = int(re.search(r"#SBATCH --mem=(\d+)M", slurm).group(1))  # type: ignore[union-attr]
    assert mem * MiB >= need + 256 * MiB
    assert "2 x the predicted slowest item" in slurm or "2 x the slowest item" in slurm
    dask = r.recommendation.to_dask()
    assert dask["memory_limit"] >= (need + 256 * MiB) / 0.6 - MiB
    assert "(predicted peak " in r.recommendation.to_dask(text=True)
    cluster = r.recommendation.to_dask(cluster="slurm")
    assert int(cluster["memory"][:-3]) * MiB >= (need + 256 * MiB) / 0.6 - MiB
    items = tmp_path / "items.txt"
    items.write_text("\n".join(fields) + "\n")
    script = r.recommendation.to_slurm(str(items), str(tmp_path / "job"), ["true", "{}"])
    assert "# --mem = predicted peak " in script
    # The same items measured plainly: the measured peak, as before.
    plain = spacrbench.recommend_workers(spacrbench.benchmark(plate_works.light_field_work,
                                                              fields[:3]), cores=2)
    assert _mem_line(plain.to_slurm()).startswith("# --mem = measured peak ")


def test_the_plot_of_a_plate_read_back_draws_the_plates_advice(tmp_path: Path) -> None:
    """Measurement.plot()'s default recommendation is recommend_workers'
    rule: for a plate's report read back, the plate's predicted largest is
    the need drawn, not the measured items' (the need is the machine's
    neither, so this machine's default gives the plate run's figure)."""
    from spacrbench._convert import recommend_here

    fields = _files(tmp_path, plate_works.plate_sizes("dense", 12))
    r = spacrbench.benchmark_plate(plate_works.light_field_work, fields, sample=5, cores=2,
                                   available_bytes=4 * 2**30, reserve_bytes=0)
    back = spacrbench.Measurement.from_dict(r.measurement.to_dict())
    plain = spacrbench.recommend_workers(dataclasses.replace(back, plate=None), cores=2,
                                         available_bytes=4 * 2**30, reserve_bytes=0)
    assert plain.per_worker_bytes < r.recommendation.per_worker_bytes
    assert recommend_here(back)["per_worker_bytes"] == r.recommendation.per_worker_bytes


def test_the_plate_section_round_trips_and_reaches_every_format(tmp_path: Path) -> None:
    """Issue requirement 3: to_dict() carries the plate section,
    from_dict() reads it back, the report and the exports show it."""
    fields = _files(tmp_path, plate_works.plate_sizes("dense", 12))
    machine = {"cores": 2, "available_bytes": 4 * 2**30, "reserve_bytes": 0}
    r = spacrbench.benchmark_plate(plate_works.light_field_work, fields, sample=5, **machine)
    section = r.measurement.plate
    assert isinstance(section, spacrbench.PlateSection)
    assert section.prediction == r.prediction and section.eta_seconds == r.eta_seconds
    assert section.workers == r.workers
    assert [p.index for p in section.sample] == [p.index for p in r.sample]
    d = r.measurement.to_dict()
    plate = d["plate"]
    assert plate["items"] == 12 and plate["key"] == "bytes" and len(plate["picks"]) == 6
    assert plate["seed"] == section.seed == 40  # the random draw's, a field of its own
    assert [p["index"] for p in plate["picks"]] == [p.index for p in r.sample]
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((HERE.parents[1] / "docs" / "spacrbench.schema.json").read_text())
    jsonschema.validate(d, {"$ref": "#/$defs/measurement", "$defs": schema["$defs"]})
    back = spacrbench.Measurement.from_dict(json.loads(json.dumps(d)))
    assert back.plate == section
    assert back.to_dict() == d
    text = spacrbench.format_report(back)
    assert "\nplate\n  items               12, 6 measured (1 warm-up) across the file size\n" \
        in text
    # The plate's hand-off from a report read back, recommended again: for
    # the plate's largest, as the plate's own run advised.
    again = spacrbench.recommend_workers(back, **machine)
    assert (again.workers, again.reason) == (r.workers, r.recommendation.reason)
    assert again.per_worker_bytes == r.recommendation.per_worker_bytes
    assert "the plate's largest field" in again.reason
    assert _mem_line(again.to_slurm()).startswith("# --mem = ")
    md = spacrbench.format_report(r, format="markdown")
    assert "### Plate: 12 items, 6 measured across the file size" in md
    assert "Predicted largest: **0.1" in md
    csv = spacrbench.format_report(r, format="csv")
    head, *rows = csv.strip().split("\r\n")
    assert head.endswith(",seconds_max,plate_index,plate_key,plate_why,plate_items,"
                         "plate_largest_bytes,plate_largest_index,plate_eta_seconds,"
                         "plate_workers")
    assert [int(row.split(",")[-8]) for row in rows] == [p.index for p in r.sample]
    # The plate's own figures on every row: its items, the predicted
    # largest and which item, the ETA with the workers advised.
    wide = {tuple(row.split(",")[-5:]) for row in rows}
    assert len(wide) == 1
    items, largest, largest_index, eta, workers = wide.pop()
    assert int(items) == 12 and int(largest) == r.prediction.largest_bytes
    assert int(largest_index) == r.prediction.largest_index
    assert float(eta) == pytest.approx(r.eta_seconds, abs=1e-6)  # six decimals, as seconds
    assert int(workers) == r.workers
    # A section made by hand is checked by the library.
    bad = dataclasses.replace(section, sample=section.sample[:-1])
    with pytest.raises(ValueError):
        dataclasses.replace(r.measurement, plate=bad).to_dict()


def test_only_measured_items_are_labelled_and_a_raising_repr_costs_nothing() -> None:
    """Finding 6: repr() ran on every item after the work; one that raised
    threw the measurement away."""
    calls = 0

    class Field:
        def __init__(self, i: int) -> None:
            self.i = i

        def __repr__(self) -> str:
            nonlocal calls
            calls += 1
            raise RuntimeError("no repr")

    r = spacrbench.benchmark_plate(lambda f: None, [Field(i) for i in range(10_000)],
                                   key=lambda f: float(f.i))
    assert calls == 0
    text = spacrbench.format_report(r)
    assert calls == len(r.sample)  # the measured items only, when shown
    assert "<Field object>" in text
    assert "<Field object>" in repr(r.sample[0])


def test_result_types_behave_as_values() -> None:
    """Finding 13: copies, hashing, one-line reprs, numpy bools and huge keys."""
    import copy

    r = spacrbench.benchmark_plate(lambda i: None, list(range(30)), key=float)
    assert copy.copy(r) is r
    deep = copy.deepcopy(r)
    assert deep.prediction == r.prediction and deep.item_prediction(3) == r.item_prediction(3)
    assert hash(r) == hash(r) and r == r and deep != r  # by identity: it holds the plate
    assert len(repr(r.prediction)) < 260 and "note" in repr(r.prediction)
    assert all(n not in repr(r.prediction) for n in r.prediction.notes)
    with pytest.raises(TypeError, match="cannot be pickled"):
        import pickle
        pickle.dumps(r)
    one = spacrbench.benchmark_plate(lambda a: None, [bytearray(100 * i + 1) for i in range(5)],
                                     key=len)
    assert "\n" not in repr(one.sample[0]) and len(repr(one.sample[0])) < 220
    with pytest.raises(ValueError, match=r"key\(items\[0\]\) is 1000.*too large"):
        spacrbench.benchmark_plate(lambda i: None, [1, 2], key=lambda i: 10**400)
    np = pytest.importorskip("numpy")
    with pytest.raises(TypeError, match=r"key\(items\[0\]\) returned .*True.*not a number"):
        spacrbench.benchmark_plate(lambda i: None, [1, 2], key=lambda i: np.bool_(True))
    arrays = [np.zeros((40, 40)) + i for i in range(4)]
    shown = repr(spacrbench.benchmark_plate(lambda a: None, arrays, sample=2).sample[0])
    assert "\n" not in shown and len(shown) < 220


def test_a_stray_item_that_costs_the_plate_its_key_is_a_warning(tmp_path: Path) -> None:
    """Finding 14: one directory among the files drops the key for the
    whole plate; that is said when it happens, naming the item."""
    fields = _files(tmp_path, [20 * 1024] * 6)
    stray = tmp_path / "a_directory"
    stray.mkdir()
    items = fields[:3] + [str(stray)] + fields[3:]
    with pytest.warns(UserWarning, match=r"items\[3\] \('.*a_directory'\) has no file size"):
        r = spacrbench.benchmark_plate(lambda p: None, items, sample=2)
    # Issue 40: the others keep their file size; the stray one is taken to be
    # as large as the largest, and a note says so.
    assert r.prediction.key == "bytes"
    assert any("1 item(s) have no file size (item 4 first" in n for n in r.prediction.notes)
    # A FIFO (never opened) and a symlink loop have none either.
    fifo, loop = tmp_path / "a_fifo", tmp_path / "a_loop"
    os.mkfifo(fifo)
    loop.symlink_to(loop)
    with pytest.warns(UserWarning, match=r"items\[6\] \('.*a_fifo'\) has no file size"):
        r = spacrbench.benchmark_plate(lambda p: None, fields + [str(fifo), loop], sample=2)
    assert r.prediction.key == "bytes"
    assert any("2 item(s) have no file size (item 7 first" in n for n in r.prediction.notes)
    # Paths given as bytes have a file size too.
    r = spacrbench.benchmark_plate(lambda p: None, [os.fsencode(f) for f in fields], sample=2)
    assert r.prediction.key == "bytes" and r.prediction.key_name == "file size"


def test_the_default_keys_errors_name_the_item_and_a_generators_own_error_goes_on(
        tmp_path: Path) -> None:
    """The second review: a path whose __fspath__ raises and a negative
    nbytes named no item (or were dropped); a generator's TypeError was
    replaced by "items must be a sequence"; a missing first file lost the
    key without the warning a missing later one gets."""

    class BadPath(os.PathLike):  # type: ignore[type-arg]
        def __fspath__(self) -> str:
            raise RuntimeError("no path today")

    class Negative:
        nbytes = -3

    ran: List[Any] = []
    with pytest.raises(ValueError, match=r"the file size of items\[0\] .*RuntimeError: no path "
                                         r"today"):
        spacrbench.benchmark_plate(ran.append, [BadPath(), BadPath()])
    with pytest.raises(ValueError, match=r"the nbytes of items\[1\] .*below 0"):
        spacrbench.benchmark_plate(ran.append, [memoryview(b"ab"), Negative()])
    assert ran == []

    def rows() -> Iterator[int]:
        yield 1
        raise TypeError("bad row 2")

    with pytest.raises(TypeError, match="^bad row 2$"):
        spacrbench.benchmark_plate(ran.append, rows())
    fields = _files(tmp_path, [20 * 1024] * 3)
    with pytest.warns(UserWarning, match=r"items\[0\] \('.*missing.tif'\) has no file size as "
                                         r"other items have"):
        r = spacrbench.benchmark_plate(lambda p: None, [str(tmp_path / "missing.tif")] + fields,
                                       sample=2)
    assert r.prediction.key == "bytes"


def test_the_default_sample_grows_while_the_largest_still_moves() -> None:
    """Issue 40: sample=None measures sequentially. Items that all need the
    same stop at the plate-sized sample (5 + ceil(1.5 ln(400 / 5)) = 12,
    and the warm-up); items that each need 16 MiB more than the one before
    keep moving the predicted largest, so more are measured (within 5 % of
    the plate's time beyond the least: 20 items), and the user's progress
    sees every measured item."""
    least = 5 + math.ceil(1.5 * math.log(400 / 5))
    flat = spacrbench.benchmark_plate(lambda i: None, range(400), key=float)
    assert len(flat.sample) == least + 1
    calls: List[int] = []

    def rising(item: int) -> None:
        block = b"x" * (16 * MiB * (len(calls) + 1))  # written: resident
        calls.append(len(block))

    seen: List[spacrbench.Progress] = []
    grown = spacrbench.benchmark_plate(rising, range(400), key=float, progress=seen.append)
    assert least + 1 < len(grown.sample) <= least + 1 + 20 + 1
    assert len(calls) == len(grown.sample) == len(seen)
    assert grown.measurement.items + grown.measurement.warmup_items == len(grown.sample)
    fixed = spacrbench.benchmark_plate(lambda i: None, range(400), key=float, sample=30)
    assert len(fixed.sample) == 31
    # The cost is the user's: none measures the least sample alone.
    calls.clear()
    cheap = spacrbench.benchmark_plate(rising, range(400), key=float, sample_cost=0)
    assert len(cheap.sample) == len(calls) == least + 1


def test_sample_cost_is_a_share() -> None:
    ran: List[Any] = []
    for bad in (-0.1, 1.5, math.nan):
        with pytest.raises(ValueError, match="sample_cost is"):
            spacrbench.benchmark_plate(ran.append, range(20), key=float, sample_cost=bad)
    for wrong in ("5%", True, None):
        with pytest.raises(TypeError, match="sample_cost must be a float"):
            spacrbench.benchmark_plate(ran.append, range(20), key=float,
                                       sample_cost=wrong)  # type: ignore[arg-type]
    assert ran == []


def test_sample_cost_is_checked_before_the_items() -> None:
    """An int beyond any float is a ValueError naming sample_cost, not a
    bare OverflowError; a bad cost is refused before the items are read or
    keyed; a fixed sample measures all its items, so a cost of its own is
    refused (the library's rule, as the command's)."""
    read: List[int] = []

    def items() -> Iterator[int]:
        for i in range(20):
            read.append(i)
            yield i

    keyed: List[Any] = []

    def key(item: Any) -> float:
        keyed.append(item)
        return float(item)

    for bad in (10**400, -(10**400), 2, math.nan):
        with pytest.raises(ValueError, match="sample_cost is"):
            spacrbench.benchmark_plate(lambda i: None, items(), key=key, sample_cost=bad)
    with pytest.raises(ValueError, match="sample_cost is 0.5 with a fixed sample"):
        spacrbench.benchmark_plate(lambda i: None, items(), key=key, sample=5, sample_cost=0.5)
    assert read == [] and keyed == []
    fixed = spacrbench.benchmark_plate(lambda i: None, range(20), key=float, sample=5)
    assert len(fixed.sample) == 6


def test_a_costly_sequential_sample_keeps_the_warm_up() -> None:
    """The review: sample_cost=0.8 on 30 items (or the default on 7) cut
    the warm-up and said the sample took every item, though some were left."""
    for n, cost in ((30, 0.8), (7, 0.05)):
        result = spacrbench.benchmark_plate(lambda i: None, range(n), key=float,
                                            sample_cost=cost, warmup=1)
        assert sum(p.is_warmup for p in result.sample) == 1
        assert not any("took all" in note for note in result.prediction.notes)
