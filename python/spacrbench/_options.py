"""recommend_workers()'s keywords as the library's options struct, shared
by recommend_workers() and benchmark_plate()."""

from __future__ import annotations

from typing import Any, Optional

from ._binding import AUTO, check, ffi, lib
from ._compat import byte_size, upstream_int, upstream_maximum


def recommend_options(*, cores: Any = None, available_bytes: Any = None,
                      reserve_bytes: Any = None, maximum: Any = 32,
                      vram_reserve_bytes: Any = 1024**3, free_vram_bytes: Any = None,
                      start_method: Optional[str] = None) -> Any:
    """recommend_workers()'s keywords (read as spaCR read them) as the
    library's spacrbench_recommend_options; benchmark_plate() takes the same."""
    opts = ffi.new("spacrbench_recommend_options *")
    check(lib.spacrbench_recommend_options_init(opts, ffi.sizeof("spacrbench_recommend_options")),
          "spacrbench_recommend_options_init")
    opts.cores = AUTO if cores is None else max(1, upstream_int(cores, "cores"))
    opts.available_bytes = (AUTO if available_bytes is None
                            else byte_size(available_bytes, "available_bytes"))
    opts.reserve_bytes = AUTO if reserve_bytes is None else byte_size(reserve_bytes, "reserve_bytes")
    opts.maximum = max(1, upstream_maximum(maximum))
    opts.vram_reserve_bytes = byte_size(vram_reserve_bytes, "vram_reserve_bytes")
    opts.free_vram_bytes = (AUTO if free_vram_bytes is None
                            else byte_size(free_vram_bytes, "free_vram_bytes"))
    if start_method is not None:
        from ._convert import START_METHODS

        opts.start_method = START_METHODS.code(start_method, "start_method")
    return opts
