"""Exports people paste: format_report(m, rec, format="markdown" | "csv")
parsed back (CSV rows = items; Markdown tables well formed), the default
text unchanged, and the command's --export-markdown/--export-csv files."""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import re
import subprocess
from pathlib import Path

import pytest

import spacrbench
from spacrbench import _cli


def _touch(mib: int) -> None:
    bytearray(mib * 2**20)


def _tables(md: str) -> "list[list[list[str]]]":
    """Each Markdown table as rows of cells; asserts every row has the
    header's cell count and the second row is the delimiter row."""
    tables: "list[list[list[str]]]" = []
    current: "list[list[str]]" = []
    for line in md.split("\n") + [""]:
        if line.startswith("|"):
            assert line.endswith("|"), line
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if current:
                assert len(cells) == len(current[0]), line
            current.append(cells)
        elif current:
            assert all(re.fullmatch(r":?-{3,}:?", c) for c in current[1]), current[1]
            tables.append(current)
            current = []
    return tables


def test_text_stays_the_default() -> None:
    m = spacrbench.benchmark(_touch, [4, 8], warmup=1)
    assert spacrbench.format_report(m) == spacrbench.format_report(m, format="text")
    assert spacrbench.format_report(m).startswith("spaCR benchmark\n")


def test_csv_has_one_row_per_item() -> None:
    m = spacrbench.benchmark(_touch, [4, 8, 16], warmup=1)
    rows = list(csv.DictReader(io.StringIO(spacrbench.format_report(m, format="csv"),
                                           newline="")))
    assert len(rows) == len(m.records) == 3
    for row, record in zip(rows, m.records):
        assert int(row["index"]) == record.index
        assert row["is_warmup"] == ("1" if record.is_warmup else "0")
        assert float(row["seconds"]) == pytest.approx(record.seconds, abs=1e-6)
        assert int(row["peak_rss_bytes"]) == record.peak_rss_bytes
        assert row["peak_vram_bytes"] == ("" if record.peak_vram_bytes is None
                                          else str(record.peak_vram_bytes))
        # benchmark() keeps the runner's C measurement, which has each
        # item's CPU seconds (two getrusage calls around the item).
        assert float(row["cpu_seconds"]) >= 0.0
    # A Measurement rebuilt in C (its notes changed) keeps each record's CPU
    # seconds (ItemRecord.cpu_seconds since 1.3) ...
    rebuilt = dataclasses.replace(m, notes=list(m.notes) + ["rebuilt"])
    again = list(csv.DictReader(io.StringIO(spacrbench.format_report(rebuilt, format="csv"),
                                            newline="")))
    assert [row["cpu_seconds"] for row in again] == [row["cpu_seconds"] for row in rows]
    # ... and ItemRecords made by hand without one give an empty column,
    # never a made-up 0.
    hand = dataclasses.replace(m, records=tuple(dataclasses.replace(r, cpu_seconds=None)
                                                for r in m.records))
    rows = list(csv.DictReader(io.StringIO(spacrbench.format_report(hand, format="csv"),
                                           newline="")))
    assert len(rows) == 3 and all(row["cpu_seconds"] == "" for row in rows)
    assert all(row["cgroup_charge_bytes"] == row["tree_rss_peak_bytes"] == "" for row in rows)
    assert all(row["runs"] == "1" and row["seconds_stddev"] == "" for row in rows)


def test_markdown_holds_the_items_and_the_recommendation() -> None:
    m = spacrbench.benchmark(_touch, [4, 8, 16], warmup=1)
    rec = spacrbench.recommend_workers(m, cores=4, available_bytes=8 * 2**30)
    md = spacrbench.format_report(m, rec, format="markdown")
    assert md.startswith("## spaCR benchmark\n")
    summary, items, evidence = _tables(md)
    assert len(items) == 2 + len(m.records)
    assert items[0][:5] == ["#", "warm-up", "seconds", "peak RSS", "peak VRAM"]
    assert f"### Recommendation: {rec.workers} worker(s)" in md
    assert ["usable cores", "4 (given by the caller)"] in evidence
    assert any(row[0] == "memory available" for row in evidence)
    assert "\n### Notes\n" in md
    # Without a recommendation: no recommendation section.
    assert len(_tables(spacrbench.format_report(m, format="markdown"))) == 2


def test_hand_made_and_bad_input() -> None:
    m = spacrbench.Measurement(items=2, seconds=1.0, peak_rss_bytes=2**20,
                               notes=["a | pipe"],
                               records=(spacrbench.ItemRecord(0, 0.5, 2**20),
                                        spacrbench.ItemRecord(1, 0.5, None)))
    md = spacrbench.format_report(m, format="Markdown")
    assert "- a \\| pipe" in md
    assert len(_tables(md)[1]) == 4
    rows = list(csv.reader(io.StringIO(spacrbench.format_report(m, format="csv"), newline="")))
    assert rows[2][4] == ""  # not measured
    with pytest.raises(ValueError, match="format must be one of 'text', 'markdown', 'csv'"):
        spacrbench.format_report(m, format="html")
    with pytest.raises(TypeError, match="format must be a str"):
        spacrbench.format_report(m, format=1)  # type: ignore[arg-type]


def test_the_command_writes_both_files(tmp_path: Path) -> None:
    exe = _cli.command_path()
    if not os.access(exe, os.X_OK):
        pytest.skip(f"this installation has no C command ({exe})")
    md, table = tmp_path / "report.md", tmp_path / "items.csv"
    run = subprocess.run([str(exe), "run", "--quiet", "--export-markdown", str(md),
                          "--export-csv", str(table), "a|1", "b,2", "--", "true", "{}"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader(io.StringIO(table.read_text(), newline="")))
    assert [r["item"] for r in rows] == ["a|1", "b,2"]
    assert all(r["cpu_seconds"] != "" for r in rows)  # each command's CPU is known
    _, items, _ = _tables(md.read_text())
    assert [row[1] for row in items[2:]] == ["a\\|1", "b,2"]
    bad = subprocess.run([str(exe), "--export-csv", "", "--fields", "1"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--export-csv" in bad.stderr


def test_csv_and_markdown_show_the_item_labels_given() -> None:
    """The item column was always empty from Python; the command fills it."""
    m = spacrbench.benchmark(_touch, [4, 8, 16], warmup=1)
    names = ["a.tif", Path("b,c.tif"), "d|e.tif"]
    rows = list(csv.DictReader(io.StringIO(
        spacrbench.format_report(m, format="csv", item_labels=names), newline="")))
    assert [row["item"] for row in rows] == ["a.tif", "b,c.tif", "d|e.tif"]
    md = spacrbench.format_report(m, format="markdown", item_labels=names)
    items = _tables(md)[1]
    assert items[0][:2] == ["#", "item"] and [r[1] for r in items[2:]] == [
        "a.tif", "b,c.tif", "d\\|e.tif"]
    with pytest.raises(ValueError, match="^item_labels has 2 label"):
        spacrbench.format_report(m, format="csv", item_labels=names[:2])
    with pytest.raises(TypeError, match=r"^item_labels\[1\] must be a str"):
        spacrbench.format_report(m, format="csv", item_labels=["a", 2, "c"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="^item_labels must be a sequence"):
        spacrbench.format_report(m, format="csv", item_labels="abc")
    with pytest.raises(ValueError, match="^item_labels: the text report has no item column"):
        spacrbench.format_report(m, item_labels=names)


def test_no_cell_starts_a_formula_behind_a_separator() -> None:
    """Python's exports are C's: a label a ';'-splitting spreadsheet would
    cut into a formula cell is quoted and defused, a number stays one."""
    m = spacrbench.benchmark(_touch, [4, 8], warmup=0)
    names = ["x;=cmd|' /C calc'!A0", "1;-5"]
    text = spacrbench.format_report(m, format="csv", item_labels=names)
    assert "\"x;'=cmd|' /C calc'!A0\"," in text and "\"1;-5\"," in text
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert [row["item"] for row in rows] == ["x;'=cmd|' /C calc'!A0", "1;-5"]
    md = spacrbench.format_report(m, format="markdown", item_labels=names)
    assert [r[1] for r in _tables(md)[1][2:]] == ["x;'=cmd\\|' /C calc'!A0", "1;-5"]


def test_the_labels_the_records_carry_are_exported() -> None:
    """A measurement read from the command's JSON (each record's "item")
    keeps its labels: the CSV, the Markdown and to_dict() show them."""
    records = (spacrbench.ItemRecord(0, 0.5, 2**20, is_warmup=True, item="warm.tif"),
               spacrbench.ItemRecord(1, 0.5, 2**20, item="one.tif"),
               spacrbench.ItemRecord(2, 0.5, 2**20))
    m = spacrbench.Measurement(items=2, seconds=1.0, peak_rss_bytes=2**20, records=records)
    rows = list(csv.DictReader(io.StringIO(spacrbench.format_report(m, format="csv"),
                                           newline="")))
    assert [row["item"] for row in rows] == ["warm.tif", "one.tif", ""]
    assert "| 2 | one.tif |" in spacrbench.format_report(m, format="markdown")
    assert [r.get("item") for r in m.to_dict()["records"]] == ["warm.tif", "one.tif", ""]
    plain = dataclasses.replace(m, records=tuple(dataclasses.replace(r, item=None)
                                                 for r in records))
    assert all("item" not in r for r in plain.to_dict()["records"])
    with pytest.raises(TypeError, match=r"records\[0\]\.item must be a str"):
        spacrbench.format_report(dataclasses.replace(m, records=(
            spacrbench.ItemRecord(0, 0.5, item=5),)), format="csv")  # type: ignore[arg-type]


def test_markdown_from_python_names_the_method_in_the_reports_words() -> None:
    """'| peak RSS | 150.6 MiB (hwm_reset) |' showed the JSON name."""
    m = spacrbench.Measurement(items=1, seconds=1.0, peak_rss_bytes=150 * 2**20,
                               peak_method="hwm_reset")
    md = spacrbench.format_report(m, format="markdown")
    row = [line for line in md.splitlines() if line.startswith("| peak RSS |")][0]
    assert "(hwm_reset)" not in row and "exact, " in row, row
    assert row.split("(")[1].rstrip(") |") in spacrbench.format_report(m)


def test_an_object_with_spacrs_attributes_has_no_labels_and_still_exports() -> None:
    class SpacrMeasurement:  # spaCR's attributes, no records
        __slots__ = ("items", "seconds", "peak_rss_bytes")

        def __init__(self) -> None:
            self.items, self.seconds, self.peak_rss_bytes = 2, 1.0, 2**30

    m = SpacrMeasurement()
    assert "| peak RSS |" in spacrbench.format_report(m, format="markdown")
    rec = spacrbench.recommend_workers(m, cores=2, available_bytes=2**34)
    assert rec.to_dict()["measurement"]["peak_rss_bytes"] == 2**30
