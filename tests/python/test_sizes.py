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
