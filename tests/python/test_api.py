"""The public surface matches spaCR's spacr.benchmark: names, field order,
defaults, derived figures, wording users grep for."""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import re

import pytest
from helpers import MiB

import spacrbench
from spacrbench import Measurement, Recommendation

GiB = 1024**3


def hand_made(work_bytes: int = 500 * MiB, baseline: int = 100 * MiB) -> Measurement:
    return Measurement(items=4, seconds=2.0, peak_rss_bytes=baseline + work_bytes,
                       baseline_rss_bytes=baseline)


def test_measurement_fields_start_like_spacr() -> None:
    names = [f.name for f in dataclasses.fields(Measurement)]
    assert names[:6] == ["items", "seconds", "peak_rss_bytes", "peak_vram_bytes",
                         "baseline_rss_bytes", "notes"]
    for extra in ("records", "cpu_seconds", "warmup_items", "warmup_seconds",
                  "peak_method", "vram_source", "gpus"):
        assert extra in names
    m = Measurement(items=1, seconds=1.0, peak_rss_bytes=10)
    assert m.peak_vram_bytes is None and m.baseline_rss_bytes == 0 and m.notes == []
    other = Measurement(items=1, seconds=1.0, peak_rss_bytes=10)
    assert m.notes is not other.notes  # default_factory, not a shared list


def test_measurement_is_frozen() -> None:
    m = hand_made()
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.items = 3  # type: ignore[misc]


def test_derived_figures() -> None:
    m = Measurement(items=4, seconds=2.0, peak_rss_bytes=300, baseline_rss_bytes=100)
    assert m.items_per_second == 4 / 2.0
    assert m.per_item_seconds == 2.0 / 4
    assert m.work_rss_bytes == 200
    assert math.isnan(Measurement(items=3, seconds=0.0, peak_rss_bytes=1).items_per_second)
    assert math.isnan(Measurement(items=3, seconds=-1.0, peak_rss_bytes=1).items_per_second)
    assert math.isnan(Measurement(items=0, seconds=1.0, peak_rss_bytes=1).per_item_seconds)
    assert Measurement(items=1, seconds=1, peak_rss_bytes=5, baseline_rss_bytes=9).work_rss_bytes == 0


def test_measurement_to_dict_is_json() -> None:
    m = Measurement(items=0, seconds=0.0, peak_rss_bytes=7, notes=["a"])
    d = json.loads(json.dumps(m.to_dict()))
    assert d["peak_rss_bytes"] == 7 and d["notes"] == ["a"]
    assert d["items_per_second"] is None  # NaN is not JSON


def test_recommendation_fields_and_str() -> None:
    names = [f.name for f in dataclasses.fields(Recommendation)]
    assert names[:5] == ["workers", "reason", "measurement", "cores", "available_bytes"]
    r = Recommendation(workers=3, reason="because")
    assert str(r) == "3 worker(s): because"
    assert r.measurement is None and r.cores == 0 and r.available_bytes == 0


def test_signatures_match_spacr() -> None:
    sig = inspect.signature(spacrbench.benchmark)
    assert list(sig.parameters)[:4] == ["work", "items", "warmup", "progress"]
    assert sig.parameters["warmup"].default == 1
    assert sig.parameters["warmup"].kind is inspect.Parameter.KEYWORD_ONLY
    sig = inspect.signature(spacrbench.recommend_workers)
    params = sig.parameters
    assert list(params)[:5] == ["measurement", "cores", "available_bytes", "reserve_bytes", "maximum"]
    # Deliberately not spaCR's fixed 2 GiB: None keeps 2 GiB on a host and 10% of a binding
    # cgroup limit inside a job or container (docs/python.md); a number still wins.
    assert params["reserve_bytes"].default is None and params["maximum"].default == 32
    assert params["start_method"].default is None
    assert params["start_method"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["cores"].default is None and params["available_bytes"].default is None


def test_recommend_keeps_the_measurement_object() -> None:
    m = hand_made()
    rec = spacrbench.recommend_workers(m, cores=4, available_bytes=64 * GiB)
    assert rec.measurement is m


def test_memory_bound() -> None:
    m = hand_made(work_bytes=1 * GiB)
    available, reserve = 7 * GiB, 2 * GiB
    rec = spacrbench.recommend_workers(m, cores=64, available_bytes=available,
                                       reserve_bytes=reserve)
    assert rec.workers == (available - reserve) // m.work_rss_bytes
    assert "memory-bound" in rec.reason and rec.bound == "memory"
    assert rec.per_worker_bytes == m.work_rss_bytes
    assert rec.available_bytes == available and rec.reserve_bytes == reserve


def test_core_bound() -> None:
    rec = spacrbench.recommend_workers(hand_made(), cores=3, available_bytes=512 * GiB)
    assert rec.workers == 3 and rec.cores == 3
    assert "core-bound" in rec.reason and rec.bound == "cores"


def test_capped_at_maximum() -> None:
    rec = spacrbench.recommend_workers(hand_made(), cores=64, available_bytes=512 * GiB,
                                       maximum=5)
    assert rec.workers == 5 and "capped at the 5-worker maximum" in rec.reason


def test_no_measurement_falls_back_to_cores() -> None:
    rec = spacrbench.recommend_workers(None, cores=6, available_bytes=1 * GiB)
    assert rec.workers == 6 and "no usable memory measurement" in rec.reason
    assert rec.measurement is None


def test_one_worker_at_a_time() -> None:
    rec = spacrbench.recommend_workers(hand_made(work_bytes=4 * GiB), cores=8,
                                       available_bytes=3 * GiB, reserve_bytes=2 * GiB)
    assert rec.workers == 1 and "one worker at a time" in rec.reason


def test_cores_below_one_count_as_one() -> None:
    for cores in (0, -5):
        rec = spacrbench.recommend_workers(hand_made(), cores=cores, available_bytes=64 * GiB)
        assert rec.workers == 1 and rec.cores == 1


def test_discovered_machine_figures() -> None:
    rec = spacrbench.recommend_workers(hand_made())
    assert rec.cores >= 1 and 1 <= rec.workers <= 32
    assert rec.available_bytes == pytest.approx(spacrbench.available_memory_bytes(), rel=0.2)
    assert spacrbench.available_memory_bytes() > 0


@pytest.mark.parametrize("kwargs, name", [
    ({"vram_reserve_bytes": -1}, "vram_reserve_bytes"),
    ({"free_vram_bytes": -1}, "free_vram_bytes"),
    ({"cores": "eight"}, "cores"),
    ({"available_bytes": "8 gigs"}, "available_bytes"),  # "8G" is a size (test_sizes.py)
    ({"reserve_bytes": float("nan")}, "reserve_bytes"),
    ({"cores": float("inf")}, "cores"),
])
def test_recommend_rejects_what_int_rejects(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        spacrbench.recommend_workers(hand_made(), **kwargs)


@pytest.mark.parametrize("name, value", [
    ("vram_reserve_bytes", -10**30), ("free_vram_bytes", -10**30),
    ("vram_reserve_bytes", -1.5), ("free_vram_bytes", -(2**63)),
])
def test_a_negative_vram_figure_is_quoted_as_passed(name: str, value: object) -> None:
    """-10**30 was reported as the clamped -9223372036854775807."""
    with pytest.raises(ValueError, match=rf"{name} must be >= 0, not {re.escape(repr(value))}$"):
        spacrbench.recommend_workers(hand_made(), **{name: value})


def test_huge_vram_figures_are_still_clamped_to_64_bits() -> None:
    rec = spacrbench.recommend_workers(hand_made(), cores=2, available_bytes=GiB,
                                       vram_reserve_bytes=10**30, free_vram_bytes=10**30)
    assert rec.vram_reserve_bytes == 2**63 - 1


@pytest.mark.parametrize("kwargs, name", [
    ({"cores": [8]}, "cores"),
    ({"available_bytes": object()}, "available_bytes"),
    ({"maximum": None}, "maximum"),
    ({"maximum": "3"}, "maximum"),  # spaCR's min(cores, "3") raised TypeError too
])
def test_recommend_rejects_bad_types(kwargs: dict, name: str) -> None:
    with pytest.raises(TypeError, match=name):
        spacrbench.recommend_workers(hand_made(), **kwargs)


def test_recommend_rejects_a_non_measurement() -> None:
    with pytest.raises(TypeError, match="measurement.*dict lacks seconds, peak_rss_bytes"):
        spacrbench.recommend_workers({"items": 1})  # type: ignore[arg-type]


def test_hand_made_garbage_is_an_error_not_a_crash() -> None:
    with pytest.raises(ValueError, match="items"):
        spacrbench.recommend_workers(Measurement(items=math.nan, seconds=1, peak_rss_bytes=1))
    with pytest.raises(ValueError, match="peak_method"):
        spacrbench.format_report(dataclasses.replace(hand_made(), peak_method="guess"))
    with pytest.raises(TypeError):
        spacrbench.format_report(Measurement(items="x", seconds=1, peak_rss_bytes=1))  # type: ignore[arg-type]


def test_report_labels_and_reason() -> None:
    m = dataclasses.replace(hand_made(), notes=["hand-made note 42"])
    rec = spacrbench.recommend_workers(m, cores=4, available_bytes=64 * GiB)
    text = spacrbench.format_report(m, rec)
    for label in ("throughput", "peak RSS", "VRAM", "recommended workers", "because"):
        assert label in text
    assert rec.reason in text
    assert "hand-made note 42" in text


def test_report_of_a_hand_built_recommendation() -> None:
    text = spacrbench.format_report(hand_made(), Recommendation(workers=7, reason="my own reason"))
    assert "my own reason" in text and "7" in text


def test_recommendation_to_dict_is_json() -> None:
    m = hand_made()
    rec = spacrbench.recommend_workers(m, cores=2, available_bytes=8 * GiB)
    d = json.loads(json.dumps(rec.to_dict()))
    assert d["workers"] == rec.workers and d["reason"] == rec.reason
    assert d["measurement"]["peak_rss_bytes"] == m.peak_rss_bytes


def test_scheduler_hand_off() -> None:
    m = hand_made(work_bytes=3 * GiB)
    rec = spacrbench.recommend_workers(m, cores=16, available_bytes=64 * GiB)
    slurm = rec.to_slurm()
    assert "#SBATCH" in slurm and "--mem=" in slurm
    dask = rec.to_dask()
    assert set(dask) == {"n_workers", "threads_per_worker", "memory_limit"}
    assert dask["n_workers"] >= 1 and dask["memory_limit"] >= m.peak_rss_bytes
    assert "n_workers" in rec.to_dask(text=True)


def test_version_check_names_both_versions() -> None:
    from spacrbench._binding import check_version

    check_version(10000, 10000)
    with pytest.raises(ImportError, match=r"1\.0\.0.*1\.2\.3"):
        check_version(10000, 10203)


def test_versions_agree() -> None:
    from spacrbench._binding import ffi, lib

    assert ffi.string(lib.spacrbench_version_string()).decode() == spacrbench.__version__
