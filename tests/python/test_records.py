"""Item records are read from the library in one call and become ItemRecords
only when Measurement.records is first read; to every reader the field is
the same tuple as before. And the run itself costs no memory per item."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any, List

import pytest

import spacrbench
from spacrbench import ItemRecord, Measurement
from spacrbench._types import LazyRecords, raw_records


def eager_twin(m: Measurement) -> Measurement:
    """The same measurement with its records as a plain tuple of ItemRecords."""
    fields = {f.name: getattr(m, f.name) for f in dataclasses.fields(Measurement)}
    fields["records"] = tuple(ItemRecord(r.index, r.seconds, r.peak_rss_bytes,
                                         r.peak_vram_bytes, r.is_warmup, r.item, r.cpu_seconds,
                                         r.cgroup_charge_bytes, r.tree_rss_peak_bytes,
                                         r.run_records) for r in m.records)
    return Measurement(**fields)


@pytest.fixture
def measured() -> Measurement:
    return spacrbench.benchmark(lambda i: bytearray(64 * 1024), range(5), warmup=2)


def test_records_are_decoded_on_first_read_only(measured: Measurement) -> None:
    held = raw_records(measured)
    assert type(held) is LazyRecords and held.count == 5
    records = measured.records
    assert type(records) is tuple and len(records) == 5
    assert measured.records is records  # decoded once, then kept
    assert type(raw_records(measured)) is tuple
    assert [r.index for r in records] == [0, 1, 2, 3, 4]
    assert [r.is_warmup for r in records] == [True, True, False, False, False]
    assert all(isinstance(r, ItemRecord) and r.seconds >= 0 for r in records)
    assert all(r.peak_rss_bytes is not None and r.peak_rss_bytes > 0 for r in records)
    assert all(r.peak_vram_bytes is None for r in records) or measured.peak_vram_bytes is not None


def test_equality_and_hashing_as_before(measured: Measurement) -> None:
    fresh = spacrbench.benchmark(lambda i: None, range(3))
    twin = pickle.loads(pickle.dumps(fresh))  # records as a tuple; fresh's stay undecoded
    assert type(raw_records(fresh)) is LazyRecords and type(raw_records(twin)) is tuple
    assert fresh == twin and twin == fresh
    assert fresh != measured
    with pytest.raises(TypeError):  # notes is a list: unhashable, as in spaCR and 1.0
        hash(fresh)
    assert hash(fresh.records) == hash(twin.records)
    assert hash(fresh.records[0]) == hash(twin.records[0])


def test_repr_is_the_tuples(measured: Measurement) -> None:
    twin = eager_twin(measured)
    again = spacrbench.benchmark(lambda i: None, range(2))
    assert "LazyRecords" not in repr(again) and "2 record(s)" in repr(again)  # short: #23
    assert repr(measured) == repr(twin)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickling_keeps_the_records(protocol: int) -> None:
    m = spacrbench.benchmark(lambda i: None, range(4), warmup=1)
    assert type(raw_records(m)) is LazyRecords
    back = pickle.loads(pickle.dumps(m, protocol))
    assert type(back.records) is tuple and back == m and back.records == m.records
    assert spacrbench.format_report(back) == spacrbench.format_report(m)


def test_copy_replace_and_asdict(measured: Measurement) -> None:
    m = spacrbench.benchmark(lambda i: None, range(3), warmup=1)
    assert copy.copy(m) == m and copy.deepcopy(m) == m
    changed = dataclasses.replace(m, notes=["by hand"])
    assert changed.records == m.records and changed.notes == ["by hand"]
    d = dataclasses.asdict(m)
    assert d["records"] == tuple(dataclasses.asdict(r) for r in m.records)
    assert d["records"][1] == {"index": 1, "seconds": m.records[1].seconds,
                               "peak_rss_bytes": m.records[1].peak_rss_bytes,
                               "peak_vram_bytes": m.records[1].peak_vram_bytes,
                               "is_warmup": False, "item": None,
                               "cpu_seconds": m.records[1].cpu_seconds,
                               "cgroup_charge_bytes": None, "tree_rss_peak_bytes": None,
                               "run_records": ()}
    assert dataclasses.asdict(eager_twin(measured)) == dataclasses.asdict(measured)


def test_records_stay_frozen_and_default_empty() -> None:
    m = spacrbench.benchmark(lambda i: None, range(2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.records = ()  # type: ignore[misc]
    assert Measurement(items=1, seconds=1.0, peak_rss_bytes=1).records == ()
    assert Measurement.records == ()


def test_undecoded_records_rebuild_the_same_c_measurement() -> None:
    a = spacrbench.benchmark(lambda i: None, range(6), warmup=2)
    b = pickle.loads(pickle.dumps(a))  # the same figures, records as a tuple
    assert type(raw_records(a)) is LazyRecords
    assert a.to_dict() == b.to_dict()  # one rebuilt from the block, one from ItemRecords
    assert type(raw_records(a)) is LazyRecords  # to_dict() did not decode them


@pytest.mark.slow  # 14 s; the C harness's records, the same on every interpreter
def test_a_million_empty_items_have_no_footprint() -> None:
    """The runner commits record memory before the baseline and the binding
    makes nothing per item during the run, so an empty work adds nothing."""
    n = 10**6
    calls: List[Any] = []
    m = spacrbench.benchmark(lambda i: None, range(n), warmup=0)
    spacrbench.benchmark(calls.append, range(3), warmup=0)  # items really reach the work
    assert calls == [0, 1, 2]
    assert m.items == n and raw_records(m).count == n
    if m.peak_method == "sampled":
        pytest.skip("no exact high-water mark on this kernel")
    assert m.work_rss_bytes < 2**20, f"{m.work_rss_bytes} bytes for {n} empty items"
    assert m.records[-1].index == n - 1  # and the records are all there
