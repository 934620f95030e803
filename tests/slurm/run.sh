#!/usr/bin/env bash
# SLURM + Dask stage of .ci/run: the hand-off proven on real engines.
# Starts a private single-node SLURM cluster (cluster.sh) in a temp dir,
# installs the package with dask[distributed] and dask-jobqueue into a
# fresh venv, and runs tests/slurm/test_engines.py: the emitted job script
# submitted as is, the task reports, summarize, an OOM and its correction,
# discovery inside a job, Dask LocalCluster and SLURMCluster. Daemons are
# stopped and their cgroups removed on every exit path. Exit 200 (skipped,
# with the reason) where the machine cannot run it.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
python=${PYTHON:-python3}

skip() { echo "skipped: $*"; exit 200; }
[ "$(id -u)" -eq 0 ] || skip "needs root (slurmd, munged and cgroups)"
[ -w /sys/fs/cgroup/memory ] || skip "needs a writable cgroup v1 memory controller at /sys/fs/cgroup/memory"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    command -v apt-get >/dev/null || skip "slurm-wlm and munge are not installed and there is no apt-get"
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends slurm-wlm munge; } || skip "cannot install slurm-wlm and munge"
fi
if [ -n "$(find /sys/fs/cgroup/*/slurm_"$(hostname -s)" -maxdepth 0 2>/dev/null)" ]; then
    skip "slurm_$(hostname -s) cgroups exist already: another slurmd runs here (or ran and left them)"
fi
pgrep -x slurmd >/dev/null && skip "another slurmd runs on this machine"

work=$(mktemp -d "${TMPDIR:-/tmp}/spacrbench-slurm.XXXXXX")
export SB_CLUSTER=$work/cluster
# shellcheck source=tests/slurm/cluster.sh
source "$repo/tests/slurm/cluster.sh"
cleanup() {
    local rc=$?
    cluster_stop || rc=1
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

"$python" -m venv "$work/venv"
py=$work/venv/bin/python
"$py" -m pip install --quiet --upgrade pip
"$py" -m pip install --quiet pytest "dask[distributed]" dask-jobqueue
# The wheel the Python stage built and repaired, where it ran before this
# one (.ci/run); else a build from the checkout.
built=$(ls "$repo"/build-ci/python/spacrbench-*.whl 2>/dev/null | head -1 || true)
"$py" -m pip install --quiet "${built:-$repo}"

cluster_start
export PATH=$work/venv/bin:$PATH SB_WORK=$work PYTHONPATH=$repo/tests/slurm
cd "$repo"
"$py" -m pytest -rs -v -s -p no:cacheprovider tests/slurm/test_engines.py
