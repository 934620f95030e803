"""The installed package's type hints, as a user's mypy --strict sees them:
typing_usage.py calls the API every way docs/python.md shows (floats where
spaCR read int(), spaCR-like duck-typed objects, run-time text/cluster);
typing_handoff.py indexes the hand-off results without casts. mypy is in the
main environment of tests/python/run.sh; elsewhere this test skips."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed in this environment (tests/python/run.sh's "
                           "main environment has it): the typed usage scripts were not checked")
@pytest.mark.parametrize("script", ["typing_usage.py", "typing_handoff.py"])
def test_documented_usage_type_checks_strictly(script: str, tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                        "--cache-dir", str(tmp_path / "mypy-cache"), str(HERE / script)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, f"mypy --strict {script}:\n{r.stdout}{r.stderr}"


def test_typed_constructors_match_the_dataclass_fields() -> None:
    """_types.py and _results.py declare each result's constructor for type checkers only
    (under TYPE_CHECKING: the floats spaCR accepted, attributes still int).
    The run-time constructor is the dataclass's own, so the declaration
    must name the same fields, in the same order, with the same defaults."""
    import ast
    import dataclasses
    import inspect

    import spacrbench
    from spacrbench import _results, _types

    declared = {}
    for module in (_types, _results):
        tree = ast.parse(inspect.getsource(module))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            for node in cls.body:
                if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                    (init,) = [f for f in node.body if isinstance(f, ast.FunctionDef)]
                    declared[cls.name] = init.args
    assert set(declared) == {"ItemRecord", "GpuInfo", "Measurement", "Recommendation"}
    for name, args in declared.items():
        fields = dataclasses.fields(getattr(spacrbench, name))
        params = [a.arg for a in args.args[1:]]
        assert params == [f.name for f in fields], name
        defaults = dict(zip(params[len(params) - len(args.defaults):], args.defaults))
        for f in fields:
            has_default = (f.default is not dataclasses.MISSING
                           or f.default_factory is not dataclasses.MISSING)
            assert (f.name in defaults) == has_default, (name, f.name)
            if f.name in defaults and ast.unparse(defaults[f.name]) != "...":
                assert ast.literal_eval(defaults[f.name]) == f.default, (name, f.name)
