#!/bin/sh
# Build the discovery-parser fuzz targets with clang and run each for a
# bounded time, FUZZ_JOBS (2) at once. Exits non-zero when one finds a
# crash (the crashing input is left in the build directory's artifacts/
# folder).
#
#   tests/fuzz/run.sh                  # 10 s per target
#   FUZZ_SECONDS=300 tests/fuzz/run.sh # longer
#   FUZZ_BUILD=/tmp/fz FUZZ_TARGETS="fuzz_cpuset fuzz_meminfo" tests/fuzz/run.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${FUZZ_BUILD:-$repo/build-fuzz}
seconds=${FUZZ_SECONDS:-10}
jobs=${FUZZ_JOBS:-2}
cc=${FUZZ_CC:-clang}
data=$repo/tests/c/data

cmake -S "$here" -B "$build" -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$build" -j "$jobs"

# Seed corpus per target: the recorded texts of the kind it parses, copied
# so that libFuzzer's new inputs never land in the source tree.
seed() { # target, find arguments...
    t=$1; shift
    mkdir -p "$build/corpus/$t"
    # Trees share file names (memory.max...): name each copy by its path's hash.
    find "$data" -type f "$@" | while read -r f; do
        cp "$f" "$build/corpus/$t/$(printf '%s' "$f" | cksum | cut -d' ' -f1)"
    done
}
rm -rf "$build/corpus"
seed fuzz_int64 \( -name '*usage*' -o -name 'memory.current' -o -name 'cpu.cfs_*' \)
seed fuzz_memory_limit \( -name 'memory.max' -o -name 'memory.high' -o -name '*limit_in_bytes' \)
seed fuzz_cpu_max -name 'cpu.max'
seed fuzz_cpuset -name 'cpuset*'
seed fuzz_meminfo -path '*meminfo*'
seed fuzz_stat_key -path '*memory*stat*'
seed fuzz_proc_cgroup \( -path '*proc_cgroup*' -o -name 'proc_self_cgroup' \)
seed fuzz_mountinfo_line -path '*mountinfo*'
seed fuzz_locate_cgroup -path '*mountinfo*'
mkdir -p "$build/corpus/fuzz_record" && cp "$here"/json/* "$build/corpus/fuzz_record/"

targets=${FUZZ_TARGETS:-$(cd "$build" && ls fuzz_* | grep -v '\.' || true)}
mkdir -p "$build/artifacts"
# One target per core at a time ($jobs): each still runs its full time.
fuzz_one() { # target: 0, or 1 after saying where its crash is
    t=$1
    mkdir -p "$build/corpus/$t"
    if ! "$build/$t" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
        -artifact_prefix="$build/artifacts/$t-" -print_final_stats=1 \
        "$build/corpus/$t" >"$build/$t.log" 2>&1; then
        echo "FAIL: $t crashed; see $build/$t.log and $build/artifacts/"
        tail -40 "$build/$t.log"
        return 1
    fi
    echo "== $t: $seconds s"
    grep -E 'stat::number_of_executed_runs|cov:' "$build/$t.log" | tail -2
}
status=0
pids=''
for t in $targets; do
    fuzz_one "$t" >"$build/$t.out" 2>&1 &
    pids="$pids $!:$t"
    set -- $pids
    if [ $# -ge "$jobs" ]; then # wait for the oldest before starting another
        p=${1%%:*} name=${1#*:}
        wait "$p" || status=1
        cat "$build/$name.out"
        shift
        pids="$*"
    fi
done
for entry in $pids; do
    wait "${entry%%:*}" || status=1
    cat "$build/${entry#*:}.out"
done
[ $status -eq 0 ] && echo "fuzz: all targets ran $seconds s without a crash"
exit $status
