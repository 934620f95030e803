"""The result types. Field names, order and defaults of Measurement and
Recommendation match spaCR's spacr.benchmark, so code written for it (and
measurements built by hand) keep working; later fields are additions.

Names (peak_method, vram_source, bound, the sources) are the library's
spellings: the defaults below are read from it, never spelled here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Literal, Optional,
                    Protocol, Sequence, SupportsIndex, Tuple, Union, overload)

from ._binding import lib, name_of

_NAN = float("nan")
_SUPPLIED = name_of(lib.spacrbench_peak_method_name, lib.SPACRBENCH_PEAK_SUPPLIED)
_NO_BOUND = name_of(lib.spacrbench_bound_name, lib.SPACRBENCH_BOUND_NONE)
_UNKNOWN_SOURCE = name_of(lib.spacrbench_source_name, lib.SPACRBENCH_SOURCE_UNKNOWN)
_FORK = name_of(lib.spacrbench_start_method_name, lib.SPACRBENCH_START_FORK)
_CALLER_RESERVE = name_of(lib.spacrbench_reserve_rule_name, lib.SPACRBENCH_RESERVE_CALLER)

#: What a hand-made result's integer figure may be given as (docs/python.md,
#: "What spaCR accepted"): an int, a finite float (truncated like int()) or
#: an integer-like number (numpy integers). The attributes stay typed int:
#: that is what benchmark() and recommend_workers() return. Checked at run
#: time (bool and strings are refused, naming the field).
Figure = Union[int, float, SupportsIndex]


class MeasurementLike(Protocol):
    """What recommend_workers() and format_report() read from a measurement:
    spaCR's Measurement attributes (items, seconds, peak_rss_bytes; and
    optionally peak_vram_bytes, baseline_rss_bytes, notes, which a Protocol
    cannot make optional). A Measurement is one; so is spaCR's."""

    @property
    def items(self) -> float: ...

    @property
    def seconds(self) -> float: ...

    @property
    def peak_rss_bytes(self) -> float: ...


class RecommendationLike(Protocol):
    """What format_report() reads from a recommendation: spaCR's
    Recommendation attributes (workers, reason; optionally cores and
    available_bytes)."""

    @property
    def workers(self) -> float: ...

    @property
    def reason(self) -> object: ...


@dataclass(frozen=True)
class ItemRecord:
    """One item's own cost. None means not measured."""

    index: int
    seconds: float
    peak_rss_bytes: Optional[int] = None
    peak_vram_bytes: Optional[int] = None
    is_warmup: bool = False

    if TYPE_CHECKING:  # the constructor takes what the run time accepts
        def __init__(self, index: Figure, seconds: float,
                     peak_rss_bytes: Optional[Figure] = None,
                     peak_vram_bytes: Optional[Figure] = None,
                     is_warmup: bool = False) -> None: ...


@dataclass(frozen=True)
class GpuInfo:
    """One GPU seen during a run (figures from NVML)."""

    index: int
    name: str
    total_bytes: int
    free_bytes: int
    process_peak_bytes: Optional[int] = None

    if TYPE_CHECKING:  # the constructor takes what the run time accepts
        def __init__(self, index: Figure, name: str, total_bytes: Figure, free_bytes: Figure,
                     process_peak_bytes: Optional[Figure] = None) -> None: ...


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
    None when VRAM was not measured (0 means measured, none used), and
    vram_reason then says why, in the library's words; oom_limit_bytes > 0
    says an item was killed for memory at that limit. peak_method says how
    the peak was obtained: "hwm_reset" and "hwm_window" are exact (kernel
    high-water mark), "sampled" may miss short spikes, "supplied" means the
    figures were given by hand (the library's names; see docs/python.md).
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
    peak_method: str = _SUPPLIED
    vram_source: Optional[str] = None
    gpus: Tuple[GpuInfo, ...] = ()
    sample_interval_us: int = 0
    vram_reason: Optional[str] = None
    oom_limit_bytes: int = 0

    if TYPE_CHECKING:  # the constructor takes what the run time accepts
        def __init__(self, items: Figure, seconds: float, peak_rss_bytes: Figure,
                     peak_vram_bytes: Optional[Figure] = None,
                     baseline_rss_bytes: Figure = 0, notes: List[str] = ...,
                     records: Tuple[ItemRecord, ...] = (),
                     cpu_seconds: Optional[float] = None, warmup_items: Figure = 0,
                     warmup_seconds: float = 0.0, peak_method: str = ...,
                     vram_source: Optional[str] = None, gpus: Tuple[GpuInfo, ...] = (),
                     sample_interval_us: Figure = 0, vram_reason: Optional[str] = None,
                     oom_limit_bytes: Figure = 0) -> None: ...

    @property
    def items_per_second(self) -> float:
        """Throughput; NaN when the duration is not positive."""
        if self.seconds <= 0:
            return _NAN
        return self.items / self.seconds

    @property
    def per_item_seconds(self) -> float:
        """Wall seconds per item; NaN when no item was measured."""
        if self.items <= 0:
            return _NAN
        return self.seconds / self.items

    @property
    def work_rss_bytes(self) -> int:
        """Memory the work itself added on top of the baseline."""
        return max(0, self.peak_rss_bytes - self.baseline_rss_bytes)

    def to_dict(self) -> Dict[str, Any]:
        """The library's JSON object of this measurement (the document shape
        of docs/spacrbench.schema.json, shared with `spacrbench --json`):
        "not measured" is None; ready for json.dumps."""
        from ._convert import measurement_dict

        return measurement_dict(self)

    def plot(self, path: Optional[str] = None) -> Any:
        """Each item's wall time and peak RSS (warm-up items marked), with
        the baseline the footprint is measured from. Needs matplotlib
        (``pip install spacrbench[plot]``), imported only here. Returns the
        Figure; with a path, also saves it (format from the suffix)."""
        from ._plot import plot_measurement

        return plot_measurement(self, path)


class LazyRecords:
    """The item records of a benchmark() run as the library wrote them (one
    binary block); ItemRecords are made from it the first time
    Measurement.records is read. Internal: to its readers
    Measurement.records is always a tuple."""

    __slots__ = ("data", "count", "decode")

    def __init__(self, data: Any, count: int,
                 decode: Callable[[Any, int], Tuple[ItemRecord, ...]]) -> None:
        self.data = data
        self.count = count
        self.decode = decode

    def records(self) -> Tuple[ItemRecord, ...]:
        return self.decode(self.data, self.count)

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        return (tuple, (self.records(),))  # pickles as the tuple it stands for

    def __copy__(self) -> LazyRecords:
        return self

    def __deepcopy__(self, memo: Dict[int, Any]) -> LazyRecords:
        return self  # immutable


class _RecordsField:
    """Measurement.records: keeps what __init__ was given and turns a
    LazyRecords into its tuple on first read (then keeps the tuple), so
    equality, repr, hashing, pickling, copy, replace() and asdict() all see
    a tuple."""

    def __get__(self, obj: Optional[Measurement], owner: Any = None) -> Any:
        if obj is None:
            return ()  # the class attribute: the field's default
        value = obj.__dict__["records"]
        if type(value) is LazyRecords:
            value = value.records()
            obj.__dict__["records"] = value
        return value

    def __set__(self, obj: Measurement, value: Any) -> None:
        obj.__dict__["records"] = value  # only __init__ gets here (frozen)


setattr(Measurement, "records", _RecordsField())


def raw_records(m: Measurement) -> Any:
    """m's records as held: a tuple, or a LazyRecords not yet decoded."""
    return m.__dict__.get("records", ())


@dataclass(frozen=True)
class Recommendation:
    """A worker count, why, and every number that produced it.

    bound names the rule that decided: "memory", "cores", "maximum",
    "fallback" (no usable memory measurement), "one", "vram" or "none".
    Figures that were not part of the decision are None. cpu_parallelism
    (CPU seconds per wall second of the work) gives cores_per_worker and
    core_workers (usable cores / cores per worker); start_method ("fork",
    "spawn", "forkserver") says whether each worker also pays the baseline
    (baseline_bytes); reserve_rule says what set reserve_bytes ("caller",
    "host", "limit").
    """

    workers: int
    reason: str
    measurement: Optional[Measurement] = None
    cores: int = 0
    available_bytes: int = 0
    bound: str = _NO_BOUND
    reserve_bytes: int = 0
    per_worker_bytes: Optional[int] = None
    memory_workers: Optional[int] = None
    maximum: int = 0
    memory_source: str = _UNKNOWN_SOURCE
    memory_where: str = ""
    memory_limit_bytes: Optional[int] = None
    cores_source: str = _UNKNOWN_SOURCE
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
    start_method: str = _FORK
    reserve_rule: str = _CALLER_RESERVE
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

    def to_dict(self) -> Dict[str, Any]:
        """The library's JSON object of this recommendation, its
        "measurement" member the measurement's to_dict() (or None); ready
        for json.dumps."""
        from ._convert import recommendation_dict

        return recommendation_dict(self)

    def to_slurm(self, items_file: Optional[str] = None, output_dir: Optional[str] = None,
                 command: Optional[Sequence[str]] = None, job_name: Optional[str] = None,
                 extra: Iterable[str] = (), *, spacrbench: Optional[str] = None,
                 array_limit: Optional[int] = None) -> str:
        """SLURM settings for this measurement. With no arguments, the
        #SBATCH lines (spaCR's text). With items_file, output_dir and command
        (a list of arguments, {} for the item), a job script that submits as
        is: one array task per item, each run under `spacrbench run --report
        output_dir/task-<index>.json` (output_dir is created); job_name and
        extra #SBATCH lines ("--partition=short") are optional; spacrbench is
        how tasks call the command (default: the one in this package);
        array_limit=N runs at most N tasks at once on the whole cluster
        (--array=...%N; default none). output_dir gets the array's index and
        manifest, as `run --emit slurm` writes them. Everything is checked
        before output_dir is created."""
        directives = directive_list(extra)
        if items_file is None and output_dir is None and command is None:
            if job_name is not None or directives or array_limit is not None:
                raise TypeError("job_name, extra and array_limit need items_file, output_dir "
                                "and command")
            from ._convert import format_slurm

            return format_slurm(self)
        if items_file is None or output_dir is None or command is None:
            raise TypeError("a job script needs items_file, output_dir and command together")
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
        """Dask settings. cluster="local": LocalCluster keyword arguments
        (n_workers, threads_per_worker, memory_limit), or with text=True the
        library's formatted snippet. cluster="slurm": dask_jobqueue
        SLURMCluster keyword arguments (cores, processes, memory,
        job_extra_directives from extra), same margin rule. extra (a list
        of #SBATCH options) is for cluster="slurm" only."""
        directives = directive_list(extra)
        if cluster == "slurm":
            if text:
                raise ValueError("text=True is for cluster='local'")
            from ._handoff import slurm_cluster_settings

            return slurm_cluster_settings(self, directives)
        if cluster != "local":
            raise ValueError(f"cluster must be 'local' or 'slurm', got {cluster!r}")
        if directives:
            raise ValueError(f"extra applies to cluster='slurm' only (SLURM job directives); "
                             f"LocalCluster has none, got extra={directives!r}")
        from ._convert import dask_settings, format_dask

        return format_dask(self) if text else dask_settings(self)


def directive_list(extra: Any) -> List[str]:
    """extra (#SBATCH options, e.g. ["--partition=short"]) as a list of
    str. A single string is refused rather than split into characters."""
    if isinstance(extra, (str, bytes)):
        raise TypeError(f"extra must be a list of #SBATCH options, not a single "
                        f"{type(extra).__name__} ({extra!r}); write extra=[{extra!r}]")
    try:
        options = iter(extra)
    except TypeError:
        raise TypeError(f"extra must be a list of #SBATCH options, not "
                        f"{type(extra).__name__} ({extra!r})") from None
    return [str(d) for d in options]
