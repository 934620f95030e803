"""The torch fallback for VRAM. torch itself is the external boundary: a fake
module is put in sys.modules, exactly where the binding looks for it."""

from __future__ import annotations

import sys
import types
from typing import Iterator, List

import pytest
from helpers import MiB

import spacrbench


class FakeCuda:
    """torch.cuda's caching allocator as far as the binding reads it: the
    memory reserved now, and its peak since the last reset (an earlier,
    higher peak stays until reset_peak_memory_stats() sets it to now)."""

    def __init__(self, initialized: bool, reserved: int, earlier_peak: int = 0) -> None:
        self.initialized = initialized
        self.reserved = reserved
        self.peak = max(reserved, earlier_peak)
        self.calls: List[str] = []

    def is_initialized(self) -> bool:
        self.calls.append("is_initialized")
        return self.initialized

    def reset_peak_memory_stats(self) -> None:
        self.calls.append("reset_peak_memory_stats")
        self.peak = self.reserved

    def memory_reserved(self) -> int:
        self.calls.append("memory_reserved")
        return self.reserved

    def max_memory_reserved(self) -> int:
        self.calls.append("max_memory_reserved")
        return self.peak


@pytest.fixture
def fake_torch(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    module = types.ModuleType("torch")
    monkeypatch.setitem(sys.modules, "torch", module)
    yield module


def library_vram(work_items: int = 2) -> "spacrbench.Measurement":
    """What the C side measures without torch on this machine."""
    return spacrbench.benchmark(lambda i: None, range(work_items), warmup=0)


def test_torch_peak_used_when_the_library_has_none(fake_torch: types.ModuleType) -> None:
    cuda = FakeCuda(initialized=True, reserved=123 * MiB)
    fake_torch.cuda = cuda  # type: ignore[attr-defined]
    m = spacrbench.benchmark(lambda i: None, range(3), warmup=1)
    # Reserved memory is at its peak already: the caller's statistics are kept.
    assert "reset_peak_memory_stats" not in cuda.calls
    assert cuda.calls[-1] == "max_memory_reserved"
    if m.vram_source == "torch":
        assert m.peak_vram_bytes == 123 * MiB
        assert any("torch.cuda.max_memory_reserved" in n for n in m.notes)
    else:
        print(f"the library measured VRAM itself ({m.vram_source}); torch only noted")
        assert m.peak_vram_bytes is not None
        assert any("torch.cuda.max_memory_reserved() reported" in n for n in m.notes)


def test_caller_peak_statistics_are_reset_only_when_they_hide_the_run(
        fake_torch: types.ModuleType) -> None:
    """After torch.cuda.empty_cache() the earlier peak (900 MiB) is above
    what torch holds (100 MiB) and would hide the run's (300 MiB): then, and
    only then, the current device's peak statistics are reset, and a note
    says so (docs/python.md, "GPUs and PyTorch")."""
    cuda = FakeCuda(initialized=True, reserved=100 * MiB, earlier_peak=900 * MiB)
    fake_torch.cuda = cuda  # type: ignore[attr-defined]

    def work(i: int) -> None:
        cuda.reserved = 300 * MiB
        cuda.peak = max(cuda.peak, cuda.reserved)

    m = spacrbench.benchmark(work, range(2), warmup=0)
    assert cuda.calls.index("reset_peak_memory_stats") < len(cuda.calls) - 1
    assert any("peak memory statistics were reset" in n for n in m.notes), m.notes
    if m.vram_source == "torch":
        assert m.peak_vram_bytes == 300 * MiB
    kept = FakeCuda(initialized=True, reserved=100 * MiB)
    fake_torch.cuda = kept  # type: ignore[attr-defined]
    m = spacrbench.benchmark(lambda i: None, range(2), warmup=0)
    assert "reset_peak_memory_stats" not in kept.calls
    assert not any("were reset" in n for n in m.notes)


def test_torch_vram_reaches_the_recommendation(fake_torch: types.ModuleType) -> None:
    fake_torch.cuda = FakeCuda(initialized=True, reserved=3 * 1024**3)  # type: ignore[attr-defined]
    m = spacrbench.benchmark(lambda i: None, range(2), warmup=0)
    if m.vram_source != "torch":
        pytest.skip(f"VRAM measured by {m.vram_source} on this machine, not torch")
    rec = spacrbench.recommend_workers(m, cores=16, available_bytes=512 * 1024**3,
                                       free_vram_bytes=10 * 1024**3,
                                       vram_reserve_bytes=1024**3)
    assert rec.per_worker_vram_bytes == 3 * 1024**3
    assert rec.workers == (10 - 1) // 3 and "VRAM" in rec.reason


def test_uninitialised_cuda_is_not_touched(fake_torch: types.ModuleType) -> None:
    cuda = FakeCuda(initialized=False, reserved=999 * MiB)
    fake_torch.cuda = cuda  # type: ignore[attr-defined]
    m = spacrbench.benchmark(lambda i: None, range(2), warmup=0)
    assert cuda.calls == ["is_initialized"] * 3  # before the run, after each item
    assert m.vram_source != "torch"


def test_cuda_started_lazily_by_the_first_item_is_measured(fake_torch: types.ModuleType) -> None:
    cuda = FakeCuda(initialized=False, reserved=77 * MiB)
    fake_torch.cuda = cuda  # type: ignore[attr-defined]

    def work(i: int) -> None:
        cuda.initialized = True  # what torch does on the first .cuda()

    m = spacrbench.benchmark(work, range(3), warmup=1)
    assert "reset_peak_memory_stats" not in cuda.calls  # would lose item 1's peak
    assert cuda.calls.count("is_initialized") == 2  # before, after item 1; then tracked
    assert cuda.calls[-1] == "max_memory_reserved"
    vram_notes = [n for n in m.notes if "VRAM" in n]
    assert len(vram_notes) == 1, m.notes  # one note, never "not measured" next to a figure
    if m.vram_source == "torch":
        assert m.peak_vram_bytes == 77 * MiB and "started by the work" in vram_notes[0]
        assert "not measured" not in spacrbench.format_report(m).split("peak VRAM")[1].split("\n")[0]
    else:
        assert m.peak_vram_bytes is not None and "reported 77.0 MiB" in vram_notes[0]


def test_a_broken_torch_does_not_break_the_measurement(fake_torch: types.ModuleType) -> None:
    class Broken(FakeCuda):
        def max_memory_reserved(self) -> int:
            raise RuntimeError("CUDA error: device lost")

    fake_torch.cuda = Broken(initialized=True, reserved=0)  # type: ignore[attr-defined]
    m = spacrbench.benchmark(lambda i: None, range(2), warmup=0)
    assert m.items == 2 and any("device lost" in n for n in m.notes)


def test_without_torch_nothing_is_imported() -> None:
    if "torch" in sys.modules:
        pytest.skip("a real torch is loaded in this interpreter")
    library_vram()
    assert "torch" not in sys.modules
