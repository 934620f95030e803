"""Measurement and Recommendation: spaCR's fields, order and defaults first, ours after."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import (TYPE_CHECKING, Any, Dict, Iterable, List, Literal, Mapping, Optional,
                    Sequence, Tuple, Union, overload)

from ._errors import SpacrbenchTypeError, SpacrbenchValueError
from ._plate_data import PlateSection
from ._timeline import Timeline
from ._types import (CALLER_RESERVE, FORK, NO_BOUND, SUPPLIED, UNKNOWN_SOURCE, CachesC, Figure,
                     GpuInfo, ItemRecord, RecordsField)

_NAN = float("nan")


def _size(n: Any) -> str:
    """A byte count for a repr, with the library's size after it."""
    if not isinstance(n, int) or isinstance(n, bool) or not 1024 <= n < 2**63:
        return repr(n)
    from ._convert import format_bytes

    return f"{n} ({format_bytes(n)})"


def _cut(text: str, width: int = 72) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


@dataclass(frozen=True, repr=False)
class Measurement(CachesC):
    """What one worker needed for ``items`` measured items (warm-up excluded).

    :param items: items measured.
    :param seconds: wall clock for the measured items.
    :param peak_rss_bytes: the process's peak resident set size, warm-up included.
    :param peak_vram_bytes: peak GPU memory, or ``None`` when not measured.
    :param baseline_rss_bytes: resident memory just before the first item.
    :param notes: caveats that must accompany the figures.
    :param records: each item's cost (:class:`ItemRecord`), warm-up included.
    :param cpu_seconds: user+system CPU time of the measured items, or ``None``.
    :param warmup_items: items run untimed first.
    :param warmup_seconds: wall time of the warm-up items.
    :param peak_method: how the peak was obtained (``"hwm_reset"``, ``"sampled"``, ...).
    :param vram_source: where the VRAM figure came from, or ``None``.
    :param gpus: the GPUs seen during the run (:class:`GpuInfo`).
    :param sample_interval_us: the sampler's interval, 0 when none ran.
    :param vram_reason: why VRAM was not measured, or ``None``.
    :param oom_limit_bytes: > 0 when an item was killed for memory at that limit.
    :param timeline: memory over time (:class:`Timeline`), or ``None``.
    :param plate: the plate section (:class:`PlateSection`), or ``None``."""

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
    peak_method: str = SUPPLIED
    vram_source: Optional[str] = None
    gpus: Tuple[GpuInfo, ...] = ()
    sample_interval_us: int = 0
    vram_reason: Optional[str] = None
    oom_limit_bytes: int = 0
    timeline: Optional[Timeline] = None  # benchmark(timeline=True): memory over time
    plate: Optional[PlateSection] = None  # benchmark_plate(): the plate's section

    if TYPE_CHECKING:  # the constructor takes what the run time accepts
        def __init__(self, items: Figure, seconds: float, peak_rss_bytes: Figure,
                     peak_vram_bytes: Optional[Figure] = None,
                     baseline_rss_bytes: Figure = 0, notes: List[str] = ...,
                     records: Tuple[ItemRecord, ...] = (),
                     cpu_seconds: Optional[float] = None, warmup_items: Figure = 0,
                     warmup_seconds: float = 0.0, peak_method: str = ...,
                     vram_source: Optional[str] = None, gpus: Tuple[GpuInfo, ...] = (),
                     sample_interval_us: Figure = 0, vram_reason: Optional[str] = None,
                     oom_limit_bytes: Figure = 0, timeline: Optional[Timeline] = None,
                     plate: Optional[PlateSection] = None) -> None: ...

    def __repr__(self) -> str:
        """The headline figures only; to_dict() has everything."""
        vram = ("None" if self.peak_vram_bytes is None else _size(self.peak_vram_bytes))
        count = len(self.records)
        seconds = f"{self.seconds:.6g}" if isinstance(self.seconds, float) else repr(self.seconds)
        return (f"Measurement(items={self.items!r}, seconds={seconds}, "
                f"peak_rss_bytes={_size(self.peak_rss_bytes)}, peak_vram_bytes={vram}, "
                f"peak_method={self.peak_method!r}, {len(self.notes)} note(s), "
                f"{count} record(s))")

    @property
    def items_per_second(self) -> float:
        """Throughput; NaN when the duration is not positive."""
        return _NAN if self.seconds <= 0 else self.items / self.seconds

    @property
    def per_item_seconds(self) -> float:
        """Wall seconds per item; NaN when no item was measured."""
        return _NAN if self.items <= 0 else self.seconds / self.items

    @property
    def work_rss_bytes(self) -> int:
        """Memory the work itself added on top of the baseline."""
        return max(0, self.peak_rss_bytes - self.baseline_rss_bytes)

    def to_dict(self) -> Dict[str, Any]:
        """The library's JSON object of this measurement ("not measured" is None)."""
        from ._convert import measurement_dict

        return measurement_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Measurement":
        """The Measurement a to_dict() object (or a saved ``spacrbench --json``
        document or task report) describes; a bad field is a ValueError or
        TypeError naming it."""
        from ._measurement_dict import measurement_from_dict

        return measurement_from_dict(cls, data)  # read by the library, which checks each field

    def plot(self, path: Optional[str] = None,
             recommendation: Optional["Recommendation"] = None) -> Any:
        """Plot each item's need against its key, the per-worker memory line and
        the recommendation (default: recommend_workers(self)); needs matplotlib.
        Returns the Figure, also saved to path when given."""
        from ._plot import plot_measurement

        if recommendation is None:
            from ._convert import recommend_here

            recommendation = Recommendation(measurement=self, **recommend_here(self))
        return plot_measurement(self, path, recommendation)


setattr(Measurement, "records", RecordsField())


@dataclass(frozen=True, repr=False)
class Recommendation:
    """A worker count, why, and every number that produced it.

    :param workers: the recommended number of parallel workers (at least one).
    :param reason: why, spaCR's words first.
    :param measurement: the measurement recommended on, or ``None``.
    :param cores: usable logical cores.
    :param available_bytes: memory the workers can get before the reserve; 0 when unknown.
    :param bound: the rule that decided (``"memory"``, ``"cores"``, ...).
    :param reserve_bytes: memory left for everything that is not a worker.
    :param per_worker_bytes: memory one worker needs, or ``None``.
    :param memory_workers: workers the memory allows, or ``None``.
    :param maximum: the ceiling on workers.
    :param memory_source: where ``available_bytes`` came from.
    :param memory_where: the file or setting it was read from.
    :param memory_limit_bytes: the binding cgroup or job memory limit, or ``None``.
    :param cores_source: where ``cores`` came from.
    :param cores_where: the file or setting it was read from.
    :param per_worker_vram_bytes: VRAM one worker needs, or ``None``.
    :param free_vram_bytes: free VRAM the rule used, or ``None``.
    :param vram_reserve_bytes: VRAM left free on each GPU.
    :param vram_workers: workers the VRAM allows, or ``None``.
    :param cpu_parallelism: CPU seconds per wall second, or ``None``.
    :param cores_per_worker: cores one worker keeps busy.
    :param core_workers: usable cores / cores per worker, or ``None``.
    :param threads_per_worker: threads to give each worker.
    :param baseline_bytes: the baseline each spawned worker also pays (0 with fork).
    :param start_method: how the pool starts workers.
    :param reserve_rule: what set ``reserve_bytes``.
    :param oom_limit_bytes: > 0 when an item was killed for memory at that limit."""

    workers: int
    reason: str
    measurement: Optional[Measurement] = None
    cores: int = 0
    available_bytes: int = 0
    bound: str = NO_BOUND
    reserve_bytes: int = 0
    per_worker_bytes: Optional[int] = None
    memory_workers: Optional[int] = None
    maximum: int = 0
    memory_source: str = UNKNOWN_SOURCE
    memory_where: str = ""
    memory_limit_bytes: Optional[int] = None
    cores_source: str = UNKNOWN_SOURCE
    cores_where: str = ""
    per_worker_vram_bytes: Optional[int] = None
    free_vram_bytes: Optional[int] = None
    vram_reserve_bytes: int = 0
    vram_workers: Optional[int] = None
    cpu_parallelism: Optional[float] = None
    cores_per_worker: int = 1
    core_workers: Optional[int] = None
    threads_per_worker: int = 1
    baseline_bytes: int = 0
    start_method: str = FORK
    reserve_rule: str = CALLER_RESERVE
    oom_limit_bytes: int = 0

    if TYPE_CHECKING:  # the constructor takes what the run time accepts
        def __init__(self, workers: Figure, reason: str,
                     measurement: Optional[Measurement] = None, cores: Figure = 0,
                     available_bytes: Figure = 0, bound: str = ..., reserve_bytes: Figure = 0,
                     per_worker_bytes: Optional[Figure] = None,
                     memory_workers: Optional[Figure] = None, maximum: Figure = 0,
                     memory_source: str = ..., memory_where: str = "",
                     memory_limit_bytes: Optional[Figure] = None, cores_source: str = ...,
                     cores_where: str = "", per_worker_vram_bytes: Optional[Figure] = None,
                     free_vram_bytes: Optional[Figure] = None,
                     vram_reserve_bytes: Figure = 0, vram_workers: Optional[Figure] = None,
                     cpu_parallelism: Optional[float] = None, cores_per_worker: Figure = 1,
                     core_workers: Optional[Figure] = None, threads_per_worker: Figure = 1,
                     baseline_bytes: Figure = 0, start_method: str = ...,
                     reserve_rule: str = ..., oom_limit_bytes: Figure = 0) -> None: ...

    def __str__(self) -> str:
        return f"{self.workers} worker(s): {self.reason}"

    def __repr__(self) -> str:
        """The decision only; to_dict() has every figure and the measurement."""
        return (f"Recommendation(workers={self.workers!r}, bound={self.bound!r}, "
                f"cores={self.cores!r}, available_bytes={_size(self.available_bytes)}, "
                f"reason={_cut(str(self.reason))!r})")

    def to_dict(self) -> Dict[str, Any]:
        """The library's JSON object of this recommendation, with its measurement's."""
        from ._convert import recommendation_dict

        return recommendation_dict(self)

    def to_slurm(self, items_file: Optional[str] = None, output_dir: Optional[str] = None,
                 command: Optional[Sequence[str]] = None, job_name: Optional[str] = None,
                 extra: Iterable[str] = (), *, spacrbench: Optional[str] = None,
                 array_limit: Optional[int] = None) -> str:
        """SLURM settings: with no arguments spaCR's #SBATCH lines; with items_file,
        output_dir and command ({} for the item) a job script of one array task
        per item, its index and manifest written to output_dir."""
        from ._handoff import directive_list

        directives = directive_list(extra)
        if items_file is None and output_dir is None and command is None:
            if job_name is not None or directives or array_limit is not None:
                raise SpacrbenchTypeError("job_name, extra and array_limit need items_file, "
                                          "output_dir and command")
            from ._handoff import handoff_text

            return handoff_text(self, "to_slurm")
        if items_file is None or output_dir is None or command is None:
            raise SpacrbenchTypeError("a job script needs items_file, output_dir and command "
                                      "together")
        from ._handoff import slurm_script

        return slurm_script(self, items_file, output_dir, command, job_name, directives,
                            spacrbench, array_limit)

    @overload
    def to_dask(self, *, text: Literal[False] = ..., cluster: Literal["local"] = ...,
                extra: Iterable[str] = ...) -> Dict[str, int]: ...

    @overload
    def to_dask(self, *, text: Literal[True], cluster: Literal["local"] = ...,
                extra: Iterable[str] = ...) -> str: ...

    @overload
    def to_dask(self, *, text: Literal[False] = ..., cluster: Literal["slurm"],
                extra: Iterable[str] = ...) -> Dict[str, Any]: ...

    @overload  # text and cluster known only at run time (a bool, a str)
    def to_dask(self, *, text: bool = ..., cluster: str = ...,
                extra: Iterable[str] = ...) -> Union[Dict[str, Any], str]: ...

    def to_dask(self, *, text: bool = False, cluster: str = "local",
                extra: Iterable[str] = ()) -> Union[Dict[str, Any], str]:
        """Dask settings: LocalCluster keyword arguments (text=True: the library's
        snippet), or with cluster="slurm" SLURMCluster's."""
        from ._handoff import directive_list

        directives = directive_list(extra)
        if cluster == "slurm":
            if text:
                raise SpacrbenchValueError("text=True is for cluster='local'")
            from ._handoff import slurm_cluster_settings

            return slurm_cluster_settings(self, directives)
        if cluster != "local":
            raise SpacrbenchValueError(f"cluster must be 'local' or 'slurm', got {cluster!r}")
        if directives:
            raise SpacrbenchValueError(
                f"extra applies to cluster='slurm' only (SLURM job directives); "
                f"LocalCluster has none, got extra={directives!r}")
        from ._handoff import dask_settings, handoff_text

        return handoff_text(self, "to_dask") if text else dask_settings(self)
