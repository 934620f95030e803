"""Conversions between the Python result types and the library's structs.

A Measurement is plain data: whenever the library must read one (recommend,
report, scheduler hand-off) an equivalent C measurement is rebuilt from its
fields, so a measurement made by hand or with dataclasses.replace() is
treated exactly like one that benchmark() returned."""

from __future__ import annotations

import dataclasses
import math
import numbers
import operator
from contextlib import contextmanager
from typing import Any, Dict, Iterator, Optional

from ._binding import NOT_MEASURED, c_text, check, ffi, format_text, lib, new_struct
from ._types import GpuInfo, ItemRecord, Measurement, Recommendation

PEAK_METHODS = {
    lib.SPACRBENCH_PEAK_NONE: "none",
    lib.SPACRBENCH_PEAK_HWM_RESET: "hwm-reset",
    lib.SPACRBENCH_PEAK_HWM_WINDOW: "hwm-window",
    lib.SPACRBENCH_PEAK_SAMPLED: "sampled",
    lib.SPACRBENCH_PEAK_CGROUP: "cgroup",
    lib.SPACRBENCH_PEAK_CHILD_RUSAGE: "child-rusage",
    lib.SPACRBENCH_PEAK_SUPPLIED: "supplied",
}
SOURCES = {
    lib.SPACRBENCH_SOURCE_UNKNOWN: "unknown",
    lib.SPACRBENCH_SOURCE_HOST: "host",
    lib.SPACRBENCH_SOURCE_AFFINITY: "affinity",
    lib.SPACRBENCH_SOURCE_CGROUP_V1: "cgroup-v1",
    lib.SPACRBENCH_SOURCE_CGROUP_V2: "cgroup-v2",
    lib.SPACRBENCH_SOURCE_CALLER: "caller",
    lib.SPACRBENCH_SOURCE_CPUSET: "cpuset",
    lib.SPACRBENCH_SOURCE_NVML: "nvml",
    lib.SPACRBENCH_SOURCE_TORCH: "torch",
}
BOUNDS = {
    lib.SPACRBENCH_BOUND_NONE: "none",
    lib.SPACRBENCH_BOUND_MEMORY: "memory",
    lib.SPACRBENCH_BOUND_CORES: "cores",
    lib.SPACRBENCH_BOUND_MAXIMUM: "maximum",
    lib.SPACRBENCH_BOUND_FALLBACK: "fallback",
    lib.SPACRBENCH_BOUND_ONE: "one",
    lib.SPACRBENCH_BOUND_VRAM: "vram",
}


def _code(table: Dict[int, str], name: str, what: str) -> int:
    for code, text in table.items():
        if text == name:
            return code
    raise ValueError(f"{what} must be one of {sorted(table.values())}, not {name!r}")


def _optional(value: int) -> Optional[int]:
    return None if value == NOT_MEASURED else int(value)


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _whole(value: Any, name: str) -> int:
    """An integer figure of a hand-made result. spaCR read these with int(),
    so finite floats (peak_rss_bytes=4e9, items=2.5) are accepted and
    truncated the same way; bool is refused, as in recommend_workers()'s
    arguments; signs are left to the library, which names the field."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number, not bool")
    try:
        n = operator.index(value)
    except TypeError:
        if not isinstance(value, numbers.Real):
            raise TypeError(f"{name} must be a number, not {type(value).__name__}") from None
        if not math.isfinite(float(value)):
            raise ValueError(f"{name} must be a finite number, not {value!r}") from None
        n = int(math.trunc(value))  # what int() does to a real
    if not _INT64_MIN <= n <= _INT64_MAX:
        raise ValueError(f"{name} must fit in 64 bits, not {n}")
    return n


def _real(value: Any, name: str) -> float:
    """A time figure of a hand-made result (NaN and sign: the library's call)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    return float(value)


def utf8(text: str) -> bytes:
    """Text for the library, which reads UTF-8. A file name decoded with
    surrogateescape (os.listdir, os.fsdecode) gets its original bytes back
    (the report shows them as U+FFFD); any other lone surrogate becomes '?'.
    Text is never refused for its encoding."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace")


def _sentinel(value: Any, name: str) -> int:
    return NOT_MEASURED if value is None else _whole(value, name)


# ---------------------------------------------------------------- measurement

def measurement_from_c(cm: Any) -> Measurement:
    """Read a C measurement into a Measurement (the C object is not kept)."""
    fig = new_struct("spacrbench_figures")
    check(lib.spacrbench_measurement_figures(cm, fig), "spacrbench_measurement_figures")
    notes = [c_text(lib.spacrbench_measurement_note(cm, i)) for i in range(fig.note_count)]
    records = []
    rec = new_struct("spacrbench_item_record")
    for i in range(fig.record_count):
        check(lib.spacrbench_measurement_record(cm, i, rec), "spacrbench_measurement_record")
        records.append(ItemRecord(
            index=int(rec.index), seconds=float(rec.seconds),
            peak_rss_bytes=_optional(rec.peak_rss_bytes),
            peak_vram_bytes=_optional(rec.peak_vram_bytes),
            is_warmup=bool(rec.is_warmup)))
    gpus = []
    gpu = new_struct("spacrbench_gpu_info")
    for i in range(fig.gpu_count):
        check(lib.spacrbench_measurement_gpu(cm, i, gpu), "spacrbench_measurement_gpu")
        gpus.append(GpuInfo(
            index=int(gpu.index), name=c_text(gpu.name),
            total_bytes=int(gpu.total_bytes), free_bytes=int(gpu.free_bytes),
            process_peak_bytes=_optional(gpu.process_peak_bytes)))
    cpu = float(fig.cpu_seconds)
    vram_source = SOURCES.get(fig.vram_source, "unknown")
    return Measurement(
        items=int(fig.items), seconds=float(fig.seconds),
        peak_rss_bytes=int(fig.peak_rss_bytes),
        peak_vram_bytes=_optional(fig.peak_vram_bytes),
        baseline_rss_bytes=int(fig.baseline_rss_bytes),
        notes=notes, records=tuple(records),
        cpu_seconds=None if math.isnan(cpu) else cpu,
        warmup_items=int(fig.warmup_items), warmup_seconds=float(fig.warmup_seconds),
        peak_method=PEAK_METHODS.get(fig.peak_method, "none"),
        vram_source=None if vram_source == "unknown" else vram_source,
        gpus=tuple(gpus), sample_interval_us=int(fig.sample_interval_us))


@contextmanager
def c_measurement(m: Optional[Measurement]) -> Iterator[Any]:
    """An equivalent C measurement for the duration of a with-block
    (ffi.NULL for None); freed on exit."""
    if m is None:
        yield ffi.NULL
        return
    if not isinstance(m, Measurement):
        raise TypeError(f"measurement must be a spacrbench Measurement or None, "
                        f"not {type(m).__name__}")
    fig = new_struct("spacrbench_figures")
    fig.items = _whole(m.items, "items")
    fig.peak_rss_bytes = _whole(m.peak_rss_bytes, "peak_rss_bytes")
    fig.baseline_rss_bytes = _whole(m.baseline_rss_bytes, "baseline_rss_bytes")
    fig.peak_vram_bytes = _sentinel(m.peak_vram_bytes, "peak_vram_bytes")
    fig.warmup_items = _whole(m.warmup_items, "warmup_items")
    fig.sample_interval_us = _whole(m.sample_interval_us, "sample_interval_us")
    fig.seconds = _real(m.seconds, "seconds")
    fig.cpu_seconds = math.nan if m.cpu_seconds is None else _real(m.cpu_seconds, "cpu_seconds")
    fig.warmup_seconds = _real(m.warmup_seconds, "warmup_seconds")
    fig.peak_method = _code(PEAK_METHODS, m.peak_method, "peak_method")
    fig.vram_source = (lib.SPACRBENCH_SOURCE_UNKNOWN if m.vram_source is None
                       else _code(SOURCES, m.vram_source, "vram_source"))
    out = ffi.new("spacrbench_measurement **")
    check(lib.spacrbench_measurement_create(fig, out), "measurement")
    cm = out[0]
    try:
        _add_details(cm, m)
        yield cm
    finally:
        lib.spacrbench_measurement_free(cm)


def _add_details(cm: Any, m: Measurement) -> None:
    for note in m.notes:
        check(lib.spacrbench_measurement_add_note(cm, utf8(str(note))),
              "measurement note")
    rec = new_struct("spacrbench_item_record")
    for i, r in enumerate(m.records):
        rec.index = _whole(r.index, f"records[{i}].index")
        rec.is_warmup = 1 if r.is_warmup else 0
        rec.seconds = _real(r.seconds, f"records[{i}].seconds")
        rec.peak_rss_bytes = _sentinel(r.peak_rss_bytes, f"records[{i}].peak_rss_bytes")
        rec.peak_vram_bytes = _sentinel(r.peak_vram_bytes, f"records[{i}].peak_vram_bytes")
        check(lib.spacrbench_measurement_add_record(cm, rec), "measurement record")
    gpu = new_struct("spacrbench_gpu_info")
    for i, g in enumerate(m.gpus):
        gpu.index = _whole(g.index, f"gpus[{i}].index")
        name = utf8(str(g.name))[: ffi.sizeof(gpu.name) - 1]
        ffi.memmove(gpu.name, name + b"\0", len(name) + 1)
        gpu.total_bytes = _whole(g.total_bytes, f"gpus[{i}].total_bytes")
        gpu.free_bytes = _whole(g.free_bytes, f"gpus[{i}].free_bytes")
        gpu.process_peak_bytes = _sentinel(g.process_peak_bytes, f"gpus[{i}].process_peak_bytes")
        check(lib.spacrbench_measurement_add_gpu(cm, gpu), "measurement gpu")


# ------------------------------------------------------------- recommendation

def recommendation_from_c(r: Any, measurement: Optional[Measurement]) -> Recommendation:
    def opt(value: int) -> Optional[int]:
        return None if value < 0 else int(value)

    return Recommendation(
        workers=int(r.workers), reason=c_text(r.reason), measurement=measurement,
        cores=int(r.cores), available_bytes=int(r.available_bytes),
        bound=BOUNDS.get(r.bound, "none"), reserve_bytes=int(r.reserve_bytes),
        per_worker_bytes=opt(r.per_worker_bytes), memory_workers=opt(r.memory_workers),
        maximum=int(r.maximum), memory_source=SOURCES.get(r.memory_source, "unknown"),
        memory_where=c_text(r.memory_where), memory_limit_bytes=opt(r.memory_limit_bytes),
        cores_source=SOURCES.get(r.cores_source, "unknown"), cores_where=c_text(r.cores_where),
        per_worker_vram_bytes=opt(r.per_worker_vram_bytes),
        free_vram_bytes=opt(r.free_vram_bytes),
        vram_reserve_bytes=int(r.vram_reserve_bytes), vram_workers=opt(r.vram_workers))


def _put_text(array: Any, text: str) -> None:
    data = utf8(text)[: ffi.sizeof(array) - 1]
    ffi.memmove(array, data + b"\0", len(data) + 1)


def c_recommendation(rec: Optional[Recommendation]) -> Any:
    """A spacrbench_recommendation struct holding rec's figures (NULL for None)."""
    if rec is None:
        return ffi.NULL
    if not isinstance(rec, Recommendation):
        raise TypeError(f"recommendation must be a spacrbench Recommendation or None, "
                        f"not {type(rec).__name__}")
    r = new_struct("spacrbench_recommendation")
    for name in ("workers", "cores", "available_bytes", "reserve_bytes", "maximum",
                 "vram_reserve_bytes"):
        setattr(r, name, _whole(getattr(rec, name), name))
    for name in ("memory_limit_bytes", "per_worker_bytes", "memory_workers",
                 "per_worker_vram_bytes", "free_vram_bytes", "vram_workers"):
        setattr(r, name, _sentinel(getattr(rec, name), name))
    r.bound = _code(BOUNDS, rec.bound, "bound")
    r.cores_source = _code(SOURCES, rec.cores_source, "cores_source")
    r.memory_source = _code(SOURCES, rec.memory_source, "memory_source")
    _put_text(r.reason, str(rec.reason))
    _put_text(r.memory_where, str(rec.memory_where))
    _put_text(r.cores_where, str(rec.cores_where))
    return r


# ------------------------------------------------------------ text and hand-off

def _report(m: Measurement, cr: Any) -> str:
    with c_measurement(m) as cm:
        return format_text(lambda buf, cap: lib.spacrbench_format_report(cm, cr, buf, cap),
                           "format_report")


def _has_evidence(rec: Recommendation) -> bool:
    return bool(rec.cores or rec.available_bytes or rec.memory_where or rec.cores_where
                or rec.vram_workers is not None)


def format_report(m: Measurement, rec: Optional[Recommendation]) -> str:
    """The library's report. A spaCR-style Recommendation(workers, reason)
    carries no evidence: rather than "memory available 0 B ()", its report is
    the measurement's with only the recommended-workers and because lines,
    placed before the notes as the library places them. Evidence given
    without its where-strings says "not given" instead of "()"."""
    if rec is None or not isinstance(rec, Recommendation):
        return _report(m, c_recommendation(rec))  # None, or the TypeError
    if _has_evidence(rec):
        rec = dataclasses.replace(rec, memory_where=rec.memory_where or "not given",
                                  cores_where=rec.cores_where or "not given")
        return _report(m, c_recommendation(rec))
    cr = c_recommendation(rec)  # validated, and the reason as the library holds it
    head = _report(dataclasses.replace(m, notes=[]), ffi.NULL)
    full = _report(m, ffi.NULL)
    notes = full[len(head):] if full.startswith(head) else ""
    return (f"{full[:len(full) - len(notes)]}\n"
            f"  recommended workers {int(cr.workers)}\n"
            f"    because           {c_text(cr.reason)}{notes}")


def format_slurm(rec: Recommendation) -> str:
    cr = c_recommendation(rec)
    with c_measurement(rec.measurement) as cm:
        return format_text(lambda buf, cap: lib.spacrbench_format_slurm(cm, cr, buf, cap),
                           "to_slurm")


def format_dask(rec: Recommendation) -> str:
    cr = c_recommendation(rec)
    with c_measurement(rec.measurement) as cm:
        return format_text(lambda buf, cap: lib.spacrbench_format_dask(cm, cr, buf, cap),
                           "to_dask")


def dask_settings(rec: Recommendation) -> Dict[str, int]:
    cr = c_recommendation(rec)
    sched = new_struct("spacrbench_schedule")
    with c_measurement(rec.measurement) as cm:
        check(lib.spacrbench_schedule_compute(cm, cr, sched), "to_dask")
    return {"n_workers": int(sched.n_workers),
            "threads_per_worker": int(sched.threads_per_worker),
            "memory_limit": int(sched.memory_limit_bytes)}
