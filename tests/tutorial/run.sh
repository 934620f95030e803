#!/usr/bin/env bash
# Stage of .ci/run: docs/tutorial.md run exactly as written, so it cannot
# drift. A fresh HOME holds the tutorial's two directories: ~/spacrbench,
# the checkout's tracked files (as a clone has them), and ~/project. The
# page's ```sh blocks run in order in one shell (tutorial_steps.py, which
# also checks that the scripts the page shows are the files in
# docs/tutorial/); its pip steps reach PyPI as the reader's do. Then the
# results are checked: the three pictures, a summarize with every task ok,
# the plate's section.
#   tests/tutorial/run.sh [--pictures DIR] [--log FILE] [--keep DIR]
# --pictures DIR copies the pictures the run drew into DIR: the committed
# docs/tutorial/*.png are made this way (and the page's outputs are this
# run's, from --log FILE and the files --keep DIR keeps of ~/project). The one-node SLURM cluster the page
# starts is stopped on every exit path. Exit 200 (skipped, with the reason)
# where the machine cannot run the page's SLURM step.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pictures='' log='' keep=''
while [ $# -gt 0 ]; do
    case $1 in
    --pictures) pictures=$(cd "$2" && pwd); shift 2 ;;
    --log) log=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "usage: $0 [--pictures DIR] [--log FILE] [--keep DIR]" >&2; exit 2 ;;
    esac
done

skip() { echo "skipped: $*"; exit 200; }
[ "$(id -u)" -eq 0 ] || skip "the page's one-node SLURM cluster needs root"
[ -w /sys/fs/cgroup/memory ] || skip "the one-node cluster needs a writable cgroup v1 memory controller"
command -v slurmctld >/dev/null && command -v munged >/dev/null ||
    skip "slurm-wlm and munge are not installed (.ci/run installs them)"
pgrep -x slurmd >/dev/null && skip "another slurmd runs on this machine"

work=$(mktemp -d "${TMPDIR:-/tmp}/spacrbench-tutorial.XXXXXX")
home=$work/home
mkdir -p "$home/spacrbench"
cleanup() {
    local rc=$?
    if [ -f "$home/slurm/slurm.conf" ]; then
        bash "$repo/tests/slurm/one-node-cluster.sh" stop "$home/slurm" || rc=1
    fi
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

python3 "$repo/tests/tutorial/tutorial_steps.py" "$repo/docs/tutorial.md" "$repo" >"$work/steps.sh"
(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$home/spacrbench")

# The reader's shell: a HOME of its own, no venv of ours, no PYTHONPATH.
start=$SECONDS
(
    cd "$home"
    env -i HOME="$home" PATH="$PATH" LANG=C.UTF-8 TERM=dumb bash "$work/steps.sh"
) >"$work/log" 2>&1 || { cat "$work/log"; echo "FAIL: the tutorial stopped (above)"; exit 1; }
cat "$work/log"
[ -z "$log" ] || cp "$work/log" "$log"
echo "== the tutorial ran as written in $((SECONDS - start)) s"

fail() { echo "FAIL: $*"; exit 1; }
project=$home/project
for png in pipeline.png scaling.png run.png; do
    head -c 8 "$project/$png" | od -An -c | grep -q 'P   N   G' || fail "$png is not a PNG"
done
grep -q '^all 6 task(s) ok' "$work/log" || fail "summarize did not say every task ok"
grep -q '^  recommended workers' "$work/log" || fail "no recommendation"
grep -q '^plate$' "$work/log" || fail "the plate step printed no plate section"
if [ -n "$pictures" ]; then
    cp "$project"/{pipeline,scaling,run}.png "$pictures/"
    echo "== pictures copied to $pictures"
fi
if [ -n "$keep" ]; then
    mkdir -p "$keep"
    find "$project" -maxdepth 1 -type f -exec cp -t "$keep" {} +
    cp -r "$project/spacrbench-job" "$keep/"
fi
echo "ok: the tutorial's $(grep -c '^### step' "$work/log") steps, its pictures and results"
