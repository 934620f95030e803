"""spacrbench: measure what ONE worker of an image pipeline needs (wall time,
exact peak resident memory, peak VRAM), read what this machine, container or
SLURM job can really give, and recommend a worker count with its reason.

A drop-in for spaCR's ``spacr.benchmark`` module::

    from spacrbench import benchmark, recommend_workers, format_report

    m = benchmark(process_field, fields[:4], warmup=1)
    rec = recommend_workers(m)
    print(format_report(m, rec))

It measures; it never changes a setting. Importing it imports no GPU or GUI
toolkit and writes nothing.
"""

from ._recommend import available_memory_bytes, format_report, recommend_workers
from ._run import benchmark
from ._types import GpuInfo, ItemRecord, Measurement, Progress, Recommendation

__version__ = "1.1.0"

__all__ = [
    "GpuInfo",
    "ItemRecord",
    "Measurement",
    "Progress",
    "Recommendation",
    "available_memory_bytes",
    "benchmark",
    "format_report",
    "recommend_workers",
    "__version__",
]
