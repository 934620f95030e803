"""The plate's plain data (Measurement.plate); a leaf both _results and _plate import."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


def _keep_tuple(obj: object, name: str) -> None:
    """A list given for a tuple field, held as a tuple (as the C copy holds it)."""
    value = getattr(obj, name)
    if isinstance(value, list):
        object.__setattr__(obj, name, tuple(value))


def _gib(n: Optional[int]) -> str:
    return "None" if n is None else f"{n} ({n / 2**30:.2f} GiB)"


@dataclass(frozen=True, repr=False)
class PlatePrediction:
    """What the measured items predict for the whole plate.

    :param items: the plate's items.
    :param measured: items measured (the warm-up included).
    :param key: ``"bytes"``, ``"number"`` (``key=``) or ``"none"``.
    :param key_name: what the key is (``"file size"``, ``"nbytes"``, ``"key"``).
    :param fit: how unmeasured footprints were predicted (``"key"``, ``"uniform"``, ...).
    :param time_fit: the same for wall times.
    :param correlation: r of footprint and key over the measured, or ``None``.
    :param largest_index: the item predicted to need the most, or ``None``.
    :param largest_key: its key, or ``None``.
    :param median_key: the plate's median key, or ``None``.
    :param largest_bytes: the plate's predicted largest footprint, or ``None``.
    :param largest_measured_bytes: the largest measured footprint, or ``None``.
    :param spread_bytes: largest - smallest measured footprint, or ``None``.
    :param slowest_seconds: the plate's slowest item, predicted, or ``None``.
    :param total_seconds: every item one after another, predicted, or ``None``.
    :param notes: why the prediction is what it is, in the library's words.
    :param slope_bytes_per_key: the line's slope, or ``None``.
    :param intercept_bytes: the line's intercept, or ``None``."""

    items: int
    measured: int
    key: str
    key_name: str
    fit: str
    time_fit: str
    correlation: Optional[float]
    largest_index: Optional[int]
    largest_key: Optional[float]
    median_key: Optional[float]
    largest_bytes: Optional[int]
    largest_measured_bytes: Optional[int]
    spread_bytes: Optional[int]
    slowest_seconds: Optional[float]
    total_seconds: Optional[float]
    notes: Tuple[str, ...] = ()
    slope_bytes_per_key: Optional[float] = None
    intercept_bytes: Optional[float] = None

    def __post_init__(self) -> None:
        _keep_tuple(self, "notes")

    def __repr__(self) -> str:
        """The decision only; the notes are in .notes."""
        return (f"PlatePrediction(items={self.items}, measured={self.measured}, "
                f"fit={self.fit!r}, key_name={self.key_name!r}, "
                f"largest_index={self.largest_index!r}, "
                f"largest_bytes={_gib(self.largest_bytes)}, "
                f"total_seconds={self.total_seconds!r}, {len(self.notes)} note(s))")


@dataclass(frozen=True)
class PlatePick:
    """One measured item of a plate: record ``i`` is ``sample[i]``.

    :param index: the item's place in the plate (0-based).
    :param key: its key, or ``None``.
    :param why: why it was chosen (see :class:`PlateItem`).
    :param is_warmup: a warm-up item (excluded from the timing).
    :param footprint_bytes: its record's peak above the baseline, or ``None``.
    :param seconds: its record's wall time, or ``None``."""

    index: int
    key: Optional[float]
    why: str
    is_warmup: bool
    footprint_bytes: Optional[int]
    seconds: Optional[float]


@dataclass(frozen=True, repr=False)
class PlateSection:
    """The plate section a Measurement carries (``Measurement.plate``).

    :param prediction: the plate's prediction (:class:`PlatePrediction`).
    :param sample: the measured items (:class:`PlatePick`), one per record.
    :param workers: the recommended workers the ETA is for, or ``None``.
    :param eta_seconds: the plate's predicted wall time with them, or ``None``.
    :param seed: the seed of the random items' draw, or ``None``."""

    prediction: PlatePrediction
    sample: Tuple[PlatePick, ...] = ()
    workers: Optional[int] = None
    eta_seconds: Optional[float] = None
    seed: Optional[int] = None

    def __post_init__(self) -> None:
        _keep_tuple(self, "sample")

    def __repr__(self) -> str:
        p = self.prediction
        return (f"PlateSection(items={p.items}, measured={len(self.sample)}, fit={p.fit!r}, "
                f"largest_bytes={_gib(p.largest_bytes)}, workers={self.workers!r}, "
                f"eta_seconds={self.eta_seconds!r})")
