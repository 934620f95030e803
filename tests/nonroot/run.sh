#!/usr/bin/env bash
# The measurement suites as an unprivileged user (issue 34): our users are
# not root. Creates the user spacrbench-ci (removed again if it was made
# here) and runs, as that user, the command's and the library's measuring
# Check suites (check_cli's run and scale cases, check_cli_supervisor,
# check_cli_tree, check_scale, check_delegate, check_sampling) and Python's scaling and
# benchmark tests, in two places:
#   delegated  in a v1 memory cgroup chowned to the user, as an
#              administrator delegates one: the groups are made there,
#              exact, limits and OOM words as root gets them;
#   none       in this stage's own cgroup, which is root's: the fallback
#              samplers (the tree's VmHWM, the group's PSS), within their
#              0.5 % budget.
# Then tests/perf/perf_nonroot prints the samplers' cost and peaks as root
# and as the user, with and without a delegated cgroup (figures only).
# The cgroup v2 case (a systemd-style delegated subtree) is the qemu
# stage's (tests/qemu/inside.sh, part f). See docs/discovery.md.
#
#   tests/nonroot/run.sh [BUILD_DIR]   # default build-ci/release (stage 1's)
#
# Python: the wheel the Python stage kept (build-ci/python/*.whl), else
# one built here with /usr/bin/python3 (about 45 s more), installed into a
# venv of /usr/bin/python3 (root's pyenv is not readable by the user).
# Exit: 0 every suite passed; 1 a suite failed; 200 with "SKIP: non-root
# stage: <reason>" when it cannot run here (not root, no setpriv).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:-$repo/build-ci/release}" && pwd)
user=spacrbench-ci
py=/usr/bin/python3

skip() {
    echo "SKIP: non-root stage: $*"
    exit 200
}
[ "$(id -u)" -eq 0 ] || skip "needs root (it creates the user $user)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"
[ -x "$py" ] || skip "no $py"
[ -x "$build/spacrbench" ] || { echo "FAIL: $build/spacrbench was not built"; exit 1; }

created=0
tmp=$(mktemp -d /tmp/spacrbench-nonroot.XXXXXX)
deleg=
cleanup() {
    if [ -n "$deleg" ] && [ -d "$deleg" ]; then
        find "$deleg" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null || true
        rmdir "$deleg" 2>/dev/null || echo "warning: $deleg could not be removed"
    fi
    rm -rf "$tmp"
    if [ "$created" -eq 1 ]; then userdel "$user" 2>/dev/null || true; fi
}
trap cleanup EXIT
if ! id -u "$user" >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
    created=1
fi
uid=$(id -u "$user")
gid=$(id -g "$user")
mkdir -p "$tmp/home" "$tmp/tmp"
chown -R "$uid:$gid" "$tmp/home" "$tmp/tmp"
chmod 755 "$tmp"

# as CGROUP_DIR|- COMMAND...: COMMAND as the user, moved into CGROUP_DIR
# first by root (the user could not: it is root's cgroup it starts in).
as() {
    local dir=$1
    shift
    (cd "$tmp" && sh -c '[ "$1" = - ] || echo $$ >"$1/cgroup.procs" || exit 125
        shift; exec setpriv --reuid="$0" --regid="$0" --clear-groups env -i \
            PATH=/usr/local/bin:/usr/bin:/bin HOME="$HOME_DIR" TMPDIR="$TMP_DIR" LANG=C.UTF-8 \
            SPACRBENCH_TEST_PYTHON=/usr/bin/python3 ${CK_RUN_CASE:+CK_RUN_CASE=$CK_RUN_CASE} "$@"' \
            "$uid" "$dir" "$@")
}
export HOME_DIR=$tmp/home TMP_DIR=$tmp/tmp
as - test -r "$repo/tests/python/test_scale.py" -a -x "$build/spacrbench" ||
    { echo "FAIL: $user cannot read $repo or $build (their directories must be world-readable)"; exit 1; }

# The v1 memory cgroup an administrator would delegate: a child of this
# stage's own, the directory and the files a delegate writes chowned.
memory_mount=$(awk '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ { print $5; exit }' /proc/self/mountinfo)
own=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
if [ -n "$memory_mount" ] && [ -n "$own" ] && [ -d "$memory_mount$own" ]; then
    deleg=$memory_mount${own%/}/spacrbench-ci-$$
    mkdir "$deleg"
    chown "$uid:$gid" "$deleg" "$deleg/cgroup.procs" "$deleg/tasks"
else
    echo "SKIP: non-root stage, delegated: no v1 memory hierarchy here (cgroup v2 is the qemu stage's)"
fi

# The Python the user can run, with the wheel.
wheel=$(ls -t "$repo"/build-ci/python/spacrbench-*.whl 2>/dev/null | head -1 || true)
if [ -z "$wheel" ]; then
    echo "== no wheel kept by the Python stage: building one with $py"
    "$py" -m venv "$tmp/wheelvenv"
    "$tmp/wheelvenv/bin/pip" wheel --quiet --disable-pip-version-check --no-deps -w "$tmp/dist" "$repo"
    wheel=$(ls "$tmp"/dist/spacrbench-*.whl)
fi
"$py" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check pytest "$wheel"
chmod -R a+rX "$tmp/venv"

failed=0
suite() { # suite MODE DIR BINARY [CASE]: the whole suite, or its Check case CASE
    local start=$SECONDS rc=0 log=$tmp/$1-$(basename "$3")${4:+-$4}.log
    CK_RUN_CASE=${4:-} as "$2" "$3" >"$log" 2>&1 || rc=$?
    printf '  %-10s %-22s %s (%ss)\n' "$1" "$(basename "$3")${4:+ ($4)}" \
        "$(grep -aE '^[0-9]+%: Checks' "$log" | tail -1 || echo "exit $rc")" $((SECONDS - start))
    grep -aE '^SKIP' "$log" | sort -u | sed 's/^/               /' | head -5 || true
    if [ "$rc" -ne 0 ]; then
        failed=1
        grep -aE ':[FE]:' "$log" | head -10 | sed 's/^/     /' || true
    fi
}
pytest_as() { # pytest_as MODE DIR FILES...
    local mode=$1 dir=$2 start=$SECONDS rc=0 log=$tmp/$1-pytest.log
    shift 2
    as "$dir" "$tmp/venv/bin/python" -m pytest -q -rs -p no:cacheprovider "$@" >"$log" 2>&1 || rc=$?
    printf '  %-10s %-22s %s (%ss)\n' "$mode" "pytest $(printf "%s " "${@##*/}")" "$(tail -1 "$log")" $((SECONDS - start))
    grep -a '^SKIPPED' "$log" | sed 's/^/               /' || true
    [ "$rc" -eq 0 ] || { failed=1; grep -aE '^(FAILED|E  )' "$log" | head -10 | sed 's/^/     /' || true; }
}
found() { # found MODE DIR: what `spacrbench run` found, in its own words
    as "$2" "$build/spacrbench" run --json --quiet 1 -- true 2>/dev/null |
        "$py" -c 'import json, sys; n = json.load(sys.stdin)["measurement"]["notes"]
why = [x.split("because ", 1)[1].split("; each command")[0] for x in n if "of its own because " in x]
print(next((x for x in n if x.startswith(("cgroup v", "no usable"))), None) or "no cgroup of its own: " + why[0])' |
        sed "s/^/  $1: /"
}

c=$build/tests/c
cd "$repo"
echo "== as $user (uid $uid)"
if [ -n "$deleg" ]; then
    found delegated "$deleg"
    # check_cli: its measuring cases (run, scale), not the report's.
    suite delegated "$deleg" "$c/cli/check_cli" run
    suite delegated "$deleg" "$c/cli/check_cli" scale
    for s in cli/check_cli_supervisor cli/check_cli_tree check_scale check_delegate; do
        suite delegated "$deleg" "$c/$s"
    done
    pytest_as delegated "$deleg" "$repo/tests/python/test_scale.py"
    left=$(find "$deleg" -mindepth 1 -type d | wc -l)
    if [ "$left" -ne 0 ]; then
        echo "FAIL: cgroups left in $deleg: $(find "$deleg" -mindepth 1 -type d | tr '\n' ' ')"
        failed=1
    fi
fi
found none -
suite none - "$c/cli/check_cli" run
for s in cli/check_cli_tree check_scale check_sampling; do
    suite none - "$c/$s"
done
pytest_as none - "$repo/tests/python/test_scale.py" "$repo/tests/python/test_benchmark.py"

# The samplers' cost and peaks side by side (tests/perf/perf_nonroot.c):
# root, the user without a cgroup, the user in a v1 memory cgroup it made
# and chowned to the user (as an administrator delegates one), each peak
# against root's. 0.5 s items: about 4 s. Figures only, never asserted:
# whatever it prints or however it ends, the stage's result is the suites'.
perf=$build/tests/spacrbench_perf_nonroot
if [ -x "$perf" ]; then
    echo "== perf_nonroot: root beside $user, with and without a delegated cgroup (figures, not a check)"
    start=$SECONDS rc=0
    timeout 60 "$perf" "$user" 0.5 >"$tmp/perf.log" 2>&1 || rc=$?
    sed 's/^/  /' "$tmp/perf.log"
    [ "$rc" -eq 0 ] || echo "  (perf_nonroot ended with status $rc: no figures from it, not a failure)"
    echo "  ($((SECONDS - start))s)"
else
    echo "SKIP: perf_nonroot: $perf was not built (the Check suites' helper is needed)"
fi
exit "$failed"
