"""Checked by mypy --strict (test_typing.py; never run): a user script that
calls the API the ways docs/python.md shows, spaCR's accepted inputs
included, must type-check without casts or ignores."""

from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple, Union

from spacrbench import (ItemRecord, Measurement, Progress, Recommendation, benchmark,
                        format_report, recommend_workers, scale)


def process_field(path: str) -> int:
    return len(path)


def fields() -> Iterator[str]:
    yield "a.tif"


def on_progress(p: Progress) -> None:
    print(p.index, p.item_peak_rss_bytes)


m = benchmark(process_field, fields(), warmup=1, progress=on_progress)
benchmark(process_field, ["a", "b"], progress=True)
benchmark(process_field, ["a"], warmup=1.0)  # read with int(), as spaCR did
benchmark(process_field, ["a"], warmup=True)

# recommend_workers reads its numbers with int(); maximum is any real number.
rec = recommend_workers(m, cores=2.5, available_bytes=3.4e10, reserve_bytes=2e9, maximum=2.5)
recommend_workers(m, cores="8", vram_reserve_bytes=1e9, free_vram_bytes=8e9)
recommend_workers(start_method="spawn")
n_jobs: int = rec.workers
print(format_report(m, rec), rec)
print(format_report(m, rec, format="csv", item_labels=["a.tif", Path("b.tif")]))

# Hand-made results: integer figures may be finite floats.
hand = Measurement(items=2.5, seconds=1.0, peak_rss_bytes=4e9)
hand2 = Measurement(4, 2.0, 600 * 2**20, None, 100 * 2**20, ["a note"])
record = ItemRecord(index=0.0, seconds=0.5, peak_rss_bytes=1e8)
hand3 = Measurement(items=1, seconds=1.0, peak_rss_bytes=1e8, records=(record,))
spacr_rec = Recommendation(3, "because")
Recommendation(workers=2.0, reason="r", cores=4.0, available_bytes=1.6e10)
print(format_report(hand, spacr_rec), format_report(hand2), format_report(hand3))
items: int = hand.items  # the attributes stay int
records: Tuple[ItemRecord, ...] = m.records
notes: List[str] = m.notes


# Any object with spaCR's Measurement / Recommendation attributes.
class SpacrMeasurement:
    items = 2
    seconds = 1.0
    peak_rss_bytes = 10**9


class SpacrRecommendation:
    def __init__(self) -> None:
        self.workers = 3
        self.reason = "spaCR's words"


print(format_report(SpacrMeasurement(), SpacrRecommendation()))
print(format_report(SpacrMeasurement(), rec))
recommend_workers(SpacrMeasurement(), cores=4)

# Scheduler hand-off: precise where the arguments are literals, a union
# where they are known only at run time.
local: Dict[str, int] = rec.to_dask()
snippet: str = rec.to_dask(text=True)
cluster_kwargs: Dict[str, Any] = rec.to_dask(cluster="slurm", extra=["--partition=short"])
flag = bool(len(snippet))
either: Union[Dict[str, Any], str] = rec.to_dask(text=flag)
kind: str = "local"
either = rec.to_dask(cluster=kind)
either = rec.to_dask(text=flag, cluster=kind)
print(rec.to_slurm(), local, cluster_kwargs, either)
script: str = rec.to_slurm("items.txt", "out", ["python", "seg.py", "{}"], job_name="seg",
                           extra=["--time=10"])

result = scale(process_field, ["a", "b"], workers=[1, 2], start_method="fork")
print(result.chosen_workers, result.to_dict())

# A whole plate (benchmark_plate): the keys default to the file sizes; key=
# gives another; recommend_workers()'s keywords pass through.
from spacrbench import PlateItem, PlatePrediction, PlateResult, benchmark_plate  # noqa: E402

plate: PlateResult = benchmark_plate(process_field, ["a.tif", "b.tif"], sample=3, cores=2)
plate_keyed = benchmark_plate(process_field, ["a", "bb"], key=len, warmup=0,
                              reserve_bytes="1GiB", start_method="spawn")
plate_workers: int = plate.workers
first: PlateItem = plate.sample[0]
prediction: PlatePrediction = plate.prediction
largest: Union[int, None] = prediction.largest_bytes
eta: Union[float, None] = plate.eta_seconds
footprint, seconds = plate_keyed.item_prediction(0)
print(format_report(plate), first.why, largest, eta, footprint, seconds, plate_workers)
# The section the measurement carries, read back from its dict.
from spacrbench import PlatePick, PlateSection  # noqa: E402

section: Union[PlateSection, None] = Measurement.from_dict(plate.measurement.to_dict()).plate
if section is not None:
    pick: PlatePick = section.sample[0]
    plate_eta: Union[float, None] = section.eta_seconds
    print(pick.index, pick.why, section.prediction.fit, section.workers, plate_eta)
