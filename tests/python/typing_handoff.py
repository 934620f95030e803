"""Checked by mypy --strict in test_typing.py (never run): the
hand-off's return types are precise enough to index without casts."""

from typing import Any, Dict

from spacrbench import Measurement, recommend_workers

rec = recommend_workers(Measurement(items=1, seconds=1.0, peak_rss_bytes=1 << 20))
n_workers: int = rec.to_dask()["n_workers"]
snippet: str = rec.to_dask(text=True)
slurm: Dict[str, Any] = rec.to_dask(cluster="slurm")
cores: Any = slurm["cores"]
script: str = rec.to_slurm("items.txt", "out", ["echo", "{}"], job_name="x",
                           extra=["--time=5"])
