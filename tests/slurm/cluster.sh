# A private single-node SLURM cluster for the tests, sourced by run.sh:
# munge key, slurm.conf (cons_tres, CR_Core_Memory, proctrack/cgroup,
# task/cgroup) and cgroup.conf (ConstrainRAMSpace) in $SB_CLUSTER (a temp
# dir), munged, slurmctld and slurmd as child processes of this shell.
# cluster_stop stops them and removes the cgroups slurmd leaves behind
# (/sys/fs/cgroup/*/slurm_<host>), whatever state they are in; run.sh calls
# it from its EXIT trap.

cluster_pids=()

cluster_cgroups() { # the slurm_<host> directories, deepest first
    local host
    host=$(hostname -s)
    find /sys/fs/cgroup/*/slurm_"$host" -depth -type d 2>/dev/null || true
}

cluster_start() {
    local host cpus mem
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
    mkdir -p "$SB_CLUSTER"/{state,spool,log}
    chmod 0700 "$SB_CLUSTER"
    head -c 1024 /dev/urandom > "$SB_CLUSTER/munge.key"
    chmod 0400 "$SB_CLUSTER/munge.key"
    cat > "$SB_CLUSTER/slurm.conf" <<CONF
ClusterName=spacrbench-test
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$SB_CLUSTER/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$SB_CLUSTER/state
SlurmdSpoolDir=$SB_CLUSTER/spool
SlurmctldPidFile=$SB_CLUSTER/slurmctld.pid
SlurmdPidFile=$SB_CLUSTER/slurmd.pid
SlurmctldLogFile=$SB_CLUSTER/log/slurmctld.log
SlurmdLogFile=$SB_CLUSTER/log/slurmd.log
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
# Schedule each submission and each freed CPU at once: by default slurmctld
# may hold a batch job up to 3 s (batch_sched_delay), which a test or a
# reader waiting on a 6-task array pays at every wave (8-10 s -> 4 s).
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
KillWait=10
MinJobAge=5
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    cat > "$SB_CLUSTER/cgroup.conf" <<CONF
ConstrainRAMSpace=yes
ConstrainCores=yes
CONF
    export SLURM_CONF=$SB_CLUSTER/slurm.conf
    munged -F --force --key-file="$SB_CLUSTER/munge.key" --socket="$SB_CLUSTER/munge.sock" \
        --pid-file="$SB_CLUSTER/munged.pid" --log-file="$SB_CLUSTER/log/munged.log" \
        --seed-file="$SB_CLUSTER/munge.seed" >"$SB_CLUSTER/log/munged.out" 2>&1 &
    cluster_pids+=($!)
    local i
    for i in $(seq 50); do [ -S "$SB_CLUSTER/munge.sock" ] && break; sleep 0.1; done
    slurmctld -D -i >"$SB_CLUSTER/log/slurmctld.out" 2>&1 &
    cluster_pids+=($!)
    sleep 1
    slurmd -D >"$SB_CLUSTER/log/slurmd.out" 2>&1 &
    cluster_pids+=($!)
    for i in $(seq 60); do
        if [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; then
            echo "SLURM $(sinfo -V | awk '{print $2}'): node $host idle ($cpus CPUs, ${mem} MiB)"
            return 0
        fi
        sleep 0.5
    done
    echo "the private SLURM cluster did not come up; its logs:" >&2
    tail -n 20 "$SB_CLUSTER"/log/* >&2 || true
    return 1
}

cluster_stepds() { # slurmstepd processes of this cluster (slurmd's environment)
    local p
    for p in $(pgrep -x slurmstepd || true); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null \
            | grep -qxF "SLURM_CONF=$SB_CLUSTER/slurm.conf" && echo "$p"
    done
    return 0
}

cluster_stop() {
    local pid i f alive=0
    # Started by another shell (one-node-cluster.sh start): its pid files.
    if [ ${#cluster_pids[@]} -eq 0 ]; then
        for f in slurmd slurmctld munged; do
            pid=$(cat "$SB_CLUSTER/$f.pid" 2>/dev/null || true)
            [[ $pid =~ ^[0-9]+$ ]] && cluster_pids+=("$pid")
        done
    fi
    for pid in "${cluster_pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    # Cancel what runs and let slurmd end it before the daemons stop: a
    # slurmd told to stop with steps running (munged gone first) outlives
    # the 10 s below and is killed; with the queue empty all three end at
    # once (a 10 s wait became under 2 s). Not when they are gone already
    # (stopped twice): scancel and squeue would wait for the controller.
    if [ "$alive" -eq 1 ] && [ -n "${SLURM_CONF:-}" ]; then
        scancel --quiet --user=root 2>/dev/null || true
        for i in $(seq 50); do
            [ -z "$(squeue -h 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    for pid in "${cluster_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for i in $(seq 50); do
        local alive=0
        for pid in "${cluster_pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ "$alive" -eq 0 ] && break
        sleep 0.2
    done
    for pid in "${cluster_pids[@]}"; do
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    cluster_pids=()
    # slurmstepd outlives slurmd (it is not our child: poll it).
    local stepds
    stepds=$(cluster_stepds)
    [ -n "$stepds" ] && kill -TERM $stepds 2>/dev/null
    for i in $(seq 25); do
        [ -z "$(cluster_stepds)" ] && break
        sleep 0.2
    done
    stepds=$(cluster_stepds)
    [ -n "$stepds" ] && kill -KILL $stepds 2>/dev/null
    # Job steps (slurmstepd and the tasks) outlive slurmd: end what is
    # still in its cgroups, then remove them, deepest first.
    local dir procs
    for dir in $(cluster_cgroups); do
        procs=$(cat "$dir/cgroup.procs" 2>/dev/null || true)
        [ -n "$procs" ] && kill -KILL $procs 2>/dev/null || true
    done
    for i in $(seq 20); do
        for dir in $(cluster_cgroups); do rmdir "$dir" 2>/dev/null || true; done
        [ -z "$(cluster_cgroups)" ] && return 0
        sleep 0.25
    done
    echo "cgroups left behind: $(cluster_cgroups | tr '\n' ' ')" >&2
    return 1
}
