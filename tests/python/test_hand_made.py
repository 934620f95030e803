"""Results built by hand, the way spaCR users built them for
spacr.benchmark: float figures, recommendations without evidence, text that
is not valid UTF-8."""

from __future__ import annotations

import math
from typing import Any

import pytest

import spacrbench
from spacrbench import GpuInfo, ItemRecord, Measurement

GiB = 1024**3


def test_float_figures_are_truncated_like_spacr_int() -> None:
    as_floats = Measurement(items=3, seconds=1.0, peak_rss_bytes=4e9)
    as_ints = Measurement(items=3, seconds=1.0, peak_rss_bytes=int(4e9))
    kwargs: Any = dict(cores=64, available_bytes=64 * GiB, reserve_bytes=0)
    got = spacrbench.recommend_workers(as_floats, **kwargs)
    want = spacrbench.recommend_workers(as_ints, **kwargs)
    assert got.workers == want.workers and got.per_worker_bytes == int(4e9)
    assert got.bound == "memory"  # the float peak was used, not ignored
    assert spacrbench.format_report(as_floats, got) == spacrbench.format_report(as_ints, want)


def test_a_fractional_item_count_is_truncated() -> None:
    half = Measurement(items=2.5, seconds=1.0, peak_rss_bytes=10 * 2**20)  # type: ignore[arg-type]
    whole = Measurement(items=2, seconds=1.0, peak_rss_bytes=10 * 2**20)
    assert spacrbench.format_report(half) == spacrbench.format_report(whole)


def test_float_figures_in_records_gpus_and_recommendations() -> None:
    def build(n: Any) -> str:
        m = Measurement(items=n(1), seconds=1, peak_rss_bytes=n(100), peak_vram_bytes=n(5),
                        records=(ItemRecord(index=n(0), seconds=1, peak_rss_bytes=n(99)),),
                        gpus=(GpuInfo(index=n(0), name="g", total_bytes=n(8e9),
                                      free_bytes=n(4e9)),))
        rec = spacrbench.Recommendation(workers=n(2), reason="hand", cores=n(4),
                                        available_bytes=n(GiB), memory_where="here",
                                        cores_where="there")
        return spacrbench.format_report(m, rec)

    assert build(float) == build(int)


@pytest.mark.parametrize("field, value", [
    ("peak_rss_bytes", math.nan), ("items", math.inf), ("baseline_rss_bytes", -math.inf),
    ("peak_vram_bytes", math.nan), ("peak_rss_bytes", 1e30),
])
def test_non_finite_or_huge_figures_are_value_errors_naming_the_field(field: str,
                                                                       value: float) -> None:
    m = Measurement(**{"items": 1, "seconds": 1.0, "peak_rss_bytes": 1, field: value})
    with pytest.raises(ValueError, match=field):
        spacrbench.recommend_workers(m, cores=1, available_bytes=GiB)
    with pytest.raises(ValueError, match=field):
        spacrbench.format_report(m)


@pytest.mark.parametrize("field, value", [
    ("peak_rss_bytes", "4e9"), ("items", None), ("peak_rss_bytes", True),
    ("seconds", "1.0"), ("warmup_items", [1]),
])
def test_non_numbers_are_type_errors_naming_the_field(field: str, value: Any) -> None:
    m = Measurement(**{"items": 1, "seconds": 1.0, "peak_rss_bytes": 1, field: value})
    with pytest.raises(TypeError, match=field):
        spacrbench.format_report(m)


def test_a_negative_float_figure_is_refused_by_the_library_naming_it() -> None:
    with pytest.raises(ValueError, match="items"):
        spacrbench.format_report(Measurement(items=-2.0, seconds=1, peak_rss_bytes=1))  # type: ignore[arg-type]
