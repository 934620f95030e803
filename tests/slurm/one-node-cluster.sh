#!/usr/bin/env bash
# The project's one-node SLURM cluster, for a reader without a cluster
# (docs/tutorial.md, step 9) and for the tests: a private slurmctld,
# slurmd and munged on this machine, their files in DIR.
#   one-node-cluster.sh start DIR   then: export SLURM_CONF=DIR/slurm.conf
#   one-node-cluster.sh stop DIR    ends the daemons and any job still
#                                   running, and removes their cgroups
# Needs root (slurmd and munged), Debian's slurm-wlm and munge, and a
# writable cgroup v1 memory controller; its ports are 16817-16818.
set -euo pipefail
usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$2"
SB_CLUSTER=$(cd "$2" && pwd)
export SB_CLUSTER
# shellcheck source=tests/slurm/cluster.sh
source "$here/cluster.sh"
case $1 in
start)
    [ "$(id -u)" -eq 0 ] || { echo "$0: needs root (slurmd, munged, cgroups)" >&2; exit 1; }
    [ -w /sys/fs/cgroup/memory ] || {
        echo "$0: needs a writable cgroup v1 memory controller at /sys/fs/cgroup/memory" \
            "(its cgroup.conf constrains each task's --mem there); this host has none" >&2
        exit 1
    }
    for tool in slurmctld slurmd munged sinfo; do
        command -v "$tool" >/dev/null ||
            { echo "$0: $tool not found: apt-get install slurm-wlm munge" >&2; exit 1; }
    done
    # The daemons outlive this script (stop ends them through their pid
    # files); a failed start leaves nothing running.
    cluster_start || { cluster_stop || true; exit 1; }
    echo "export SLURM_CONF=$SB_CLUSTER/slurm.conf"
    ;;
stop)
    export SLURM_CONF=$SB_CLUSTER/slurm.conf
    cluster_stop
    ;;
*) usage ;;
esac
