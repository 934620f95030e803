"""Byte arguments take sizes as text, read by the library's one parser
(the command's --reserve): powers of 1024 for 4G/4GiB, 1000 for 4GB."""

from __future__ import annotations

import pytest

import spacrbench

GIB = 1024**3


def _rec(**kwargs: object) -> spacrbench.Recommendation:
    m = spacrbench.Measurement(items=2, seconds=1.0, peak_rss_bytes=GIB)
    return spacrbench.recommend_workers(m, cores=64, available_bytes=64 * GIB,
                                        **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("text, expected", [
    ("4G", 4 * GIB), ("4GiB", 4 * GIB), ("4Gi", 4 * GIB), ("4GB", 4 * 10**9),
    ("512M", 512 * 2**20), ("1.5G", 3 * GIB // 2), ("4096", 4096),
])
def test_reserve_as_text(text: str, expected: int) -> None:
    assert _rec(reserve_bytes=text).reserve_bytes == expected


def test_the_same_parser_as_the_command() -> None:
    from spacrbench._binding import ffi, lib

    out = ffi.new("int64_t *")
    assert lib.spacrbench_parse_size(b"4GB", out) == 0
    assert _rec(reserve_bytes="4GB").reserve_bytes == out[0]


def test_available_and_vram_sizes_as_text() -> None:
    rec = _rec(reserve_bytes="1G", vram_reserve_bytes="2GiB")
    assert rec.vram_reserve_bytes == 2 * GIB
    m = spacrbench.Measurement(items=2, seconds=1.0, peak_rss_bytes=GIB)
    rec = spacrbench.recommend_workers(m, cores=64, available_bytes="9G", reserve_bytes="1G")
    assert rec.available_bytes == 9 * GIB
    assert rec.workers == 8  # (9 GiB - 1 GiB) / 1 GiB


@pytest.mark.parametrize("text", ["4X", "", "-4G", "G", "4 G B", "9E"])
def test_a_bad_size_names_the_argument(text: str) -> None:
    with pytest.raises(ValueError, match="^reserve_bytes") as info:
        _rec(reserve_bytes=text)
    assert isinstance(info.value, spacrbench.SpacrbenchError)


BYTE_ARGUMENTS = ("available_bytes", "reserve_bytes", "vram_reserve_bytes", "free_vram_bytes")
#: spaCR's own byte arguments: what its int() accepted is accepted, with its
#: arithmetic (tests/python/test_spacr_differential.py compares them).
SPACR_BYTE_ARGUMENTS = ("available_bytes", "reserve_bytes")
#: spacrbench's own: never negative, never bool.
OWN_BYTE_ARGUMENTS = ("vram_reserve_bytes", "free_vram_bytes")


def _with(name: str, value: object) -> spacrbench.Recommendation:
    m = spacrbench.Measurement(items=2, seconds=1.0, peak_rss_bytes=GIB)
    kwargs = {"cores": 4, "available_bytes": 64 * GIB, name: value}
    return spacrbench.recommend_workers(m, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", OWN_BYTE_ARGUMENTS)
@pytest.mark.parametrize("value", [-1, -1.0, "-1", -4 * GIB])
def test_a_negative_size_is_a_value_error_naming_it(name: str, value: object) -> None:
    """The command refuses --reserve -1; the API took -1 as 0."""
    with pytest.raises(ValueError, match=f"^{name}") as info:
        _with(name, value)
    assert isinstance(info.value, spacrbench.SpacrbenchError)
    assert repr(value) in str(info.value) or str(value) in str(info.value)


@pytest.mark.parametrize("name", SPACR_BYTE_ARGUMENTS)
@pytest.mark.parametrize("text", ["-1", "-4G", "-4GiB"])
def test_negative_text_stays_strict_for_spacrs_arguments(name: str, text: str) -> None:
    """Text is spacrbench's addition (spaCR's int() read no "4G"): never negative."""
    with pytest.raises(ValueError, match=f"^{name}"):
        _with(name, text)


@pytest.mark.parametrize("value", [-1, -1.0, -4 * GIB])
def test_a_negative_reserve_adds_to_the_budget_as_in_spacr(value: float) -> None:
    rec = _with("reserve_bytes", value)
    # (64 GiB - reserve) / 1 GiB, capped by 4 cores: 4; the reason says why.
    assert rec.workers == 4 and rec.available_bytes == 64 * GIB
    assert "reserve_bytes" in rec.reason and "is negative: as in spaCR" in rec.reason
    assert rec.reserve_bytes == 0  # what the library subtracted


def test_a_negative_available_leaves_one_worker_as_in_spacr() -> None:
    rec = _with("available_bytes", -5)
    assert (rec.workers, rec.available_bytes, rec.bound) == (1, -5, "one")
    assert rec.reason.endswith("available_bytes -5 B is negative: as in spaCR, no memory is "
                               "left for workers")
    # The report shows the budget spaCR used, not a sentinel.
    assert "memory available    0 B (given by the caller)" in spacrbench.format_report(
        rec.measurement, rec)


def test_a_negative_reserve_with_discovered_memory_keeps_its_source() -> None:
    m = spacrbench.Measurement(items=2, seconds=1.0, peak_rss_bytes=GIB)
    plain = spacrbench.recommend_workers(m, cores=64, reserve_bytes=0)
    rec = spacrbench.recommend_workers(m, cores=64, reserve_bytes=-GIB)
    assert rec.memory_source == plain.memory_source and rec.memory_source != "caller"
    # One more GiB of budget: one more worker (memory moves a little between
    # the two discoveries, so allow one either way of the expected count).
    assert abs(rec.workers - (plain.workers + 1)) <= 1 and rec.workers >= 1


@pytest.mark.parametrize("name", OWN_BYTE_ARGUMENTS)
@pytest.mark.parametrize("value", [True, False])
def test_a_bool_size_is_a_type_error_naming_it(name: str, value: bool) -> None:
    """True was taken as 1 byte."""
    with pytest.raises(TypeError, match=f"^{name} must be a byte count.*not bool"):
        _with(name, value)


@pytest.mark.parametrize("name", SPACR_BYTE_ARGUMENTS)
def test_a_bool_is_spacrs_int_for_its_arguments(name: str) -> None:
    """spaCR's int(True) is 1 byte; a drop-in must not raise where it did not."""
    rec = _with(name, True)
    assert rec.workers >= 1
    if name == "available_bytes":
        assert rec.available_bytes == 1 and rec.workers == 1


@pytest.mark.parametrize("value, expected", [
    (1.5, 1), (2e9, 2 * 10**9), (0.8 * 10 * GIB, int(0.8 * 10 * GIB)), ("4096", 4096), (0, 0),
])
def test_numbers_are_read_as_spacr_read_them(value: object, expected: int) -> None:
    """A finite float is truncated as spaCR's int() did (docs/python.md)."""
    assert _with("reserve_bytes", value).reserve_bytes == expected


def test_numpy_integers_are_sizes() -> None:
    np = pytest.importorskip("numpy")
    assert _with("reserve_bytes", np.int64(GIB)).reserve_bytes == GIB
    rec = _with("reserve_bytes", np.int32(-1))  # spaCR's arithmetic: one byte more
    assert rec.workers == 4 and "is negative: as in spaCR" in rec.reason


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_float_that_is_no_size_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="^reserve_bytes"):
        _with("reserve_bytes", value)
