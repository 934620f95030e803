"""The results' plain data and spaCR's protocols; a leaf that imports nothing of the package."""

from __future__ import annotations

from dataclasses import dataclass
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Optional, Protocol,
                    SupportsIndex, Tuple, Union)

# The library's names of the defaults, spelled here so this leaf imports
# nothing (test_one_source.py checks them against its *_name() functions).
SUPPLIED = "supplied"
NO_BOUND = "none"
UNKNOWN_SOURCE = "unknown"
FORK = "fork"
CALLER_RESERVE = "caller"

#: A hand-made result's integer figure, as spaCR's int() took it (checked at run time).
Figure = Union[int, float, SupportsIndex]


class MeasurementLike(Protocol):
    """What recommend_workers() and format_report() read from a measurement (spaCR's attributes)."""

    @property
    def items(self) -> float: ...

    @property
    def seconds(self) -> float: ...

    @property
    def peak_rss_bytes(self) -> float: ...


class RecommendationLike(Protocol):
    """What format_report() reads from a recommendation (spaCR's attributes)."""

    @property
    def workers(self) -> float: ...

    @property
    def reason(self) -> object: ...


@dataclass(frozen=True)
class RunRecord:
    """One timed run of an item (``spacrbench run --runs N``); None means not measured."""

    seconds: float
    cpu_seconds: Optional[float] = None
    peak_rss_bytes: Optional[int] = None
    peak_vram_bytes: Optional[int] = None
    cgroup_charge_bytes: Optional[int] = None
    tree_rss_peak_bytes: Optional[int] = None


@dataclass(frozen=True)
class ItemRecord:
    """One item's own cost; None means not measured. item: its label (the
    command's JSON "item"); cgroup_charge_bytes and tree_rss_peak_bytes: an
    item run as its own processes (``spacrbench run``); run_records: its
    timed runs when it ran more than once."""

    index: int
    seconds: float
    peak_rss_bytes: Optional[int] = None
    peak_vram_bytes: Optional[int] = None
    is_warmup: bool = False
    item: Optional[str] = None
    cpu_seconds: Optional[float] = None
    cgroup_charge_bytes: Optional[int] = None
    tree_rss_peak_bytes: Optional[int] = None
    run_records: Tuple[RunRecord, ...] = ()

    if TYPE_CHECKING:  # the constructor takes what the run time accepts
        def __init__(self, index: Figure, seconds: float,
                     peak_rss_bytes: Optional[Figure] = None,
                     peak_vram_bytes: Optional[Figure] = None,
                     is_warmup: bool = False, item: Optional[str] = None,
                     cpu_seconds: Optional[float] = None,
                     cgroup_charge_bytes: Optional[Figure] = None,
                     tree_rss_peak_bytes: Optional[Figure] = None,
                     run_records: Tuple[RunRecord, ...] = ()) -> None: ...


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


class LazyRecords:
    """A run's item records as the library wrote them, decoded on first read."""

    __slots__ = ("data", "count", "decode", "details", "runs", "labels")

    def __init__(self, data: Any, count: int,
                 decode: Callable[["LazyRecords"], Tuple[ItemRecord, ...]], details: Any,
                 runs: Dict[int, Tuple[RunRecord, ...]]) -> None:
        self.data = data
        self.count = count
        self.decode = decode
        self.details = details
        self.runs = runs
        self.labels: Optional[List[Optional[str]]] = None  # ItemRecord.item, one per record

    def records(self) -> Tuple[ItemRecord, ...]:
        return self.decode(self)

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        return (tuple, (self.records(),))  # pickles as the tuple it stands for

    def __copy__(self) -> LazyRecords:
        return self

    def __deepcopy__(self, memo: Dict[int, Any]) -> LazyRecords:
        return self  # immutable


class RecordsField:
    """Measurement.records: a LazyRecords becomes its tuple on first read."""

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return ()  # the class attribute: the field's default
        value = obj.__dict__["records"]
        if type(value) is LazyRecords:
            value = value.records()
            obj.__dict__["records"] = value
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__["records"] = value  # only __init__ gets here (frozen)


def raw_records(m: Any) -> Any:
    """m's records as held: a tuple, or a LazyRecords not yet decoded."""
    return m.__dict__.get("records", ())


class CachesC:
    """Mixin: the C measurement kept in __dict__[C_CACHE], left out of pickles and copies."""

    def __getstate__(self) -> Dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != C_CACHE}


C_CACHE = "_spacrbench_c"

#: What the plots need, one line of at most 79 columns in a message (indented by two).
PLOT_INSTALL = "pip install 'spacrbench[plot]' (from a clone: pip install '.[plot]')"


def counted(n: int, noun: str) -> str:
    """n and noun, the noun with an "s" unless n is exactly one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
