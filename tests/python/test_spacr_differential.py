"""Differential test against spaCR itself: spacr 1.5.1.5's spacr/benchmark.py
(standard library only) is taken from the real wheel, downloaded with pip
without its dependencies, and imported standalone. The same inputs go
through both modules; results must be identical except for the differences
docs/python.md lists ("Differences from spaCR"). Skips, saying why, when
PyPI cannot be reached."""

from __future__ import annotations

import importlib.util
import math
import os
import random
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, Iterator, List, Optional

import pytest

import spacrbench

SPACR = "spacr==1.5.1.5"
GiB = 2**30
MiB = 2**20


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    where = Path(os.environ.get("SPACRBENCH_SPACR_WHEELS", "")) if os.environ.get(
        "SPACRBENCH_SPACR_WHEELS") else tmp_path_factory.mktemp("spacr")
    wheels = sorted(where.glob("spacr-1.5.1.5-*.whl"))
    if not wheels:
        got = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                              "--disable-pip-version-check", "-q", "-d", str(where), SPACR],
                             capture_output=True, text=True, timeout=300)
        wheels = sorted(where.glob("spacr-1.5.1.5-*.whl"))
        if got.returncode != 0 or not wheels:
            pytest.skip(f"cannot download {SPACR} from PyPI (offline?): "
                        f"{(got.stderr or got.stdout).strip().splitlines()[-1:]}")
    source = where / "spacr_benchmark.py"
    with zipfile.ZipFile(wheels[0]) as wheel:
        source.write_bytes(wheel.read("spacr/benchmark.py"))
    spec = importlib.util.spec_from_file_location("spacr_benchmark_upstream", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def pairs(upstream: ModuleType, **fields: Any) -> Iterator[Any]:
    yield upstream.Measurement(**fields)
    yield spacrbench.Measurement(**fields)


# Hand-made measurements reaching every branch of spaCR's rule.
BRANCHES: List[Dict[str, Any]] = [
    # fallback: no measurement, and a zero footprint
    dict(m=None, cores=8, available_bytes=64 * GiB, reserve_bytes=2 * GiB, maximum=32),
    dict(m=None, cores=64, available_bytes=64 * GiB, reserve_bytes=2 * GiB, maximum=32),
    dict(m=dict(items=2, seconds=1.0, peak_rss_bytes=GiB, baseline_rss_bytes=GiB),
         cores=4, available_bytes=8 * GiB, reserve_bytes=2 * GiB, maximum=32),
    # one: not even one fits
    dict(m=dict(items=2, seconds=1.0, peak_rss_bytes=4 * GiB), cores=8,
         available_bytes=3 * GiB, reserve_bytes=2 * GiB, maximum=32),
    dict(m=dict(items=2, seconds=1.0, peak_rss_bytes=300 * MiB), cores=8,
         available_bytes=GiB, reserve_bytes=2 * GiB, maximum=32),
    # memory-bound
    dict(m=dict(items=3, seconds=2.5, peak_rss_bytes=900 * MiB, baseline_rss_bytes=100 * MiB),
         cores=64, available_bytes=6 * GiB, reserve_bytes=2 * GiB, maximum=32),
    # core-bound
    dict(m=dict(items=3, seconds=2.5, peak_rss_bytes=300 * MiB, baseline_rss_bytes=50 * MiB),
         cores=4, available_bytes=64 * GiB, reserve_bytes=2 * GiB, maximum=32),
    # capped at the maximum
    dict(m=dict(items=3, seconds=2.5, peak_rss_bytes=300 * MiB), cores=64,
         available_bytes=512 * GiB, reserve_bytes=2 * GiB, maximum=5),
    # the brief's example: a float available_bytes, as spaCR took it
    dict(m=dict(items=4, seconds=2.0, peak_rss_bytes=4 * GiB, baseline_rss_bytes=0),
         cores=8, available_bytes=3.4e10, reserve_bytes=2e9, maximum=32),
    # fractional cores and reserve
    dict(m=dict(items=1, seconds=0.5, peak_rss_bytes=GiB), cores=2.5,
         available_bytes=16 * GiB, reserve_bytes=2.5e9, maximum=32),
    # cores below 1 count as 1
    dict(m=dict(items=1, seconds=0.5, peak_rss_bytes=GiB), cores=0,
         available_bytes=16 * GiB, reserve_bytes=0, maximum=32),
]


def recommend_both(upstream: ModuleType, case: Dict[str, Any]) -> Any:
    kwargs = {k: v for k, v in case.items() if k != "m"}
    mine_kwargs = dict(kwargs)
    if case["m"] is None:
        return (upstream.recommend_workers(None, **kwargs),
                spacrbench.recommend_workers(None, **mine_kwargs), None, None)
    up_m, my_m = pairs(upstream, **case["m"])
    return (upstream.recommend_workers(up_m, **kwargs),
            spacrbench.recommend_workers(my_m, **mine_kwargs), up_m, my_m)


@pytest.mark.parametrize("case", BRANCHES)
def test_every_branch_gives_spacrs_workers_and_reason(upstream: ModuleType,
                                                      case: Dict[str, Any]) -> None:
    up, mine, _, _ = recommend_both(upstream, case)
    assert mine.workers == up.workers
    assert (mine.cores, mine.available_bytes) == (up.cores, up.available_bytes)
    # spaCR's sentence, whole, then only spacrbench's additions after "; ".
    assert mine.reason == up.reason or mine.reason.startswith(up.reason + "; "), \
        (mine.reason, up.reason)


def test_all_branches_were_reached(upstream: ModuleType) -> None:
    starts = {recommend_both(upstream, case)[0].reason.split(":")[0].split(";")[0].split(" ")[-1]
              for case in BRANCHES}
    reasons = " | ".join(recommend_both(upstream, case)[0].reason for case in BRANCHES)
    for branch in ("memory-bound", "core-bound", "capped at the", "one worker needs",
                   "no usable memory measurement"):
        assert branch in reasons, (branch, starts)


def upstream_lines_lead(up_text: str, my_text: str) -> None:
    """Each of spaCR's lines is in ours, in order: identical, or followed by
    spacrbench's detail (" (...)" or "; ..."); our own extra lines between.
    Ours wrap at 79 columns: a line's continuations (under the value
    column) are joined back to it first."""
    mine = re.sub(r"\n {22}(?=\S)", " ", my_text).split("\n")
    at = 0
    for line in up_text.split("\n"):
        while at < len(mine) and not (mine[at] == line or mine[at].startswith(line + " (")
                                      or mine[at].startswith(line + "; ")):
            at += 1
        assert at < len(mine), f"spaCR's line {line!r} is missing from:\n{my_text}"
        at += 1


REPORTS: List[Dict[str, Any]] = [
    dict(items=4, seconds=2.0, peak_rss_bytes=3 * GiB, baseline_rss_bytes=GiB // 2),
    dict(items=3, seconds=2.5, peak_rss_bytes=900 * MiB, baseline_rss_bytes=100 * MiB,
         peak_vram_bytes=5 * GiB, notes=["1 warm-up item(s) excluded from the timing"]),
    dict(items=0, seconds=0.0, peak_rss_bytes=100 * MiB),
    dict(items=2, seconds=math.nan, peak_rss_bytes=GiB),
    dict(items=2, seconds=-1.0, peak_rss_bytes=GiB),
    dict(items=7, seconds=1e-3, peak_rss_bytes=123456789, peak_vram_bytes=0),
]


@pytest.mark.parametrize("fields", REPORTS)
def test_reports_keep_every_spacr_line(upstream: ModuleType, fields: Dict[str, Any]) -> None:
    up_m, my_m = pairs(upstream, **fields)
    for cores, available in ((8, 64 * GiB), (2, 3 * GiB)):
        up_rec = upstream.recommend_workers(up_m, cores=cores, available_bytes=available)
        my_rec = spacrbench.recommend_workers(my_m, cores=cores, available_bytes=available)
        upstream_lines_lead(upstream.format_report(up_m, up_rec),
                            spacrbench.format_report(my_m, my_rec))
        # spaCR's own objects, duck-typed, give the same report lines.
        upstream_lines_lead(upstream.format_report(up_m, up_rec),
                            spacrbench.format_report(up_m, up_rec))


def test_a_hand_made_report_is_byte_identical(upstream: ModuleType) -> None:
    fields = dict(items=4, seconds=2.0, peak_rss_bytes=3 * GiB)
    up_m, my_m = pairs(upstream, **fields)
    up_rec = upstream.Recommendation(workers=3, reason="chosen by hand")
    mine = spacrbench.format_report(my_m, spacrbench.Recommendation(3, "chosen by hand"))
    up = upstream.format_report(up_m, up_rec)
    # Only the detail after spaCR's values differs: strip it and compare.
    stripped = "\n".join(re.sub(r" \((supplied|above a baseline of 0 B)\)$", "", line)
                         for line in mine.split("\n"))
    assert stripped == up


def test_parsers_written_for_spacr_read_ours(upstream: ModuleType) -> None:
    m = spacrbench.benchmark(lambda i: bytearray(8 * MiB), range(3), warmup=1)
    text = spacrbench.format_report(m, spacrbench.recommend_workers(m))
    peak = float(re.search(r"peak RSS +([\d.]+) GiB", text).group(1))  # type: ignore[union-attr]
    assert peak == round(m.peak_rss_bytes / GiB, 2)
    ips = float(re.search(r"throughput +([\d.]+) item/s \(([\d.]+) s each\)",
                          text).group(1))  # type: ignore[union-attr]
    assert ips == pytest.approx(m.items_per_second, abs=0.006)
    workers = int(re.search(r"recommended workers (\d+)", text).group(1))  # type: ignore[union-attr]
    assert workers >= 1


def test_spacrs_objects_are_accepted(upstream: ModuleType) -> None:
    up_m = upstream.Measurement(items=2, seconds=1.0, peak_rss_bytes=2 * GiB,
                                baseline_rss_bytes=GiB // 2)
    rec = spacrbench.recommend_workers(up_m, cores=8, available_bytes=3.4e10)
    up = upstream.recommend_workers(up_m, cores=8, available_bytes=3.4e10)
    assert (rec.workers, rec.reason) == (up.workers, up.reason) and rec.workers == 8
    assert rec.measurement is up_m  # spaCR keeps the object it was given
    assert rec.to_dict()["measurement"]["peak_rss_bytes"] == 2 * GiB


def test_available_memory_matches_spacr_on_a_host(upstream: ModuleType) -> None:
    ours, theirs = spacrbench.available_memory_bytes(), upstream.available_memory_bytes()
    assert theirs > 0 and ours > 0
    # Ours is MemAvailable capped by any cgroup limit: never more than spaCR's
    # (allowing for memory that moved between the two reads).
    assert ours <= theirs * 1.05 + 64 * MiB


def test_random_sweep_gives_identical_worker_counts(upstream: ModuleType) -> None:
    rng = random.Random(20240612)
    compared = 0
    for _ in range(20_000):
        fields: Optional[Dict[str, Any]] = None
        if rng.random() > 0.05:
            peak = rng.choice([0, rng.randrange(1, 64 * MiB), rng.randrange(1, 64 * GiB)])
            fields = dict(items=rng.randrange(0, 100), seconds=rng.random() * 100,
                          peak_rss_bytes=peak,
                          baseline_rss_bytes=rng.choice([0, rng.randrange(0, peak + 1)]))
        kwargs: Dict[str, Any] = dict(
            cores=rng.choice([rng.randrange(-2, 512), rng.random() * 64]),
            available_bytes=rng.choice([0, rng.randrange(0, 2**40), rng.random() * 2**38,
                                        -rng.randrange(1, 2**36)]),
            reserve_bytes=rng.choice([0, 2 * GiB, rng.randrange(0, 2**36), rng.random() * 2**34,
                                      -rng.randrange(1, 2**36), -rng.random() * 2**34]),
            maximum=rng.randrange(1, 300))
        up_m = None if fields is None else upstream.Measurement(**fields)
        my_m = None if fields is None else spacrbench.Measurement(**fields)
        up = upstream.recommend_workers(up_m, **kwargs)
        mine = spacrbench.recommend_workers(my_m, **kwargs)
        assert mine.workers == up.workers, (fields, kwargs, up, mine)
        assert mine.reason == up.reason or mine.reason.startswith(up.reason + "; "), \
            (fields, kwargs, up.reason, mine.reason)
        compared += 1
    assert compared == 20_000


@pytest.mark.parametrize("kwargs, up_workers, my_workers", [
    # maximum below 1: spaCR says "capped at the 0-worker maximum"; both give 1
    (dict(cores=8, available_bytes=64 * GiB, reserve_bytes=0, maximum=0), 1, 1),
    # a fractional maximum: spaCR returns 2.5 workers; spacrbench 2
    (dict(cores=8, available_bytes=64 * GiB, reserve_bytes=0, maximum=2.5), 2.5, 2),
])
def test_documented_differences(upstream: ModuleType, kwargs: Dict[str, Any],
                                up_workers: Any, my_workers: int) -> None:
    up_m, my_m = pairs(upstream, items=1, seconds=1.0, peak_rss_bytes=GiB)
    assert upstream.recommend_workers(up_m, **kwargs).workers == up_workers
    mine = spacrbench.recommend_workers(my_m, **kwargs)
    assert mine.workers == my_workers and isinstance(mine.workers, int)


def _numeric_values() -> List[Any]:
    """Negative, zero, float, numpy and huge (within 64 bits: beyond them is
    a documented difference), as spaCR code computes them."""
    values: List[Any] = [-5, -1, -GiB, -1.5 * GiB, 0, 0.0, 0.5, 2.5, 3.4e10, 7, 63,
                         2**40, 2**62, 10**18, True, False, math.inf, -math.inf]
    try:
        import numpy as np
    except ImportError:  # the suite's venvs have numpy (matplotlib needs it)
        pytest.fail("numpy is needed for the differential test's numpy values")
    values += [np.int64(-3), np.int32(-GiB // 4), np.int64(0), np.int64(4 * GiB),
               np.float64(2.5e9), np.float32(1.5), np.uint64(2**40), np.int8(-1),
               np.bool_(True), np.bool_(False), np.float64(np.inf)]
    return values


SPACR_KEYWORDS = ("cores", "available_bytes", "reserve_bytes", "maximum")


@pytest.mark.parametrize("keyword", SPACR_KEYWORDS)
def test_every_numeric_value_spacr_takes_gives_its_workers(upstream: ModuleType,
                                                           keyword: str) -> None:
    """For each of spaCR's numeric keywords, every value its int()/min()
    arithmetic takes gives spaCR's worker count, cores and available_bytes,
    and its reason's words first (a negative byte count is clamped as spaCR
    clamps it, with a note after). What spaCR refuses, we refuse too."""
    compared = 0
    for value in _numeric_values():
        for fields in (None, dict(items=2, seconds=1.0, peak_rss_bytes=GiB),
                       dict(items=3, seconds=2.0, peak_rss_bytes=300 * MiB,
                            baseline_rss_bytes=50 * MiB)):
            kwargs: Dict[str, Any] = dict(cores=8, available_bytes=16 * GiB,
                                          reserve_bytes=2 * GiB, maximum=32)
            kwargs[keyword] = value
            up_m = None if fields is None else upstream.Measurement(**fields)
            my_m = None if fields is None else spacrbench.Measurement(**fields)
            try:
                up = upstream.recommend_workers(up_m, **kwargs)
            except (TypeError, ValueError, OverflowError) as refused:
                # the same built-in type, so spaCR's except clauses still hold
                with pytest.raises(type(refused)):
                    spacrbench.recommend_workers(my_m, **kwargs)
                continue
            mine = spacrbench.recommend_workers(my_m, **kwargs)
            where = (keyword, value, fields, up, mine)
            # A fractional maximum: spaCR returns it, a float (2.5 workers);
            # we truncate it (a documented difference).
            assert mine.workers == int(up.workers), where
            assert isinstance(mine.workers, int), where
            assert (mine.cores, mine.available_bytes) == (up.cores, up.available_bytes), where
            if up.reason.startswith("capped at the "):
                # maximum below 1 or fractional: spaCR names it as given, we
                # the one applied (docs/python.md, "Differences from spaCR").
                given = kwargs["maximum"]
                applied = 1 if given == -math.inf else max(1, int(given))
                assert mine.reason == f"capped at the {applied}-worker maximum", where
            else:
                assert mine.reason == up.reason or mine.reason.startswith(up.reason + "; "), where
            compared += 1
    assert compared >= 3 * len(_numeric_values()) - 9  # only int()'s refusals (infinity) skipped


@pytest.mark.parametrize("value", [-3, -1, 0, 1, 2, 2.7, 10**18, True, False])
def test_every_warmup_spacr_takes_gives_its_split(upstream: ModuleType, value: Any) -> None:
    np = pytest.importorskip("numpy")
    for w in (value, np.int64(int(value)), np.float64(float(value))):
        up = upstream.benchmark(lambda i: None, range(4), warmup=w)
        mine = spacrbench.benchmark(lambda i: None, range(4), warmup=w)
        assert mine.items == up.items, (w, up, mine)
        assert [n for n in up.notes if "warm-up" in n] == \
            [n for n in mine.notes if "warm-up item(s) excluded" in n], (w, up.notes, mine.notes)


def test_a_negative_reserve_adds_to_the_budget_as_in_spacr(upstream: ModuleType) -> None:
    up_m, my_m = pairs(upstream, items=1, seconds=1.0, peak_rss_bytes=GiB)
    kwargs = dict(cores=64, available_bytes=4 * GiB, reserve_bytes=-4 * GiB, maximum=64)
    up, mine = upstream.recommend_workers(up_m, **kwargs), spacrbench.recommend_workers(my_m, **kwargs)
    assert up.workers == mine.workers == 8
    assert mine.reason.startswith(up.reason + "; reserve_bytes -4.00 GiB is negative")


def test_a_negative_baseline_counts_as_zero(upstream: ModuleType) -> None:
    # spaCR's footprint became peak + 1 byte; spacrbench's is the peak.
    up_m, my_m = pairs(upstream, items=2, seconds=1.0, peak_rss_bytes=GiB, baseline_rss_bytes=-1)
    kwargs = dict(cores=64, available_bytes=64 * GiB, maximum=64)
    assert upstream.recommend_workers(up_m, **kwargs).workers == 61
    assert spacrbench.recommend_workers(my_m, **kwargs).workers == 62
    rec = upstream.Recommendation(workers=1, reason="hand")
    upstream_lines_lead(upstream.format_report(up_m, rec), spacrbench.format_report(my_m, rec))
