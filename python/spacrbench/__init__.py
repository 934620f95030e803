"""spacrbench: measure what ONE worker of an image pipeline needs and
recommend a worker count with its reason. A drop-in for spaCR's
``spacr.benchmark`` module::

    from spacrbench import benchmark, recommend_workers, format_report

    m = benchmark(process_field, fields[:4], warmup=1)
    print(format_report(m, recommend_workers(m)))

    result = benchmark_plate(process_field, fields)  # sized for the plate"""

import typing as _typing

from . import _binding  # loads the library and checks its version: ImportError here

if _typing.TYPE_CHECKING:
    from ._recommend import available_memory_bytes, format_report, recommend_workers
    from ._run import benchmark
    from ._plate import PlateItem, PlateResult, benchmark_plate
    from ._plate_data import PlatePick, PlatePrediction, PlateSection
    from ._scale import ScalePoint, ScaleResult, scale
    from ._summarize import NeedsYou, Summary, TaskSummary, summarize
    from ._errors import (SpacrbenchError, SpacrbenchFileNotFoundError, SpacrbenchMemoryError,
                          SpacrbenchOSError, SpacrbenchOverflowError,
                          SpacrbenchRuntimeError, SpacrbenchTypeError, SpacrbenchValueError,
                          UnsupportedPlatformError)
    from ._results import Measurement, Recommendation
    from ._timeline import Timeline, TimelineItem, TimelinePoint
    from ._types import (GpuInfo, ItemRecord, MeasurementLike, Progress, RecommendationLike,
                         RunRecord)

# The public names are loaded on first use (PEP 562): `import spacrbench` stays cheap.
_LAZY = {
    "available_memory_bytes": "_recommend", "format_report": "_recommend",
    "recommend_workers": "_recommend", "benchmark": "_run",
    "benchmark_plate": "_plate", "PlateItem": "_plate", "PlatePrediction": "_plate_data",
    "PlateResult": "_plate", "PlatePick": "_plate_data", "PlateSection": "_plate_data",
    "GpuInfo": "_types", "ItemRecord": "_types", "Measurement": "_results",
    "MeasurementLike": "_types", "Progress": "_types", "Recommendation": "_results",
    "RecommendationLike": "_types", "RunRecord": "_types",
    "SpacrbenchError": "_errors", "SpacrbenchFileNotFoundError": "_errors",
    "SpacrbenchMemoryError": "_errors",
    "SpacrbenchOSError": "_errors", "SpacrbenchOverflowError": "_errors",
    "SpacrbenchRuntimeError": "_errors",
    "SpacrbenchTypeError": "_errors", "SpacrbenchValueError": "_errors",
    "UnsupportedPlatformError": "_errors",
    "ScalePoint": "_scale", "ScaleResult": "_scale", "scale": "_scale",
    "NeedsYou": "_summarize", "Summary": "_summarize", "TaskSummary": "_summarize",
    "summarize": "_summarize",
    "Timeline": "_timeline", "TimelineItem": "_timeline", "TimelinePoint": "_timeline",
}


def __getattr__(name: str) -> _typing.Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> "list[str]":
    return sorted(set(globals()) | set(_LAZY))  # the public names before first use too


__version__ = "1.3.0"

__all__ = [
    "GpuInfo", "ItemRecord", "Measurement", "MeasurementLike", "PlateItem", "PlatePick",
    "PlatePrediction", "PlateResult", "NeedsYou", "PlateSection", "Progress", "Recommendation",
    "RecommendationLike", "RunRecord", "ScalePoint", "ScaleResult", "SpacrbenchError",
    "SpacrbenchFileNotFoundError", "SpacrbenchMemoryError", "SpacrbenchOSError",
    "SpacrbenchOverflowError", "SpacrbenchRuntimeError", "SpacrbenchTypeError",
    "SpacrbenchValueError", "Summary", "TaskSummary", "Timeline", "TimelineItem",
    "TimelinePoint", "UnsupportedPlatformError", "available_memory_bytes", "benchmark",
    "benchmark_plate", "format_report", "recommend_workers", "scale", "summarize",
    "__version__"
]
