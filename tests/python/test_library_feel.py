"""What a Python user expects of a library (#23, #20 item 5): no import
circle and a leaf _types, short reprs, real types in help(), one exception
base, honest per-item progress through tqdm, whole-number item ticks, a
measurement converted to C once per object, and the whole reason from C."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import pydoc
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Set

import pytest

import spacrbench
from spacrbench import Measurement, Recommendation

GiB = 2**30


def _package_imports() -> Dict[str, Set[str]]:
    """module -> the package modules it imports (at any depth of its code,
    function bodies included; `if TYPE_CHECKING:` blocks excluded)."""
    root = Path(spacrbench.__file__).parent
    graph: Dict[str, Set[str]] = {}
    for path in sorted(root.glob("*.py")):
        name = path.stem
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and ast.unparse(node.test).endswith("TYPE_CHECKING")
                   for n in ast.walk(node)}
        found: Set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    found.add(node.module.split(".")[0])
                else:
                    found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("spacrbench."):
                found.add(node.module.split(".")[1])  # type: ignore[union-attr]
            elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module"):
                arg = ast.unparse(node.args[0]) if node.args else ""
                if "spacrbench" in arg or "__name__" in arg:
                    found.add("<dynamic>")
        graph[name] = found - {name, "_spacrbench"}
    return graph


def test_the_package_imports_form_no_circle() -> None:
    graph = _package_imports()
    assert graph["_types"] == set(), "_types must import nothing of the package"
    assert graph["_errors"] == set()
    state: Dict[str, int] = {}
    path: List[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for dep in sorted(graph.get(module, ())):
            if state.get(dep) == 1:
                cycle = path[path.index(dep):] + [dep]
                pytest.fail("import circle: " + " -> ".join(cycle))
            if dep in graph and not state.get(dep):
                visit(dep)
        path.pop()
        state[module] = 2

    for module in graph:
        if not state.get(module):
            visit(module)


BLOCKED_PROBE = r"""
import importlib.abc, sys
import spacrbench  # the package and its library
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith("spacrbench.") and name not in ("spacrbench._types",):
            raise ImportError("blocked: " + name)
        return None
sys.meta_path.insert(0, Block())
from spacrbench import _types
r = _types.ItemRecord(0, 0.5, 2**20)
print(type(r).__name__, sorted(m for m in sys.modules if m.startswith("spacrbench.")))
"""


def test_types_imports_with_every_other_module_blocked() -> None:
    out = subprocess.run([sys.executable, "-c", BLOCKED_PROBE], capture_output=True,
                         text=True, check=True)
    assert out.stdout.startswith("ItemRecord"), out.stderr


def test_repr_is_short_and_to_dict_has_everything() -> None:
    m = spacrbench.benchmark(lambda i: bytearray(2**20), range(3), warmup=1)
    rec = spacrbench.recommend_workers(m, cores=4, available_bytes=16 * GiB)
    print(f"repr lengths: Measurement {len(repr(m))}, Recommendation {len(repr(rec))}")
    assert len(repr(m)) < 250 and len(repr(rec)) < 250
    assert repr(m).startswith("Measurement(items=2, seconds=")
    assert "MiB" in repr(m) and "record(s)" in repr(m)
    # Sizes in the library's words (spacrbench_format_bytes), not a second formatter.
    assert "available_bytes=17179869184 (16.00 GiB)" in repr(rec)
    assert repr(rec).startswith(f"Recommendation(workers={rec.workers}, bound={rec.bound!r}")
    assert "Measurement(" not in repr(rec)
    assert len(json.dumps(rec.to_dict())) > 1000  # the full data stays there
    long = Recommendation(3, "x" * 500)
    assert len(repr(long)) < 200 and repr(long).endswith("...')")


def test_help_shows_real_types_not_alias_names() -> None:
    text = pydoc.render_doc(spacrbench.benchmark) + pydoc.render_doc(spacrbench.recommend_workers)
    for alias in ("WarmupArg", "IntArg", "ProgressArg"):
        assert alias not in text
    assert "SupportsInt" in text and "Callable[[Progress], Any]" in text


PUBLIC_FUNCTIONS = ("available_memory_bytes", "benchmark", "format_report", "recommend_workers",
                    "scale", "summarize")


def _names_in(annotation: Any) -> Set[str]:
    """The top-level names an annotation (a string under `from __future__
    import annotations`) refers to: `os.PathLike[str]` refers to os."""
    text = annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)
    names = set()
    for node in ast.walk(ast.parse(text, mode="eval")):
        if isinstance(node, ast.Name):
            names.add(node.id)
    return names


@pytest.mark.parametrize("name", PUBLIC_FUNCTIONS)
def test_every_annotation_in_help_names_something_a_user_can_import(name: str) -> None:
    """help(recommend_workers) showed 'Optional[MeasurementLike]', a name
    spacrbench did not export, and scaling: 'Optional[Any]'."""
    import builtins
    import typing

    reachable = set(dir(typing)) | set(dir(builtins)) | set(spacrbench.__all__) | {"os"}
    signature = inspect.signature(getattr(spacrbench, name))
    annotations = [p.annotation for p in signature.parameters.values()
                   if p.annotation is not inspect.Parameter.empty]
    annotations.append(signature.return_annotation)
    for annotation in annotations:
        assert _names_in(annotation) <= reachable, (name, annotation)


def test_recommend_and_report_show_the_types_they_take() -> None:
    text = pydoc.render_doc(spacrbench.recommend_workers) + pydoc.render_doc(spacrbench.format_report)
    assert "scaling: 'Optional[ScaleResult]'" in text
    assert "measurement: 'Union[Measurement, MeasurementLike, None]'" in text
    assert "recommendation: 'Union[Recommendation, RecommendationLike, None]'" in text
    assert "Optional[Any]" not in text
    from spacrbench import MeasurementLike, RecommendationLike, ScaleResult  # importable

    assert MeasurementLike.__module__ == RecommendationLike.__module__ == "spacrbench._types"
    assert ScaleResult.__name__ == "ScaleResult"


class Recorder:
    """A tqdm-like iterable: it has a length and records when each item is
    pulled, and the work records when it is processed."""

    def __init__(self, items: List[int]) -> None:
        self.items = items
        self.events: List[str] = []

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[int]:
        for item in self.items:
            self.events.append(f"pull {item}")
            yield item


def test_items_are_pulled_as_they_are_processed() -> None:
    items = Recorder([0, 1, 2, 3])
    m = spacrbench.benchmark(lambda i: items.events.append(f"work {i}"), items, warmup=1)
    assert m.items == 3
    assert items.events == ["pull 0", "work 0", "pull 1", "work 1", "pull 2", "work 2",
                            "pull 3", "work 3"]


def test_a_length_that_lies_is_an_error_naming_it() -> None:
    class Short(Recorder):
        def __len__(self) -> int:
            return 5

    with pytest.raises(ValueError, match="items ended early: len\\(items\\) said 5"):
        spacrbench.benchmark(lambda i: None, Short([1, 2]))


def test_real_tqdm_moves_with_the_work() -> None:
    tqdm = pytest.importorskip("tqdm").tqdm
    seen: List[int] = []
    bar = tqdm(list(range(4)), disable=False, mininterval=0, miniters=1,
               file=open("/dev/null", "w"))
    spacrbench.benchmark(lambda i: seen.append(bar.n), bar, warmup=0)
    assert seen == [0, 1, 2, 3]  # item k runs when k items are done
    # The bar finishes: it counts the last item once the run returns (it
    # stayed at 3/4 while nothing asked the iterator for its end).
    assert bar.n == 4
    bar.close()


def test_a_generator_without_length_still_works() -> None:
    m = spacrbench.benchmark(lambda i: None, (i for i in range(3)), warmup=0)
    assert m.items == 3


def test_plot_item_axis_has_whole_number_ticks(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    m = spacrbench.benchmark(lambda i: bytearray(2**20), range(3), warmup=1)
    figure = m.plot(str(tmp_path / "m.png"))
    figure.canvas.draw()
    for axes in figure.axes:
        ticks = [t for t in axes.get_xticks() if axes.get_xlim()[0] <= t <= axes.get_xlim()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks
    assert (tmp_path / "m.png").stat().st_size > 0


def test_a_measurement_is_converted_to_c_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from spacrbench import _convert

    built: List[Any] = []
    original = _convert._build
    monkeypatch.setattr(_convert, "_build", lambda m: built.append(m) or original(m))
    m = Measurement(items=4, seconds=2.0, peak_rss_bytes=5 * GiB, baseline_rss_bytes=GiB)
    rec = spacrbench.recommend_workers(m, cores=8, available_bytes=32 * GiB)
    spacrbench.format_report(m, rec)
    m.to_dict()
    rec.to_slurm()
    assert len(built) == 1
    # The notes list is mutable: a change makes a new C measurement (the
    # kept one is never written: other threads may be reading it).
    m.notes.append("changed after the first use")
    assert "changed after the first use" in spacrbench.format_report(m)
    assert len(built) == 2
    m.notes[0] = "replaced"
    assert "replaced" in spacrbench.format_report(m)
    assert len(built) == 3
    run = spacrbench.benchmark(lambda i: None, range(2), warmup=0)
    spacrbench.format_report(run, spacrbench.recommend_workers(run, cores=2))
    assert run.records and len(spacrbench.format_report(run, format="csv").split("\n")) > 2
    assert len(built) == 3  # benchmark() keeps the runner's own, records read or not
    plate = spacrbench.benchmark_plate(lambda i: None, list(range(8)), sample=3)
    spacrbench.format_report(plate)
    plate.recommendation.to_slurm()
    assert plate.measurement.to_dict()["plate"]["picks"]
    assert len(built) == 3  # and benchmark_plate()'s, its plate added in C
    run.notes.append("a note of mine")
    assert "a note of mine" in spacrbench.format_report(run)
    assert len(built) == 4
    copy = dataclasses.replace(run)
    spacrbench.format_report(copy)
    assert len(built) == 5
    import pickle
    assert pickle.loads(pickle.dumps(run)) == run  # the C object is not pickled


def test_a_measurement_is_safe_to_share_between_threads() -> None:
    """Threads read one Measurement (cffi lets go of the GIL in C) while
    one appends notes: no call fails, and every result holds the notes as
    they were at one moment (a prefix of the final list, none twice)."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns often: races show
    try:
        for _ in range(3):  # 0b93bfd's race failed this test in 10 runs of 10
            _share_between_threads()
    finally:
        sys.setswitchinterval(old)


def _share_between_threads() -> None:
    import threading

    m = Measurement(items=4, seconds=2.0, peak_rss_bytes=5 * GiB, baseline_rss_bytes=GiB,
                    notes=[f"note {i}" for i in range(800)])  # long: slow to compare
    spacrbench.recommend_workers(m, cores=8, available_bytes=32 * GiB)  # keeps a C object
    errors: List[str] = []
    seen: List[List[str]] = []
    start = threading.Barrier(5)

    def read() -> None:
        start.wait()
        try:
            for _ in range(40):
                spacrbench.recommend_workers(m, cores=8, available_bytes=32 * GiB)
                spacrbench.format_report(m)
                seen.append(m.to_dict()["notes"])
        except Exception as e:  # the failure is reported below
            errors.append(repr(e))

    def write() -> None:
        start.wait()
        try:
            for i in range(150):
                m.notes.append(f"appended {i}")
                seen.append(m.to_dict()["notes"])
        except Exception as e:
            errors.append(repr(e))

    threads = [threading.Thread(target=read) for _ in range(4)]
    threads.append(threading.Thread(target=write))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    final = list(m.notes)
    for notes in seen:
        assert notes == final[:len(notes)]
    assert m.to_dict()["notes"] == final


def test_a_list_given_for_a_tuple_field_is_held_as_a_tuple() -> None:
    """A list changed after the Measurement was used changes neither its
    fields nor what the C measurement kept with it says (to_dict)."""
    from spacrbench import Timeline, TimelinePoint

    made = spacrbench.benchmark_plate(lambda i: None, list(range(8)), sample=3).measurement
    assert made.plate is not None
    sample, notes = list(made.plate.sample), list(made.plate.prediction.notes) + ["mine"]
    points = [TimelinePoint(0.0, GiB), TimelinePoint(1.0, 2 * GiB)]
    m = dataclasses.replace(made, timeline=Timeline(points, [], 100000, 2), plate=dataclasses.replace(
        made.plate, sample=sample, prediction=dataclasses.replace(made.plate.prediction, notes=notes)))
    before = m.to_dict()
    sample.clear()
    notes.append("later")
    points.clear()
    assert m.to_dict() == before == dataclasses.replace(m).to_dict()
    assert m.timeline is not None and m.plate is not None
    assert type(m.timeline.points) is type(m.timeline.items) is tuple
    assert type(m.plate.sample) is type(m.plate.prediction.notes) is tuple


def test_the_whole_reason_comes_from_c() -> None:
    m = Measurement(items=4, seconds=2.0, peak_rss_bytes=5 * GiB, baseline_rss_bytes=GiB)
    reason = "because " + "é" * 400 + " the end"  # 808+ bytes: more than the C field
    text = spacrbench.format_report(m, Recommendation(3, reason))
    # Wrapped at 79 columns like every line: whole once unwrapped.
    assert f"\n    because           {reason}" in re.sub(r"\n {22}(?=\S)", " ", text)


def test_spacrs_words_lead() -> None:
    m = spacrbench.benchmark(lambda i: None, range(3), warmup=1)
    assert "1 warm-up item(s) excluded from the timing" in m.notes
    assert m.notes.index("1 warm-up item(s) excluded from the timing") == 0
    with pytest.raises(ValueError, match="^benchmark needs at least one item to measure"):
        spacrbench.benchmark(lambda i: None, [])
    for cls in (Measurement, Recommendation):
        for f in dataclasses.fields(cls):
            assert f":param {f.name}:" in (cls.__doc__ or ""), (cls.__name__, f.name)
    if m.peak_vram_bytes is None and (m.vram_reason or "").startswith("no CUDA device: "):
        # spaCR's notes first, in its order: the warm-up, then no CUDA device.
        assert m.notes[1].startswith("no CUDA device, so VRAM was not measured (")
        assert "not measured (no CUDA device)\n" in spacrbench.format_report(m)
        # The verbose one says why once: in spaCR's note, not again on the line.
        verbose = spacrbench.format_report(m, verbose=True)
        assert "not measured (no CUDA device)\n" in verbose
        assert re.sub(r"\n {22}", " ", verbose).count(m.vram_reason[len("no CUDA device: "):]) == 1


def test_the_report_is_short_and_verbose_adds_the_method() -> None:
    """Issue 39: the notes on how a figure was obtained (the kernel mark,
    its side effect) are format_report(verbose=True)'s; m.notes keeps them,
    and a caller's own note is always shown."""
    m = spacrbench.benchmark(lambda i: bytearray(4 << 20), range(3))
    rec = spacrbench.recommend_workers(m, cores=2, available_bytes="16G")
    short = spacrbench.format_report(m, rec)
    verbose = spacrbench.format_report(m, rec, verbose=True)
    method = [n for n in m.notes if n.startswith(("peak RSS is exact:", "side effect:"))]
    assert method, m.notes  # Linux with clear_refs: the exact mark and its side effect
    for note in method:
        assert note[:30] not in short and note[:30] in verbose, (note, short)
    assert "\n  what if             " in short and "16 GiB -> " in short
    assert all(len(line) <= 79 for line in (short + "\n" + verbose).split("\n"))
    with pytest.raises(TypeError, match="verbose"):
        spacrbench.format_report(m, rec, verbose=1)  # type: ignore[arg-type]


def test_help_opens_with_the_basics() -> None:
    """help(recommend_workers) opened with a 645-character signature and
    spaCR's edge cases before what the function does."""
    signature = str(inspect.signature(spacrbench.recommend_workers))
    assert len(signature) < 480, len(signature)  # 628 before: Union[None, int, float, ...]
    doc = spacrbench.recommend_workers.__doc__ or ""
    first = doc.split("\n\n")[0]
    assert "rec.workers" in first and "int()" not in first, first
    assert doc.index("As in spaCR") > doc.index("scaling:")
