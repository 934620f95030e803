"""One source of truth: names, the VRAM reason, report text, progress lines
and the JSON shape come from the library, so Python, the command and C
callers say the same thing about the same measurement."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

import spacrbench
from spacrbench import GpuInfo, ItemRecord, Measurement, Recommendation, RunRecord
from spacrbench import _convert
from spacrbench._binding import c_text, ffi, format_text, lib

from helpers import unwrapped

jsonschema = pytest.importorskip("jsonschema")

REPO = Path(__file__).resolve().parents[2]
SCHEMA_PATH = REPO / "docs" / "spacrbench.schema.json"
GiB = 1024**3


@pytest.fixture(scope="module")
def schema() -> Dict[str, Any]:
    doc: Dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(doc)
    return doc


def validate(instance: Any, schema: Dict[str, Any], definition: str) -> None:
    """Validate against one of the schema's $defs (refs resolved in the file)."""
    sub = {"$schema": schema["$schema"], "$defs": schema["$defs"],
           "$ref": f"#/$defs/{definition}"}
    jsonschema.Draft202012Validator(sub).validate(instance)


# ---------------------------------------------------------------------- names

@pytest.mark.parametrize("table, prefix, function", [
    (_convert.PEAK_METHODS, "SPACRBENCH_PEAK_", lib.spacrbench_peak_method_name),
    (_convert.SOURCES, "SPACRBENCH_SOURCE_", lib.spacrbench_source_name),
    (_convert.BOUNDS, "SPACRBENCH_BOUND_", lib.spacrbench_bound_name),
    (_convert.START_METHODS, "SPACRBENCH_START_", lib.spacrbench_start_method_name),
    (_convert.RESERVE_RULES, "SPACRBENCH_RESERVE_", lib.spacrbench_reserve_rule_name),
])
def test_name_tables_are_the_librarys(table: Any, prefix: str, function: Any) -> None:
    constants = {getattr(lib, a) for a in dir(lib) if a.startswith(prefix)}
    assert len(constants) >= 3 and set(table.by_code) == constants
    for code, name in table.by_code.items():
        assert name == c_text(function(code))
        assert name != "unknown" or code == lib.SPACRBENCH_SOURCE_UNKNOWN
        assert name.isidentifier() and name == name.lower()  # "hwm_reset", "cgroup_v1"
        assert table.code(name, "x") == code
    assert table.name(12345) == "unknown"


def test_names_match_the_schema_enums(schema: Dict[str, Any]) -> None:
    defs = schema["$defs"]
    assert sorted(_convert.PEAK_METHODS.by_name) == sorted(defs["peak_method"]["enum"])
    assert sorted(_convert.SOURCES.by_name) == sorted(defs["source"]["enum"])
    assert sorted(_convert.BOUNDS.by_name) == sorted(defs["bound"]["enum"])
    assert sorted(_convert.START_METHODS.by_name) == sorted(defs["start_method"]["enum"])
    assert sorted(_convert.RESERVE_RULES.by_name) == sorted(defs["reserve_rule"]["enum"])


def test_results_carry_the_librarys_spelling() -> None:
    m = spacrbench.benchmark(lambda i: None, range(3), warmup=1)
    assert m.peak_method in _convert.PEAK_METHODS.by_name and "-" not in m.peak_method
    rec = spacrbench.recommend_workers(m)
    for name in (rec.bound, rec.memory_source, rec.cores_source, rec.start_method,
                 rec.reserve_rule):
        assert "-" not in name
    assert rec.memory_source in _convert.SOURCES.by_name
    assert rec.memory_source != "unknown" and rec.cores_source != "unknown"
    assert Measurement(items=1, seconds=1, peak_rss_bytes=1).peak_method == "supplied"
    assert Recommendation(1, "r").bound == "none" and Recommendation(1, "r").start_method == "fork"


def test_hyphenated_1_0_names_are_still_read() -> None:
    base = Measurement(items=2, seconds=1.0, peak_rss_bytes=100 * 2**20)
    old = dataclasses.replace(base, peak_method="hwm-reset")
    new = dataclasses.replace(base, peak_method="hwm_reset")
    assert spacrbench.format_report(old) == spacrbench.format_report(new)
    assert old.to_dict()["peak_method"] == "hwm_reset"
    with pytest.raises(ValueError, match="vram_source"):
        spacrbench.format_report(dataclasses.replace(base, vram_source="cgroup-v7"))


# ----------------------------------------------------------- the VRAM reason

def _c_run_hook(monkeypatch: pytest.MonkeyPatch) -> Dict[str, Any]:
    """Keep what the library itself says about the original C measurement
    of the next benchmark() (its report, with and without a recommendation
    rebuilt from Python's, and its JSON) before the binding frees it."""
    seen: Dict[str, Any] = {}
    original = _convert.measurement_fields

    def spy(cm: Any) -> Any:
        fields = original(cm)
        m = Measurement(**fields)
        rec = spacrbench.recommend_workers(m, cores=3, available_bytes=16 * GiB)
        cr = _convert.c_recommendation(rec)
        seen["rec"] = rec
        seen["report"] = format_text(
            lambda buf, cap: lib.spacrbench_format_report(cm, ffi.NULL, buf, cap), "r")
        seen["report_rec"] = format_text(
            lambda buf, cap: lib.spacrbench_format_report(cm, cr, buf, cap), "r")
        seen["json"] = json.loads(format_text(
            lambda buf, cap: lib.spacrbench_measurement_to_json(cm, ffi.NULL, 0, buf, cap), "j"))
        seen["reason"] = c_text(lib.spacrbench_measurement_vram_reason(cm))
        return fields

    monkeypatch.setattr(_convert, "measurement_fields", spy)
    return seen


def test_python_report_equals_the_c_report_of_the_original(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _c_run_hook(monkeypatch)
    m = spacrbench.benchmark(lambda i: bytearray(2**20), range(4), warmup=1)
    assert seen, "the hook did not see the C measurement"
    # m keeps the runner's C measurement; its copy is rebuilt from the fields.
    for one in (m, dataclasses.replace(m)):
        assert spacrbench.format_report(one) == seen["report"]
        assert spacrbench.format_report(one, seen["rec"]) == seen["report_rec"]
        assert one.to_dict() == seen["json"]
    if m.peak_vram_bytes is None:
        assert m.vram_reason == seen["reason"] and m.vram_reason
        # A run that found no CUDA device: spaCR's words first, the library's
        # detail once, in the note that gives it (not again on the line).
        head = "no CUDA device: "
        detail = m.vram_reason[len(head):] if m.vram_reason.startswith(head) else m.vram_reason
        verbose = unwrapped(spacrbench.format_report(m, verbose=True))
        assert verbose.count(detail) == 1, verbose
        assert f"not measured ({m.vram_reason.split(':')[0]})\n" in verbose
        # The short report: the reason's first words.
        assert f"not measured ({m.vram_reason.split(':')[0]})" in spacrbench.format_report(m)
        assert "no figure supplied" not in spacrbench.format_report(m)
    else:
        assert m.vram_reason is None and seen["reason"] == ""


def test_vram_reason_is_a_field_at_the_end_and_reaches_the_report() -> None:
    names = [f.name for f in dataclasses.fields(Measurement)]
    assert names[names.index("sample_interval_us") + 1:] == ["vram_reason", "oom_limit_bytes",
                                                             "timeline", "plate"]
    m = Measurement(items=1, seconds=1.0, peak_rss_bytes=2**20, vram_reason="no GPU in this job")
    assert "not measured (no GPU in this job)" in spacrbench.format_report(m)
    assert m.to_dict()["vram_reason"] == "no GPU in this job"
    plain = Measurement(items=1, seconds=1.0, peak_rss_bytes=2**20)
    assert plain.to_dict()["vram_reason"] is None
    assert "\n  peak VRAM           not measured (no CUDA device)" in spacrbench.format_report(plain)


def _vram_line(text: str) -> List[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("peak VRAM")]


def test_vram_line_matches_the_command_on_this_machine() -> None:
    from spacrbench import _cli
    if not _cli.command_path().exists():
        pytest.skip("this installation has no C command")
    out = subprocess.run([sys.executable, "-m", "spacrbench", "--size", "64x64", "--fields", "2",
                          "--channels", "1"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    m = spacrbench.benchmark(lambda i: None, range(2))
    command_line, python_line = _vram_line(out.stdout), _vram_line(spacrbench.format_report(m))
    assert len(command_line) == len(python_line) == 1
    if "not measured" not in command_line[0]:
        pytest.skip(f"this machine measures VRAM: {command_line[0].strip()}")
    assert python_line == command_line


# ------------------------------------------------------------- text and bytes

def test_progress_true_prints_the_librarys_line(capsys: pytest.CaptureFixture[str]) -> None:
    lines: List[str] = []

    def keep(p: spacrbench.Progress) -> None:
        c = ffi.new("spacrbench_progress *")
        c.size = ffi.sizeof("spacrbench_progress")
        c.index, c.total, c.is_warmup = p.index, p.total, int(p.is_warmup)
        c.item_seconds, c.elapsed_seconds = p.item_seconds, p.elapsed_seconds
        c.item_peak_rss_bytes = -1 if p.item_peak_rss_bytes is None else p.item_peak_rss_bytes
        lines.append(_convert.progress_line(c))

    spacrbench.benchmark(lambda i: None, range(3), warmup=1, progress=keep)
    capsys.readouterr()
    spacrbench.benchmark(lambda i: None, range(3), warmup=1, progress=True)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and "(warm-up)" in err[0] and err[2].startswith("item 3/3")
    shape = [line.split(" in ")[0] for line in lines]  # times differ between runs
    assert [line.split(" in ")[0] for line in err] == shape


def test_torch_note_sizes_use_the_librarys_bytes() -> None:
    assert _convert.format_bytes(3 * GiB) == "3.00 GiB"
    assert _convert.format_bytes(-1) == "not measured"
    text = spacrbench.format_report(Measurement(items=1, seconds=1.0, peak_rss_bytes=3 * GiB))
    assert "3.00 GiB" in text and "3072.0 MiB" not in text


# ----------------------------------------------------------------- JSON shape

def _hand_made() -> Measurement:
    return Measurement(
        items=2, seconds=1.5, peak_rss_bytes=300 * 2**20, baseline_rss_bytes=100 * 2**20,
        notes=["a note"], cpu_seconds=1.2, warmup_items=1, warmup_seconds=0.4,
        peak_method="hwm_reset", peak_vram_bytes=2**30, vram_source="nvml",
        records=(ItemRecord(0, 0.4, 200 * 2**20, None, True), ItemRecord(1, 0.7, 300 * 2**20),
                 ItemRecord(2, 0.8, None, 2**30)),
        gpus=(GpuInfo(0, "Tesla T4", 16 * GiB, 12 * GiB, 2**30),))


def test_measurement_to_dict_is_the_librarys_object(schema: Dict[str, Any]) -> None:
    for m in (_hand_made(), spacrbench.benchmark(lambda i: None, range(3)),
              Measurement(items=0, seconds=0.0, peak_rss_bytes=7)):
        d = m.to_dict()
        validate(d, schema, "measurement")
        assert json.loads(json.dumps(d, allow_nan=False)) == d
        with _convert.c_measurement(m) as cm:
            c_json = json.loads(format_text(lambda buf, cap: lib.spacrbench_measurement_to_json(
                cm, ffi.NULL, 0, buf, cap), "json"))
        assert d == c_json
    d = _hand_made().to_dict()
    assert d["records"][0] == {"index": 0, "is_warmup": True, "seconds": 0.4,
                               "peak_rss_bytes": 200 * 2**20, "peak_vram_bytes": None,
                               # 1.3: not measured by hand; one run, no spread
                               "cpu_seconds": None, "cgroup_charge_bytes": None,
                               "tree_rss_peak_bytes": None, "runs": 1, "seconds_stddev": None,
                               "seconds_min": None, "seconds_max": None, "run_records": []}
    assert d["gpus"][0]["name"] == "Tesla T4" and d["vram_source"] == "nvml"
    assert d["work_rss_bytes"] == 200 * 2**20 and d["items_per_second"] == 2 / 1.5
    empty = Measurement(items=0, seconds=0.0, peak_rss_bytes=7).to_dict()
    assert empty["items_per_second"] is None and empty["peak_vram_bytes"] is None


def test_recommendation_to_dict_is_the_librarys_object(schema: Dict[str, Any]) -> None:
    m = _hand_made()
    for rec in (spacrbench.recommend_workers(m, cores=4, available_bytes=8 * GiB),
                spacrbench.recommend_workers(None), spacrbench.recommend_workers(m)):
        d = rec.to_dict()
        validate(d, schema, "recommendation")
        c_json = json.loads(format_text(lambda buf, cap: lib.spacrbench_recommendation_to_json(
            _convert.c_recommendation(rec), buf, cap), "json"))
        assert {k: v for k, v in d.items() if k != "measurement"} == c_json
        assert d["measurement"] == (None if rec.measurement is None else rec.measurement.to_dict())
        for f in dataclasses.fields(Recommendation):  # every field is in the object
            if f.name != "measurement":
                assert f.name in d
        assert d["workers"] == rec.workers and d["bound"] == rec.bound


def _command_json(*args: str) -> Dict[str, Any]:
    from spacrbench import _cli
    if not _cli.command_path().exists():
        pytest.skip("this installation has no C command")
    out = subprocess.run([sys.executable, "-m", "spacrbench", "--json", "--size", "256x256",
                          "--fields", "2", *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    doc: Dict[str, Any] = json.loads(out.stdout)
    return doc


def _measurement_from_json(d: Dict[str, Any]) -> Measurement:
    """The Python Measurement of a measurement object (the fields it has)."""
    names = {f.name for f in dataclasses.fields(Measurement)}
    kwargs = {k: v for k, v in d.items() if k in names}
    derived = {"item", "runs", "seconds_stddev", "seconds_min", "seconds_max", "run_records"}
    kwargs["records"] = tuple(
        ItemRecord(**{k: v for k, v in r.items() if k not in derived},
                   run_records=tuple(RunRecord(**run) for run in r.get("run_records", ())))
        for r in d["records"])
    kwargs["gpus"] = tuple(GpuInfo(**g) for g in d["gpus"])
    kwargs["timeline"] = Measurement.from_dict(d).timeline
    return Measurement(**kwargs)


def test_command_json_has_the_same_shape_as_python(schema: Dict[str, Any]) -> None:
    doc = _command_json()
    jsonschema.Draft202012Validator(schema).validate(doc)
    cm = doc["measurement"]
    m = _measurement_from_json(cm)
    assert set(m.to_dict()) == set(cm)
    if not cm["stopped"]:  # the fields Python has no place for agree then too
        assert m.to_dict() == {k: v for k, v in cm.items()} | {
            "records": [{k: v for k, v in r.items() if k != "item"} for r in cm["records"]]}
    names = {f.name for f in dataclasses.fields(Recommendation)}
    cr = doc["recommendation"]
    rec = Recommendation(**{k: v for k, v in cr.items() if k in names})
    assert {k: v for k, v in rec.to_dict().items() if k != "measurement"} == cr
    assert set(names) - {"measurement"} == set(cr)


def test_the_default_names_spelled_in_types_are_the_librarys() -> None:
    from spacrbench import _types

    assert _types.SUPPLIED == _convert.PEAK_METHODS.name(lib.SPACRBENCH_PEAK_SUPPLIED)
    assert _types.NO_BOUND == _convert.BOUNDS.name(lib.SPACRBENCH_BOUND_NONE)
    assert _types.UNKNOWN_SOURCE == _convert.SOURCES.name(lib.SPACRBENCH_SOURCE_UNKNOWN)
    assert _types.FORK == _convert.START_METHODS.name(lib.SPACRBENCH_START_FORK)
    assert _types.CALLER_RESERVE == _convert.RESERVE_RULES.name(lib.SPACRBENCH_RESERVE_CALLER)
