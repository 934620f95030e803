"""The result types. Field names, order and defaults of Measurement and
Recommendation match spaCR's spacr.benchmark, so code written for it (and
measurements built by hand) keep working; later fields are additions."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union


def _json_safe(value: Any) -> Any:
    """JSON has no NaN: report an undefined figure as None."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


@dataclass(frozen=True)
class ItemRecord:
    """One item's own cost. None means not measured."""

    index: int
    seconds: float
    peak_rss_bytes: Optional[int] = None
    peak_vram_bytes: Optional[int] = None
    is_warmup: bool = False


@dataclass(frozen=True)
class GpuInfo:
    """One GPU seen during a run (figures from NVML)."""

    index: int
    name: str
    total_bytes: int
    free_bytes: int
    process_peak_bytes: Optional[int] = None


@dataclass(frozen=True)
class Progress:
    """What a progress callable receives after each item."""

    index: int
    total: int
    is_warmup: bool
    item_seconds: float
    elapsed_seconds: float
    item_peak_rss_bytes: Optional[int] = None


@dataclass(frozen=True)
class Measurement:
    """What one worker needed for `items` measured items (warm-up excluded).

    peak_rss_bytes covers the whole run, warm-up included; baseline_rss_bytes
    is the resident memory just before the first item. peak_vram_bytes is
    None when VRAM was not measured (0 means measured, none used).
    peak_method says how the peak was obtained: "hwm-reset" and "hwm-window"
    are exact (kernel high-water mark), "sampled" may miss short spikes,
    "supplied" means the figures were given by hand.
    """

    items: int
    seconds: float
    peak_rss_bytes: int
    peak_vram_bytes: Optional[int] = None
    baseline_rss_bytes: int = 0
    notes: List[str] = field(default_factory=list)
    records: Tuple[ItemRecord, ...] = ()
    cpu_seconds: Optional[float] = None
    warmup_items: int = 0
    warmup_seconds: float = 0.0
    peak_method: str = "supplied"
    vram_source: Optional[str] = None
    gpus: Tuple[GpuInfo, ...] = ()
    sample_interval_us: int = 0

    @property
    def items_per_second(self) -> float:
        """Throughput; NaN when the duration is not positive."""
        if self.seconds <= 0:
            return math.nan
        return self.items / self.seconds

    @property
    def per_item_seconds(self) -> float:
        """Wall seconds per item; NaN when no item was measured."""
        if self.items <= 0:
            return math.nan
        return self.seconds / self.items

    @property
    def work_rss_bytes(self) -> int:
        """Memory the work itself added on top of the baseline."""
        return max(0, self.peak_rss_bytes - self.baseline_rss_bytes)

    def to_dict(self) -> Dict[str, Any]:
        """Every field plus the derived figures, ready for json.dumps."""
        out = dataclasses.asdict(self)
        out["items_per_second"] = self.items_per_second
        out["per_item_seconds"] = self.per_item_seconds
        out["work_rss_bytes"] = self.work_rss_bytes
        return _json_safe(out)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Recommendation:
    """A worker count, why, and every number that produced it.

    bound names the rule that decided: "memory", "cores", "maximum",
    "fallback" (no usable memory measurement), "one", "vram" or "none".
    Figures that were not part of the decision are None.
    """

    workers: int
    reason: str
    measurement: Optional[Measurement] = None
    cores: int = 0
    available_bytes: int = 0
    bound: str = "none"
    reserve_bytes: int = 0
    per_worker_bytes: Optional[int] = None
    memory_workers: Optional[int] = None
    maximum: int = 0
    memory_source: str = "unknown"
    memory_where: str = ""
    memory_limit_bytes: Optional[int] = None
    cores_source: str = "unknown"
    cores_where: str = ""
    per_worker_vram_bytes: Optional[int] = None
    free_vram_bytes: Optional[int] = None
    vram_reserve_bytes: int = 0
    vram_workers: Optional[int] = None

    def __str__(self) -> str:
        return f"{self.workers} worker(s): {self.reason}"

    def to_dict(self) -> Dict[str, Any]:
        """Every field (the measurement as its own dict), for json.dumps."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["measurement"] = None if self.measurement is None else self.measurement.to_dict()
        return _json_safe(out)  # type: ignore[no-any-return]

    def to_slurm(self) -> str:
        """SLURM job-array settings (#SBATCH lines) for this measurement."""
        from ._convert import format_slurm

        return format_slurm(self)

    def to_dask(self, *, text: bool = False) -> Union[Dict[str, int], str]:
        """Dask LocalCluster keyword arguments (n_workers, threads_per_worker,
        memory_limit), or with text=True the library's formatted snippet."""
        from ._convert import dask_settings, format_dask

        return format_dask(self) if text else dask_settings(self)
