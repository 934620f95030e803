"""Measurement.from_dict: to_dict()'s object, read back from JSON, is the
same measurement (its document identical, its advice the same); a saved
command document and a SLURM-style report member are taken too; a bad
field is a ValueError or TypeError that names it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict

import pytest

import spacrbench
from spacrbench import Measurement, _cli


def _round_trip(m: Measurement) -> Measurement:
    return Measurement.from_dict(json.loads(json.dumps(m.to_dict())))


def test_a_measurement_read_back_is_the_same_measurement() -> None:
    m = spacrbench.benchmark(lambda i: bytearray(2 << 20), ["a", "b", "c"], warmup=1,
                             timeline=True)
    back = _round_trip(m)
    assert isinstance(back, Measurement)
    assert back.to_dict() == m.to_dict()
    assert back.records == m.records and back.timeline == m.timeline
    assert back.work_rss_bytes == m.work_rss_bytes  # recomputed, not read
    assert (spacrbench.recommend_workers(back).reason
            == spacrbench.recommend_workers(m).reason)
    assert spacrbench.format_report(back) == spacrbench.format_report(m)


def test_a_hand_made_measurement_reads_back_with_its_nones() -> None:
    m = Measurement(items=4, seconds=2.0, peak_rss_bytes=3 << 30)
    back = _round_trip(m)
    assert back.to_dict() == m.to_dict()
    assert back.peak_vram_bytes is None and back.cpu_seconds is None and back.timeline is None


def test_a_saved_command_document_is_read_whole_or_by_its_member(tmp_path: Path) -> None:
    exe = _cli.command_path()
    if not os.access(exe, os.X_OK):
        pytest.skip(f"this installation has no C command ({exe})")
    run = subprocess.run([str(exe), "run", "--json", "--quiet", "a", "bb", "--", "true", "{}"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    whole, member = Measurement.from_dict(doc), Measurement.from_dict(doc["measurement"])
    assert whole.to_dict() == member.to_dict() == doc["measurement"]
    assert [r.item for r in whole.records] == ["a", "bb"]
    assert spacrbench.recommend_workers(whole).workers >= 1


def _valid() -> Dict[str, Any]:
    return {"items": 1, "seconds": 1.0, "peak_rss_bytes": 1 << 20,
            "records": [{"index": 0, "seconds": 1.0, "peak_rss_bytes": 1 << 20}]}


def _timeline(**changes: Any) -> Dict[str, Any]:
    t: Dict[str, Any] = {"interval_us": 10000, "samples": 1, "stride": 1, "max_points": 2000,
                         "points": [{"seconds": 0.5, "rss_bytes": 1 << 20, "cgroup_bytes": None}],
                         "items": [_mark()]}
    t.update(changes)
    return t


def _mark(**changes: Any) -> Dict[str, Any]:
    m: Dict[str, Any] = {"index": 0, "is_warmup": False, "start_seconds": 0.0,
                         "end_seconds": 1.0, "peak_rss_bytes": 1 << 20, "peak_seconds": 0.5}
    m.update(changes)
    return m


def test_a_valid_timeline_is_read() -> None:
    d = _valid()
    d["timeline"] = _timeline()
    t = Measurement.from_dict(d).timeline
    assert t is not None and t.points[0].rss_bytes == 1 << 20 and t.items[0].peak_seconds == 0.5


@pytest.mark.parametrize("change, kind, named", [
    (lambda d: d.pop("seconds"), ValueError, "data has no 'seconds'"),
    (lambda d: d.update(items="1"), TypeError, "data['items'] must be an integer"),
    (lambda d: d.update(items=True), TypeError, "data['items'] must be an integer"),
    (lambda d: d.update(peak_rss_bytes=-1), ValueError, "data['peak_rss_bytes'] must be >= 0"),
    (lambda d: d.update(seconds=float("inf")), ValueError, "data['seconds'] must be finite"),
    (lambda d: d.update(records={}), TypeError, "data['records'] must be a list"),
    (lambda d: d["records"][0].pop("index"), ValueError, "data['records'][0] has no 'index'"),
    (lambda d: d["records"][0].update(is_warmup=1), TypeError,
     "data['records'][0]['is_warmup'] must be a bool"),
    (lambda d: d.update(notes=[1]), TypeError, "data['notes'][0] must be a string"),
    (lambda d: d.update(gpus=["gpu0"]), TypeError, "data['gpus'][0] must be a mapping"),
    (lambda d: d.update(timeline={"points": []}), ValueError,
     "data['timeline'] has no 'interval_us'"),
    (lambda d: d.update(peak_method="guessed"), ValueError,
     "data['peak_method'] must be one of"),
    (lambda d: d.update(items=2**70), ValueError, "data['items'] must be >= 0 and fit in 64 bits"),
    (lambda d: d.update(stopped=True, stopped_item=1), ValueError,
     "data['stopped'] is true: that run stopped at item 1"),
    (lambda d: d.update(items=5), ValueError,
     "data['records'] has 1 records, not items + warmup_items = 5"),
    (lambda d: d["records"][0].update(index=3), ValueError,
     "data['records'][0]['index'] is 3, not 0"),
    (lambda d: d["records"][0].update(item="a\0b"), ValueError,
     "data['records'][0]['item'] must not contain a NUL"),
    (lambda d: d.update(vram_source="affinity"), ValueError,
     "data['vram_source'] must be one of"),
    (lambda d: d.update(timeline=_timeline(interval_us=float("inf"))), TypeError,
     "data['timeline']['interval_us'] must be an integer"),
    (lambda d: d.update(timeline=_timeline(points=[{"seconds": 0.1, "rss_bytes": "lots"}])),
     TypeError, "data['timeline']['points'][0]['rss_bytes'] must be an integer or None"),
    (lambda d: d.update(timeline=_timeline(points=[{"seconds": -1.0, "rss_bytes": 1}])),
     ValueError, "data['timeline']['points'][0]['seconds'] must be finite and >= 0"),
    (lambda d: d.update(timeline=_timeline(items=[_mark(is_warmup="false")])), TypeError,
     "data['timeline']['items'][0]['is_warmup'] must be a bool"),
    (lambda d: d.update(timeline=_timeline(items=[_mark(index=99)])), ValueError,
     "data['timeline']['items'][0]['index'] is 99, past the 1 records"),
    (lambda d: d.update(timeline=_timeline(max_points=0)), ValueError, "must be >= 1"),
    # What was let through or not named (#32): a number no float holds was an
    # OverflowError.
    (lambda d: d.update(seconds=10**400), ValueError,
     "data['seconds'] must be finite and >= 0, got 1000"),
    (lambda d: d.update(stopped=1), TypeError, "data['stopped'] must be a bool, not int"),
    (lambda d: (d.update(items=0), d.pop("records")), ValueError,
     "data['items'] is 0: a measurement holds at least one measured item"),
    (lambda d: (d.pop("records"), d.update(peak_method="hwm_reset")), ValueError,
     "data['records'] is empty: a measured run (peak_method 'hwm_reset') has one record per item"),
    (lambda d: d.update(items=float("nan")), TypeError,
     "data['items'] must be an integer, not float"),
    (lambda d: d.update(notes=["a", object()]), TypeError,
     "data['notes'][1] must be JSON data (a mapping, list, str, int, float, bool or None), "
     "not object"),
    (lambda d: d.update(records=[spacrbench.ItemRecord(0, 1.0)]), TypeError,
     "data['records'][0] must be JSON data"),
    (lambda d: d.update(gpus={1: {}, (2, 3): {}}), TypeError,
     "data['gpus'] has a key of type tuple, not str"),
])
def test_a_bad_field_is_named(change: Any, kind: type, named: str) -> None:
    d = _valid()
    change(d)
    with pytest.raises(kind) as info:
        Measurement.from_dict(d)
    assert named in str(info.value)
    assert isinstance(info.value, spacrbench.SpacrbenchError)


def test_not_a_mapping_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="data must be a mapping, not list"):
        Measurement.from_dict([])  # type: ignore[arg-type]
    assert Measurement.from_dict(_valid()).items == 1  # the valid one is taken


def test_a_document_that_holds_itself_is_a_value_error() -> None:
    d = _valid()
    d["notes"] = [d]
    with pytest.raises(ValueError, match=r"data holds itself \(Circular reference detected\)"):
        Measurement.from_dict(d)


def test_any_mapping_and_tuples_are_read_and_odd_text_survives() -> None:
    from types import MappingProxyType

    d = _valid()
    d["records"] = ({"index": 0, "seconds": 1.0, "item": "caf\udce9.tif"},)  # os.fsdecode's
    m = Measurement.from_dict(MappingProxyType(d))
    assert m.records[0].item == "caf\ufffd.tif" and m.items == 1
    assert Measurement.from_dict(m.to_dict()).to_dict() == m.to_dict()


def test_a_documents_item_labels_are_kept_and_decoded_with_the_records() -> None:
    """The labels stay with the library's records block: reading a document
    decodes no record; its to_dict() and CSV carry each item's label."""
    d = _valid()
    d["items"] = 2
    d["records"] = [{"index": 0, "seconds": 1.0, "item": "a.tif"},
                    {"index": 1, "seconds": 2.0}]
    m = Measurement.from_dict(d)
    assert type(m.__dict__["records"]).__name__ == "LazyRecords"  # not decoded yet
    assert [r["item"] for r in m.to_dict()["records"]] == ["a.tif", ""]
    assert "a.tif" in spacrbench.format_report(m, format="csv")
    assert [r.item for r in m.records] == ["a.tif", None]
    assert [r["item"] for r in m.to_dict()["records"]] == ["a.tif", ""]


def test_the_plot_helper_reads_through_the_same_reader() -> None:
    from spacrbench._plot_cli import measurement_from_json, result_from_json
    from helpers import result_from_points

    stopped = dict(_valid(), stopped=True, stopped_item=0, work_result=3, peak_rss_bytes=None,
                   peak_method="cgroup", items=0)
    m = measurement_from_json({"mode": "run", "measurement": stopped})  # a failed run plots
    assert m.items == 0 and len(m.records) == 1
    with pytest.raises(ValueError, match=r"data\['measurement'\]\['stopped'\] is true"):
        Measurement.from_dict({"mode": "run", "measurement": stopped})
    r = result_from_points([{"workers": 1, "items": 4, "seconds": 2.0, "peak_bytes": 2**20},
                            {"workers": 2, "items": 4, "seconds": 1.2, "peak_bytes": 2**21}],
                           2**30, ["a note"])
    back = result_from_json(None, r.json_text)
    assert back.points == r.points and back.to_dict() == r.to_dict() and str(back) == str(r)
    assert (back.chosen_workers, back.reason, back.notes) == (r.chosen_workers, r.reason, r.notes)
    with pytest.raises(ValueError, match=r"data\['scaling'\]\[0\]\['workers'\] must be >= 1"):
        result_from_json({"scaling": [{"workers": 0, "items": 1, "seconds": 1.0,
                                       "peak_bytes": None, "failed": False}]})
