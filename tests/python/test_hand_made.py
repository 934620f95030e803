"""Results built by hand, the way spaCR users built them for
spacr.benchmark: float figures, recommendations without evidence, text that
is not valid UTF-8."""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any, List

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
    half = Measurement(items=2.5, seconds=1.0, peak_rss_bytes=10 * 2**20)
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


def test_negative_figures_count_as_zero() -> None:
    # spaCR printed them as given ("-2", "-0.00 GiB"); nonsense either way.
    text = spacrbench.format_report(Measurement(items=-2.0, seconds=1, peak_rss_bytes=-5,
                                                peak_vram_bytes=-1, baseline_rss_bytes=-1))
    assert "  items measured      0\n" in text
    assert "  peak RSS            0.00 GiB (0 B, supplied)\n" in text
    assert "  peak VRAM           0.00 GiB (0 B, supplied)" in text


def _lines_from_the_library(m: Measurement, workers: int, reason: str) -> List[str]:
    """The recommended-workers and because lines exactly as the C report
    formats them (taken from a report of a recommendation with evidence)."""
    full = spacrbench.Recommendation(workers=workers, reason=reason, cores=1,
                                     available_bytes=GiB, memory_where="m", cores_where="c")
    return [line for line in spacrbench.format_report(m, full).splitlines()
            if line.lstrip().startswith(("recommended workers", "because"))]


def test_spacr_style_recommendation_reports_no_empty_evidence() -> None:
    m = Measurement(items=4, seconds=2.0, peak_rss_bytes=600 * 2**20,
                    notes=["first note", "second note"])
    text = spacrbench.format_report(m, spacrbench.Recommendation(2, "because I said so"))
    assert "()" not in text and "memory available" not in text and "usable cores" not in text
    measured = spacrbench.format_report(m).splitlines()
    assert len(_lines_from_the_library(m, 2, "because I said so")) == 2
    assert text.splitlines() == (measured[:-2] + _lines_from_the_library(m, 2, "because I said so")
                                 + measured[-2:])


def test_spacr_style_recommendation_without_notes() -> None:
    m = Measurement(items=4, seconds=2.0, peak_rss_bytes=600 * 2**20)
    text = spacrbench.format_report(m, spacrbench.Recommendation(5, "five"))
    assert text.splitlines() == (spacrbench.format_report(m).splitlines()
                                 + _lines_from_the_library(m, 5, "five"))


def test_evidence_without_where_says_not_given() -> None:
    m = Measurement(items=4, seconds=2.0, peak_rss_bytes=600 * 2**20)
    rec = spacrbench.Recommendation(3, "given by hand", cores=8, available_bytes=16 * GiB)
    text = spacrbench.format_report(m, rec)
    assert "()" not in text
    cores_line = [line for line in text.splitlines() if "usable cores" in line]
    assert len(cores_line) == 1 and "8 (not given)" in cores_line[0]
    assert "given by hand" in text


@pytest.mark.parametrize("bad, shown", [
    ("\udcff.tif", "\ufffd.tif"),  # os.fsdecode() of the byte 0xff: its byte goes through
    ("\ud800.tif", "?.tif"),       # a lone surrogate that is no escaped byte
])
def test_text_that_is_not_utf8_is_reported_not_refused(bad: str, shown: str) -> None:
    m = Measurement(items=1, seconds=1.0, peak_rss_bytes=2**20, notes=[f"slow file {bad}"],
                    gpus=(GpuInfo(index=0, name=f"gpu {bad}", total_bytes=GiB, free_bytes=GiB),))
    rec = spacrbench.recommend_workers(m, cores=2, available_bytes=8 * GiB)
    text = spacrbench.format_report(m, dataclasses.replace(rec, reason=f"reason {bad}",
                                                           memory_where=f"cg {bad}"))
    text.encode("utf-8")  # printable: no surrogate leaks into the report
    for expected in (f"slow file {shown}", f"gpu {shown}", f"reason {shown}", f"cg {shown}"):
        assert expected in text
    bare = spacrbench.format_report(m, spacrbench.Recommendation(1, f"spaCR {bad}"))
    assert f"spaCR {shown}" in bare


def test_a_long_hand_made_reason_is_kept_whole() -> None:
    from spacrbench import _binding, _convert

    reason = "réservé " * 100 + "end"  # 1003 bytes of UTF-8; the C field holds 511
    rec = spacrbench.Recommendation(workers=2, reason=reason, cores=4, available_bytes=GiB)
    m = Measurement(items=1, seconds=1.0, peak_rss_bytes=2**20)
    text = spacrbench.format_report(m, rec)
    # Wrapped at 79 columns like every line: whole once unwrapped.
    assert f"\n    because           {reason}\n" in re.sub(r"\n {22}(?=\S)", " ", text) + "\n"
    assert "\ufffd" not in text
    assert rec.to_dict()["reason"] == reason and str(rec).endswith(reason)
    held = _binding.ffi.string(_convert.c_recommendation(rec).reason)
    assert 505 <= len(held) <= 511 and reason.encode().startswith(held)
    held.decode("utf-8")  # cut at a character boundary, never inside one


def _small() -> Measurement:
    return Measurement(items=2, seconds=1.0, peak_rss_bytes=2**20)


@pytest.mark.parametrize("make, name", [
    (lambda: (dataclasses.replace(_small(), notes=["fine", "a\0b"]), None), r"notes\[1\]"),
    (lambda: (dataclasses.replace(_small(), vram_reason="no\0GPU"), None), "vram_reason"),
    (lambda: (dataclasses.replace(_small(), gpus=(GpuInfo(0, "A100\0x", GiB, GiB),)), None),
     r"gpus\[0\]\.name"),
    (lambda: (_small(), spacrbench.Recommendation(3, "a\0b")), "reason"),
    (lambda: (_small(), spacrbench.Recommendation(3, "r", cores=2, memory_where="cg\0x")),
     "memory_where"),
    (lambda: (_small(), spacrbench.Recommendation(3, "r", cores=2, cores_where="\0")),
     "cores_where"),
])
def test_a_nul_in_text_for_the_library_is_a_value_error_naming_it(make: Any, name: str) -> None:
    """The library reads C strings: a reason "a\0b" used to report
    "because a". The text is refused, never cut."""
    m, rec = make()
    with pytest.raises(ValueError, match=rf"{name} must not contain a NUL character") as info:
        spacrbench.format_report(m, rec)
    assert "\\x00" in str(info.value)  # the value passed, quoted
    with pytest.raises(ValueError, match=name):
        (rec or m).to_dict()


@pytest.mark.parametrize("field, value, words", [
    ("notes", None, r"notes must be a list of str, not None"),
    ("notes", 5, r"notes must be a list of str, not 5"),
    ("notes", "one note", r"notes must be a list of str, not 'one note'"),
    ("records", (1,), r"records\[0\] must be an ItemRecord, not 1"),
    ("records", None, r"records must be a list of ItemRecord, not None"),
    ("gpus", (1,), r"gpus\[0\] must be a GpuInfo, not 1"),
    ("gpus", 7, r"gpus must be a list of GpuInfo, not 7"),
])
def test_bad_hand_made_lists_are_type_errors_naming_the_field(field: str, value: Any,
                                                              words: str) -> None:
    """notes=None gave "'NoneType' object is not iterable", records=(1,) an
    AttributeError."""
    m = dataclasses.replace(_small(), **{field: value})
    with pytest.raises(TypeError, match=words):
        spacrbench.format_report(m)
    with pytest.raises(TypeError, match=words):
        spacrbench.recommend_workers(m, cores=2, available_bytes=GiB)


def test_to_dict_says_none_where_the_recommendation_does() -> None:
    """A spaCR-style Recommendation(3, "r") has core_workers None; the
    library's JSON filled in 1."""
    rec = spacrbench.Recommendation(3, "r")
    d = rec.to_dict()
    for f in dataclasses.fields(rec):
        if getattr(rec, f.name) is None:
            assert d.get(f.name, None) is None, f.name
    assert d["core_workers"] is None and d["workers"] == 3
    assert spacrbench.Recommendation(3, "r", core_workers=2).to_dict()["core_workers"] == 2
