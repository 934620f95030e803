#!/bin/sh
# Runs as root inside the cgroup v2 VM that tests/qemu/run.sh boots (cgroup2
# on /sys/fs/cgroup, no v1 controllers): real discovery under memory.max /
# memory.high / cpu.max at two levels, `spacrbench run` with a per-item
# cgroup and memory.peak, from a leaf it moves into and its fallback from a
# leaf that holds other processes, the OOM case, the budget as the
# memory.max of the scaling check's groups (the library's and run
# --scale's), and (f) the same as an unprivileged user (uid 4242, setpriv)
# in a systemd-style delegated subtree. Every figure is printed against its truth.
#
#   inside.sh SPACRBENCH HELPER_ALLOC_TOUCH RESULTS_FILE [PYTHON]
#
# PYTHON: a python3 with spacrbench installed (run.sh's venv of the wheel
# the Python stage kept), for Python's scaling check as the user; "-" or
# none: that part says SKIP.
#
# RESULTS_FILE gets every line printed here; its first line is "BEGIN" and
# its last "END pass=P fail=F known=K" (run.sh reads it). Only POSIX sh,
# grep, sed and awk are used: python3 need not exist in the guest.
set -u
sb=$1
helper=$2
res=$3
python=${4:--}
CG=/sys/fs/cgroup
T=$CG/sbq
MiB=1048576
pass=0 fail=0 known=0
tmp=$(mktemp -d)

: >"$res"
say() { printf '%s\n' "$*"; printf '%s\n' "$*" >>"$res"; }
# A part's heading, with the guest's uptime: where the suite's time goes.
part() { say "$* [at $(cut -d' ' -f1 /proc/uptime) s]"; }
ok() { pass=$((pass + 1)); say "PASS: $*"; }
bad() { fail=$((fail + 1)); say "FAIL: $*"; }
# A check that fails today because of a known problem: loud, counted, not a pass.
known_failure() { known=$((known + 1)); say "KNOWN FAILURE: $*"; }
say "BEGIN"
uptime_s() { cut -d. -f1 /proc/uptime; }
t_begin=$(uptime_s)
say "kernel $(uname -r), $(nproc) CPUs, $(sed -n 's/^MemTotal: *//p' /proc/meminfo) RAM"

# Bound every command (TCG is slow, but nothing here needs a minute).
if command -v timeout >/dev/null 2>&1; then
    bounded() { timeout 120 "$@"; }
else
    bounded() { "$@"; }
fi

# json_line FILE KEY: the one-line object `  "KEY": {...}` of a --json document.
json_line() { sed -n "s/^  \"$2\": //p" "$1"; }
# json_get TEXT KEY: the raw value of "KEY" in a flat object text (strings keep
# their quotes stripped; numbers and null as printed).
json_get() {
    printf '%s' "$1" | sed -n -e "s/.*\"$2\":\"\([^\"]*\)\".*/\1/p" -e t -e "s/.*\"$2\":\([^,}]*\).*/\1/p"
}
# flat_json FILE: a pretty --json document on one line, no space after a
# key's colon or between members, so the scaling members read as sed reads
# a flat object (the pretty writer puts each member on its own line).
flat_json() { sed 's/^[[:space:]]*//' "$1" | tr -d '\n' | sed 's/": /":/g'; }
# expect_eq WHAT GOT TRUTH
expect_eq() {
    if [ "$2" = "$3" ]; then ok "$1 = $2 (truth $3)"; else bad "$1 = '$2', truth '$3'"; fi
}
# expect_num WHAT GOT TRUTH: numerically equal (1 = 1.0).
expect_num() {
    if [ -n "$2" ] && awk -v g="$2" -v t="$3" 'BEGIN { exit !(g != "null" && g + 0 == t + 0) }'; then
        ok "$1 = $2 (truth $3)"
    else
        bad "$1 = '$2', truth $3"
    fi
}
# expect_range WHAT GOT LO HI [UNIT_DIVISOR]: numeric LO <= GOT <= HI.
expect_range() {
    d=${5:-1}
    if [ -n "$2" ] && awk -v g="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(g + 0 >= lo && g + 0 <= hi && g != "null") }'; then
        ok "$1 = $(awk -v g="$2" -v d="$d" 'BEGIN { printf "%.2f", g / d }') (truth: between $(awk -v v="$3" -v d="$d" 'BEGIN { printf "%.2f", v / d }') and $(awk -v v="$4" -v d="$d" 'BEGIN { printf "%.2f", v / d }'))"
    else
        bad "$1 = '$2', truth: between $3 and $4"
    fi
}
# expect_contains WHAT FILE TEXT
expect_contains() {
    if grep -qF -- "$3" "$2"; then ok "$1: says '$3'"; else bad "$1: does not say '$3' ($(head -c 600 "$2" | tr '\n' ' '))"; fi
}
leftovers() { find "$CG" -type d \( -name 'spacrbench-run-*' -o -name 'spacrbench-leaf-*' \) 2>/dev/null | wc -l; }

finish() {
    # Tear the test tree down, deepest first (our shells have left it).
    find "$T" -depth -type d -exec rmdir {} \; 2>/dev/null
    if [ -d "$T" ]; then bad "test cgroups could not be removed: $(find "$T" -type d | tr '\n' ' ')"; fi
    rm -rf "$tmp"
    say "END pass=$pass fail=$fail known=$known"
    exit $([ "$fail" -eq 0 ] && echo 0 || echo 1)
}

# --- setup ---------------------------------------------------------------
if ! grep -q ' /sys/fs/cgroup .* - cgroup2 ' /proc/self/mountinfo; then
    bad "cgroup2 is not mounted on /sys/fs/cgroup: $(grep cgroup /proc/self/mountinfo | tr '\n' ';')"
    finish
fi
if grep -q ' - cgroup ' /proc/self/mountinfo; then
    bad "v1 cgroup hierarchies are mounted too: $(grep ' - cgroup ' /proc/self/mountinfo | tr '\n' ';')"
fi
for f in "$sb" "$helper"; do [ -x "$f" ] || { bad "not executable here: $f"; finish; }; done
say "controllers: $(cat $CG/cgroup.controllers)"
echo $$ >"$CG/cgroup.procs"
if ! echo "+memory +cpu" >"$CG/cgroup.subtree_control"; then bad "cannot enable +memory +cpu at the root"; finish; fi
mkdir -p "$T" && echo "+memory +cpu" >"$T/cgroup.subtree_control" || { bad "cannot make $T"; finish; }

# --- (a) discovery at two levels --------------------------------------------
# discovery_case NAME P_MAX P_HIGH P_CPU C_MAX C_HIGH C_CPU
#                TRUE_LIMIT TRUE_MEM_LEVEL(p|c) TRUE_QUOTA TRUE_CORES TRUE_CORES_SOURCE TRUE_CORES_LEVEL(p|c|-)
discovery_case() {
    name=$1
    P=$T/$name
    C=$P/leaf
    mkdir "$P" && echo "+memory +cpu" >"$P/cgroup.subtree_control" && mkdir "$C" || {
        bad "$name: cannot make $P/leaf"
        return
    }
    echo "$2" >"$P/memory.max"; echo "$3" >"$P/memory.high"; echo "$4" >"$P/cpu.max"
    echo "$5" >"$C/memory.max"; echo "$6" >"$C/memory.high"; echo "$7" >"$C/cpu.max"
    part "-- (a) discovery $name: parent memory.max=$2 memory.high=$3 cpu.max='$4'; leaf memory.max=$5 memory.high=$6 cpu.max='$7'"
    # A shell moves itself into the leaf, then becomes spacrbench (demo mode).
    bounded sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" --json --size 256x256 --fields 2' sh "$C" "$sb" \
        >"$tmp/$name.json" 2>"$tmp/$name.err"
    rc=$?
    expect_eq "$name: exit status" "$rc" 0
    m=$(json_line "$tmp/$name.json" machine)
    [ -n "$m" ] || { bad "$name: no machine object: $(head -c 400 "$tmp/$name.err")"; return; }
    say "   machine: $m"
    case $9 in p) mem_dir=$P ;; *) mem_dir=$C ;; esac
    case ${13} in p) cpu_dir=$P ;; c) cpu_dir=$C ;; *) cpu_dir= ;; esac
    expect_eq "$name: memory_source" "$(json_get "$m" memory_source)" cgroup_v2
    expect_eq "$name: memory_limit_bytes" "$(json_get "$m" memory_limit_bytes)" "$8"
    expect_eq "$name: memory_cgroup" "$(json_get "$m" memory_cgroup)" "$mem_dir"
    # Headroom = limit - (usage - inactive file): below the limit, above
    # limit minus a generous 64 MiB for the shell and spacrbench themselves.
    expect_range "$name: available_bytes (MiB)" "$(json_get "$m" available_bytes)" \
        $(($8 - 64 * MiB)) "$8" $MiB
    expect_num "$name: cpu_quota_cores" "$(json_get "$m" cpu_quota_cores)" "${10}"
    expect_eq "$name: cores" "$(json_get "$m" cores)" "${11}"
    expect_eq "$name: cores_source" "$(json_get "$m" cores_source)" "${12}"
    expect_eq "$name: cores_cgroup" "$(json_get "$m" cores_cgroup)" "$cpu_dir"
}
# Case 1: the leaf is tighter for memory and cores.
discovery_case leaf-tighter 768M max "150000 100000" 512M max "100000 100000" \
    $((512 * MiB)) c 1 1 cgroup_v2 c
# Case 2: swapped, the parent is tighter for both.
discovery_case parent-tighter 512M max "100000 100000" 768M max "150000 100000" \
    $((512 * MiB)) p 1 1 cgroup_v2 p
# Case 3: memory.high of the leaf (384M) binds below the parent's memory.max;
# a 1.5-core quota rounds up to the 2 CPUs, so affinity wins the tie.
discovery_case high-binds 512M max "150000 100000" max 384M max \
    $((384 * MiB)) c 1.5 2 affinity -

# --- (b) spacrbench run: per-item cgroups with memory.peak --------------------
# v2's no-internal-processes rule: only the root cgroup may hold processes
# and also enable controllers for its children. So spacrbench runs from the
# root here; its items get /sys/fs/cgroup/spacrbench-run-PID-N with memory.peak.
part "-- (b) spacrbench run from the root cgroup (items 64 and 160 MiB)"
bounded "$sb" run --json --quiet 64 160 -- "$helper" {} 200 >"$tmp/run.json" 2>"$tmp/run.err"
expect_eq "run (root): exit status" "$?" 0
m=$(json_line "$tmp/run.json" measurement)
printf '%s\n' "$m" >"$tmp/run.meas"
expect_eq "run (root): peak_method" "$(json_get "$m" peak_method)" cgroup
expect_contains "run (root): notes" "$tmp/run.meas" "memory cgroup of its own (cgroup v2 memory.peak, under spacrbench's own"
expect_contains "run (root): notes" "$tmp/run.meas" "cgroup v2: groups in the hierarchy's root, $CG"
# The cgroup the items' own were made under: the JSON's (not a note's).
expect_eq "run (root): memory_figures.cgroup_parent" \
    "$(sed -n 's/^    "cgroup_parent": "\(.*\)"$/\1/p' "$tmp/run.json")" "$CG"
for n in 64 160; do
    rec=$(printf '%s' "$m" | grep -o "\"item\":\"$n\"[^}]*")
    # The whole tree's charge: N MiB touched, plus page tables and the
    # helper's own pages; a few % above N at most.
    expect_range "run (root): item $n MiB peak (MiB)" "$(json_get "$rec" peak_rss_bytes)" \
        $((n * MiB)) $((n * MiB + n * MiB / 25 + 2 * MiB)) $MiB
done
# The memory timeline: the items' cgroups' memory.current beside the RSS.
n_cg=$(grep -o '"cgroup_bytes":[0-9][0-9]*' "$tmp/run.meas" | wc -l)
if [ "$n_cg" -gt 0 ]; then ok "run (root): timeline points with memory.current: $n_cg"; else bad "run (root): no timeline point has cgroup_bytes"; fi
# The 160 MiB item ($rec, the loop's last) shows in memory.current (at
# least half of it), never above its memory.peak. Under TCG the 0.5 %
# budget spaces the samples by 100 ms or more, by seconds on a loaded
# host, so none may land while it holds its pages: then one item of 160
# MiB holds them for three of the longest gaps this run measured.
cg_max=$(grep -o '"cgroup_bytes":[0-9][0-9]*' "$tmp/run.meas" | sed 's/.*://' | sort -n | tail -1)
cg_peak=$(json_get "$rec" peak_rss_bytes)
if [ "${cg_max:-0}" -lt $((80 * MiB)) ]; then
    gap_ms=$(grep -o '"seconds":[0-9.]*,"rss_bytes"' "$tmp/run.meas" | sed 's/"seconds":\([0-9.]*\),.*/\1/' |
        awk 'NR > 1 && $1 - last > g { g = $1 - last } { last = $1 } END { g = 3000 * g + 1000; print int(g < 30000 ? g : 30000) }')
    say "   the samples missed the 160 MiB item's pages; again, holding them ${gap_ms} ms"
    bounded "$sb" run --json --quiet 160 -- "$helper" {} "$gap_ms" >"$tmp/run2.json" 2>"$tmp/run2.err"
    json_line "$tmp/run2.json" measurement >"$tmp/run2.meas"
    cg_max=$(grep -o '"cgroup_bytes":[0-9][0-9]*' "$tmp/run2.meas" | sed 's/.*://' | sort -n | tail -1)
    cg_peak=$(json_get "$(grep -o '"item":"160"[^}]*' "$tmp/run2.meas")" peak_rss_bytes)
fi
expect_range "run (root): timeline's highest memory.current (MiB)" "$cg_max" \
    $((80 * MiB)) "$cg_peak" $MiB
expect_contains "run (root): timeline marks" "$tmp/run.meas" '"items":[{"index":0,'
expect_eq "run (root): spacrbench-run-* cgroups left" "$(leftovers)" 0

part "-- (b) spacrbench run alone in a leaf: it moves into a leaf of it and enables memory there"
mkdir "$T/alone"
bounded sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" run --json --quiet 64 -- "$3" {} 200' \
    sh "$T/alone" "$sb" "$helper" >"$tmp/alone.json" 2>"$tmp/alone.err"
expect_eq "run (alone in a leaf): exit status" "$?" 0
m=$(json_line "$tmp/alone.json" measurement)
printf '%s\n' "$m" >"$tmp/alone.meas"
expect_eq "run (alone in a leaf): peak_method" "$(json_get "$m" peak_method)" cgroup
expect_contains "run (alone in a leaf): notes" "$tmp/alone.meas" "groups in this process's own cgroup, $T/alone, with the process moved into a leaf of it"
rec=$(printf '%s' "$m" | grep -o '"item":"64"[^}]*')
expect_range "run (alone in a leaf): item 64 MiB peak (MiB)" "$(json_get "$rec" peak_rss_bytes)" \
    $((64 * MiB)) $((64 * MiB + 64 * MiB / 25 + 2 * MiB)) $MiB
expect_eq "run (alone in a leaf): its cgroup.subtree_control afterwards" "$(cat "$T/alone/cgroup.subtree_control")" ""
expect_eq "run (alone in a leaf): cgroups left in it" "$(find "$T/alone" -mindepth 1 -type d | wc -l)" 0

part "-- (b) spacrbench run from a leaf that holds other processes (falls back)"
mkdir "$T/busy"
bounded sh -c 'echo $$ >"$1/cgroup.procs" || exit 1; sleep 60 & s=$!; "$2" run --json --quiet 64 -- "$3" {} 200; r=$?; kill $s; exit $r' \
    sh "$T/busy" "$sb" "$helper" >"$tmp/busy.json" 2>"$tmp/busy.err"
expect_eq "run (busy leaf): exit status" "$?" 0
m=$(json_line "$tmp/busy.json" measurement)
printf '%s\n' "$m" >"$tmp/busy.meas"
method=$(json_get "$m" peak_method)
if [ "$method" != cgroup ] && [ -n "$method" ]; then ok "run (busy leaf): peak_method = $method (truth: not cgroup)"; else bad "run (busy leaf): peak_method = '$method', truth: a fallback"; fi
expect_contains "run (busy leaf): notes" "$tmp/busy.meas" "no cgroup of its own because no usable cgroup v2: this process's $T/busy holds 2 other processes"
say "   why: $(grep -o 'no cgroup of its own because[^;]*' "$tmp/busy.meas")"
say "   sampled: $(grep -o 'alive together, sampled [^;]*' "$tmp/busy.meas")"
expect_contains "run (busy leaf): notes" "$tmp/busy.meas" "may be seen only through ru_maxrss"
rec=$(printf '%s' "$m" | grep -o '"item":"64"[^}]*')
# ru_maxrss / summed VmHWM: 64 MiB plus libc, plus up to spacrbench's own RSS.
expect_range "run (busy leaf): item 64 MiB peak (MiB)" "$(json_get "$rec" peak_rss_bytes)" \
    $((64 * MiB)) $((72 * MiB)) $MiB
n_cg=$(grep -o '"cgroup_bytes":[0-9][0-9]*' "$tmp/busy.meas" | wc -l)
n_rss=$(grep -o '"rss_bytes":[0-9][0-9]*' "$tmp/busy.meas" | wc -l)
if [ "$n_cg" -eq 0 ] && [ "$n_rss" -gt 0 ]; then ok "run (busy leaf): timeline of RSS only: $n_rss points, no cgroup_bytes"; else bad "run (busy leaf): timeline has $n_rss RSS and $n_cg cgroup points"; fi
expect_eq "run (busy leaf): spacrbench-run-* cgroups left" "$(leftovers)" 0

# --- (c) the OOM case ----------------------------------------------------
# Per-item cgroup: the item puts memory.max=256M on the cgroup spacrbench
# made for it (its own line in /proc/self/cgroup), then allocates 400 MiB.
part "-- (c) OOM: item of 400 MiB under a 256M memory.max on its own cgroup (spacrbench in the root)"
bounded "$sb" run --json --quiet 16 400 -- sh -c \
    'echo 256M >"/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)/memory.max" && exec "$0" "$1" 2000' \
    "$helper" {} >"$tmp/oom.json" 2>"$tmp/oom.err"
expect_eq "OOM (own cgroup): exit status" "$?" 3
say "   stderr: $(grep 'spacrbench: item' "$tmp/oom.err")"
expect_contains "OOM (own cgroup): stderr" "$tmp/oom.err" "item 2 (400) OOM-killed"
expect_contains "OOM (own cgroup): stderr" "$tmp/oom.err" "memory limit 256.0 MiB"
json_line "$tmp/oom.json" recommendation >"$tmp/oom.rec"
say "   recommendation: $(grep -o '"reason":"[^"]*"' "$tmp/oom.rec")"
expect_contains "OOM (own cgroup): recommendation" "$tmp/oom.rec" "one worker needs more than 256.0 MiB"
expect_eq "OOM (own cgroup): oom_limit_bytes" "$(json_get "$(json_line "$tmp/oom.json" measurement)" oom_limit_bytes)" $((256 * MiB))
expect_eq "OOM (own cgroup): spacrbench-run-* cgroups left" "$(leftovers)" 0

# The usual SLURM-step / container case: spacrbench in a leaf that holds
# other processes (its shell, a sleep), under a parent with
# memory.max=256M. No cgroup of its own.
part "-- (c) OOM: item of 400 MiB in a busy leaf under a parent with memory.max=256M"
mkdir "$T/oomp" && echo "+memory +cpu" >"$T/oomp/cgroup.subtree_control" && mkdir "$T/oomp/leaf" &&
    echo 256M >"$T/oomp/memory.max"
bounded sh -c 'echo $$ >"$1/cgroup.procs" || exit 1; sleep 60 & s=$!; "$2" run --json --quiet 16 400 -- "$3" {} 2000; r=$?; kill $s; exit $r' \
    sh "$T/oomp/leaf" "$sb" "$helper" >"$tmp/oomleaf.json" 2>"$tmp/oomleaf.err"
expect_eq "OOM (busy leaf): exit status" "$?" 3
say "   stderr: $(grep 'spacrbench: item' "$tmp/oomleaf.err")"
say "   parent memory.events: $(tr '\n' ' ' <"$T/oomp/memory.events")"
oomk=$(sed -n 's/^oom_kill //p' "$T/oomp/memory.events")
expect_eq "OOM (busy leaf): the kernel's oom_kill count of the parent" "$oomk" 1
if grep -qF "OOM-killed" "$tmp/oomleaf.err"; then
    ok "OOM (busy leaf): stderr names the OOM killer"
else
    known_failure "OOM (busy leaf): without a cgroup of its own the OOM kill is reported as '$(grep -o 'killed by signal [^:]*' "$tmp/oomleaf.err")', not 'OOM-killed' (docs/cli.md promises the name only with a cgroup of its own)"
fi
json_line "$tmp/oomleaf.json" recommendation >"$tmp/oomleaf.rec"
if grep -qF "one worker needs more than" "$tmp/oomleaf.rec"; then
    ok "OOM (busy leaf): the recommendation says one worker needs more than the limit"
else
    known_failure "OOM (busy leaf): the recommendation is sized from the 16 MiB item alone ($(grep -o '"reason":"[^"]*"' "$tmp/oomleaf.rec")), although item 2 was OOM-killed at the parent's 256M: it should say one worker needs more than 256.0 MiB"
fi
expect_eq "OOM (busy leaf): spacrbench-run-* cgroups left" "$(leftovers)" 0

# --- (d) the scaling check's group carries the budget as memory.max ---------
# check_scale (the Check suite, when the build has it) from the root: a count
# over the budget is OOM-killed inside its group (memory.max +
# memory.oom.group=1), and a caller in a 240M cgroup survives 4 workers of
# 40 MiB (there its own cgroup holds it, so no group can be made below it:
# the workers' oom_score_adj spares the caller).
scale_check=$(dirname "$sb")/tests/c/check_scale
if [ -x "$scale_check" ]; then
    part "-- (d) scaling check: the group's memory limit in cgroup v2"
    # Case "limits": the_budget_is_the_groups_limit and
    # an_over_budget_count_is_killed_in_its_group_not_the_caller.
    CK_RUN_CASE=limits bounded "$scale_check" >"$tmp/scale.out" 2>&1
    rc=$?
    say "   $(grep -E 'check_scale|SKIP|Checks|\.c:[0-9]+:' "$tmp/scale.out" | tr '\n' ' ')"
    if [ "$rc" -eq 0 ] && ! grep -q SKIP "$tmp/scale.out" && grep -q 'Checks: 2, Failures: 0, Errors: 0' "$tmp/scale.out"; then
        ok "scale (v2): an over-budget count is OOM-killed in its group (memory.max, memory.oom.group) and a limited caller survives"
    else
        bad "scale (v2): the group limit tests (exit $rc): $(tail -c 600 "$tmp/scale.out" | tr '\n' ' ')"
    fi
    expect_eq "scale (v2): spacrbench-group-* cgroups left" \
        "$(find "$CG" -type d -name 'spacrbench-group-*' 2>/dev/null | wc -l)" 0
else
    part "-- (d) scaling check: skipped, $scale_check not built (run.sh BUILD_DIR with the Check suites)"
fi

# --- (e) run --scale: each count's group carries the budget as memory.max ----
# spacrbench in the root, --reserve set so that the budget is about 200 MiB
# (MemAvailable less the reserve): 1 copy of 120 MiB fits, 3 do not. The
# 3-worker count must be OOM-killed inside its own group (memory.max,
# memory.oom.group=1): a `memory` point, exit 0, spacrbench untouched, no
# group left. Without the limit the VM's 1.5 GiB would hold all three.
part "-- (e) run --scale: the budget is each count's memory.max (copies of 120 MiB, budget ~200 MiB)"
avail_mib=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
reserve_mib=$((avail_mib - 200))
bounded "$sb" run --json --quiet --reserve "${reserve_mib}M" --scale 1,3 --scale-items 1 \
    --scale-seconds 0 120 -- "$helper" {} 200 >"$tmp/scale_run.json" 2>"$tmp/scale_run.err"
expect_eq "run --scale (v2): exit status (an over-budget count is the check's answer)" "$?" 0
flat_json "$tmp/scale_run.json" >"$tmp/scale_run.flat"
sed -n 's/.*"scaling":\[//; s/\],"scaling_workers".*//p' "$tmp/scale_run.flat" |
    sed 's/},{/}\n{/g' >"$tmp/scale_run.points"
p3=$(grep '"workers":3,' "$tmp/scale_run.points")
p1=$(grep '"workers":1,' "$tmp/scale_run.points")
budget=$(sed -n 's/.*"scaling_budget_bytes":\([0-9]*\).*/\1/p' "$tmp/scale_run.flat")
say "   budget $budget; 3 workers: $(printf '%s' "$p3" | grep -o '"failed":[a-z]*,.*"oom_killed":[a-z]*,"group_limit_bytes":[0-9-]*' | sed 's/"repeats".*"oom_killed"/... "oom_killed"/')"
say "   stderr: $(grep 'OOM' "$tmp/scale_run.err" | head -2 | tr '\n' ' ')"
expect_range "run --scale (v2): budget (MiB)" "$budget" $((150 * MiB)) $((250 * MiB)) $MiB
expect_eq "run --scale (v2): 1 worker failed" "$(json_get "$p1" failed)" false
expect_eq "run --scale (v2): 3 workers failed" "$(json_get "$p3" failed)" true
expect_eq "run --scale (v2): 3 workers oom_killed" "$(json_get "$p3" oom_killed)" true
expect_eq "run --scale (v2): 3 workers group_limit_bytes" "$(json_get "$p3" group_limit_bytes)" "$budget"
expect_eq "run --scale (v2): scaling_verdict" "$(sed -n 's/.*"scaling_verdict":"\([a-z_]*\)".*/\1/p' "$tmp/scale_run.flat")" memory
expect_eq "run --scale (v2): scaling_workers" "$(sed -n 's/.*"scaling_workers":\([0-9]*\).*/\1/p' "$tmp/scale_run.flat")" 1
expect_contains "run --scale (v2): stderr" "$tmp/scale_run.err" "3 workers: over the memory budget: OOM-killed"
expect_contains "run --scale (v2): stderr" "$tmp/scale_run.err" "in their group at its limit of "
expect_eq "run --scale (v2): spacrbench-run-* cgroups left" "$(leftovers)" 0

# --- (f) as an unprivileged user ---------------------------------------------
# uid 4242 (no passwd entry needed: setpriv takes numbers). systemd's
# Delegate=yes hands a unit's cgroup to its user: the directory and its
# cgroup.procs, cgroup.subtree_control and cgroup.threads chowned, the
# controllers enabled for children, the processes in a leaf below it.
t_f=$(uptime_s)
U=4242
D=$T/deleg
E=$T/own
delegate() { # delegate DIR: chowned to the user as Delegate=yes does
    chown "$U:$U" "$1" "$1/cgroup.procs" "$1/cgroup.subtree_control" "$1/cgroup.threads"
}
mkdir "$D" "$D/session" "$E" "$T/rootleaf" && echo "+memory" >"$D/cgroup.subtree_control" &&
    delegate "$D" && delegate "$D/session" && delegate "$E" ||
    bad "cannot make the delegated subtrees $D and $E"
udir=$tmp/user
mkdir "$udir" && chown "$U:$U" "$udir" && chmod 755 "$tmp"
# The item as the user runs it: where its cgroup is, then the allocator.
cat >"$tmp/item.sh" <<'ITEM'
#!/bin/sh
sed -n 's/^0:://p' /proc/self/cgroup >"$UDIR/cg.$1"
exec "$HELPER" "$@"
ITEM
chmod 755 "$tmp/item.sh"
# as_user CGROUP CMD...: CMD as uid 4242, started in CGROUP by root (the
# user could not move itself out of root's cgroup), next to a shell that
# stays there (a terminal's scope holds the shell too).
as_user() {
    bounded sh -c 'echo $$ >"$1/cgroup.procs" || exit 125; shift
        exec setpriv --reuid=4242 --regid=4242 --clear-groups env HOME="$UDIR" UDIR="$UDIR" HELPER="$HELPER" \
            sh -c "\"\$@\"; r=\$?; exit \$r" sh "$@"' sh "$@"
}
export UDIR=$udir HELPER=$helper
user_left() { find "$1" -mindepth 1 -type d ! -path "$1/session" 2>/dev/null | wc -l; }

part "-- (f) as uid $U in $D/session (a delegated subtree above a busy leaf): spacrbench run, an item of 64 MiB"
as_user "$D/session" "$sb" run --json --quiet 64 -- "$tmp/item.sh" {} 200 >"$tmp/u_run.json" 2>"$tmp/u_run.err"
expect_eq "user run (delegated): exit status" "$?" 0
m=$(json_line "$tmp/u_run.json" measurement)
printf '%s\n' "$m" >"$tmp/u_run.meas"
expect_eq "user run (delegated): peak_method" "$(json_get "$m" peak_method)" cgroup
expect_contains "user run (delegated): notes" "$tmp/u_run.meas" "cgroup v2: groups in $D, delegated to uid $U, above this process's own cgroup $D/session, which holds 1 other process"
for n in 64; do
    rec=$(printf '%s' "$m" | grep -o "\"item\":\"$n\"[^}]*")
    expect_range "user run (delegated): item $n MiB peak (MiB), root's bounds" "$(json_get "$rec" peak_rss_bytes)" \
        $((n * MiB)) $((n * MiB + n * MiB / 25 + 2 * MiB)) $MiB
    case $(cat "$udir/cg.$n" 2>/dev/null) in
    /sbq/deleg/spacrbench-run-*) ok "user run (delegated): item $n ran in $(cat "$udir/cg.$n")" ;;
    *) bad "user run (delegated): item $n ran in '$(cat "$udir/cg.$n" 2>/dev/null)', truth /sbq/deleg/spacrbench-run-*" ;;
    esac
done
expect_eq "user run (delegated): cgroups left in $D" "$(user_left "$D")" 0

part "-- (f) as uid $U, delegated: OOM at 256M on the item's own cgroup"
as_user "$D/session" "$sb" run --json --quiet 300 -- sh -c \
    'echo 256M >"/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)/memory.max" && exec "$0" "$1" 2000' \
    "$helper" {} >"$tmp/u_oom.json" 2>"$tmp/u_oom.err"
expect_eq "user OOM (delegated): exit status" "$?" 3
say "   stderr: $(grep 'spacrbench: item' "$tmp/u_oom.err")"
expect_contains "user OOM (delegated): stderr" "$tmp/u_oom.err" "item 1 (300) OOM-killed"
expect_contains "user OOM (delegated): stderr" "$tmp/u_oom.err" "memory limit 256.0 MiB"
json_line "$tmp/u_oom.json" recommendation >"$tmp/u_oom.rec"
expect_contains "user OOM (delegated): recommendation" "$tmp/u_oom.rec" "one worker needs more than 256.0 MiB"
expect_eq "user OOM (delegated): cgroups left in $D" "$(user_left "$D")" 0

# run --scale as the user: each count's cgroup goes under the delegated
# subtree with the budget as its memory.max (what the copy reads there),
# as root gets in part e. Tiny: copies of 16 MiB for 20 ms, one item per
# repeat, no minimum time. --reserve puts the budget near 300 MiB (the
# default reserve, 2 GiB, leaves none in this VM, and no limit).
avail_mib=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
part "-- (f) as uid $U, delegated: run --scale 1,2 (copies of 16 MiB): count groups in $D, the budget (~300 MiB) their memory.max"
cat >"$tmp/scale_item.sh" <<'ITEM'
#!/bin/sh
cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
echo "$cg $(cat "/sys/fs/cgroup$cg/memory.max")" >>"$UDIR/scale.cg"
exec "$HELPER" "$@"
ITEM
chmod 755 "$tmp/scale_item.sh"
# Each copy holds its 16 MiB for 400 ms: the two copies' peaks must meet
# in the group, and under emulation 20 ms let one end before the other
# started (29 MiB seen).
as_user "$D/session" "$sb" run --json --quiet --reserve "$((avail_mib - 300))M" --scale 1,2 \
    --scale-items 1 --scale-seconds 0 16 -- \
    "$tmp/scale_item.sh" {} 400 >"$tmp/u_scale.json" 2>"$tmp/u_scale.err"
expect_eq "user run --scale (delegated): exit status" "$?" 0
flat_json "$tmp/u_scale.json" >"$tmp/u_scale.flat"
budget=$(sed -n 's/.*"scaling_budget_bytes":\([0-9]*\).*/\1/p' "$tmp/u_scale.flat")
expect_range "user run --scale (delegated): budget (MiB)" "$budget" $((250 * MiB)) $((350 * MiB)) $MiB
expect_eq "user run --scale (delegated): scaling_peak_method" \
    "$(sed -n 's/.*"scaling_peak_method":"\([a-z_]*\)".*/\1/p' "$tmp/u_scale.flat")" cgroup
sed -n 's/.*"scaling":\[//; s/\],"scaling_workers".*//p' "$tmp/u_scale.flat" |
    sed 's/},{/}\n{/g' >"$tmp/u_scale.points"
for k in 1 2; do
    p=$(grep "\"workers\":$k," "$tmp/u_scale.points")
    expect_eq "user run --scale (delegated): $k worker(s) failed" "$(json_get "$p" failed)" false
    expect_eq "user run --scale (delegated): $k worker(s) group_limit_bytes" "$(json_get "$p" group_limit_bytes)" "$budget"
done
p=$(grep '"workers":2,' "$tmp/u_scale.points")
expect_range "user run --scale (delegated): 2 workers' group peak (MiB)" "$(json_get "$p" peak_bytes)" \
    $((32 * MiB)) $((40 * MiB)) $MiB
# Every copy's cgroup, as it saw it: a count group in $D, its memory.max the
# budget (the kernel keeps whole pages).
grep -- '-scale-' "$udir/scale.cg" >"$tmp/u_scale.cg"
say "   budget $budget; the copies' cgroups: $(sort "$tmp/u_scale.cg" | uniq -c | tr -s ' \n' ' ')"
page_budget=$(awk -v b="${budget:-0}" 'BEGIN { printf "%d", b - b % 4096 }')
n_copies=$(wc -l <"$tmp/u_scale.cg")
n_right=$(grep -c "^/sbq/deleg/spacrbench-run-[^ /]*-scale-[12] $page_budget\$" "$tmp/u_scale.cg")
if [ "$n_copies" -ge 9 ] && [ "$n_right" -eq "$n_copies" ] && [ "$page_budget" -gt 0 ]; then
    ok "user run --scale (delegated): all $n_copies copies ran in /sbq/deleg/spacrbench-run-*-scale-K with memory.max $page_budget (the budget)"
else
    bad "user run --scale (delegated): $n_right of $n_copies copies (9 at least) in /sbq/deleg/spacrbench-run-*-scale-K with memory.max $page_budget: $(tr '\n' ';' <"$udir/scale.cg")"
fi
# The check's own notes (scaling_notes, among the scaling_* members).
sed -n 's/.*"scaling_notes":\(\[[^]]*\]\).*/\1/p' "$tmp/u_scale.flat" >"$tmp/u_scale.line"
expect_contains "user run --scale (delegated): scaling_notes" "$tmp/u_scale.line" "each count's group had the memory budget"
expect_contains "user run --scale (delegated): scaling_notes" "$tmp/u_scale.line" "group peak: a memory cgroup of its own per count (memory.peak), exact"
expect_contains "user run --scale (delegated): scaling_notes" "$tmp/u_scale.line" "groups in $D, delegated to uid $U"
expect_eq "user run --scale (delegated): cgroups left in $D" "$(user_left "$D")" 0

if [ -x "$scale_check" ]; then
    part "-- (f) as uid $U, delegated: check_scale's limits case (count groups in $D)"
    CK_RUN_CASE=limits as_user "$D/session" "$scale_check" >"$tmp/u_check.out" 2>&1
    rc=$?
    say "   $(grep -E 'check_scale|SKIP|Checks|\.c:[0-9]+:' "$tmp/u_check.out" | tr '\n' ' ')"
    if [ "$rc" -eq 0 ] && ! grep -q SKIP "$tmp/u_check.out" && grep -q 'Checks: 2, Failures: 0, Errors: 0' "$tmp/u_check.out"; then
        ok "user check_scale (delegated): an over-budget count is OOM-killed in its group and a limited caller survives"
    else
        bad "user check_scale (delegated) (exit $rc): $(tail -c 600 "$tmp/u_check.out" | tr '\n' ' ')"
    fi
    expect_eq "user check_scale (delegated): cgroups left in $D" "$(user_left "$D")" 0
fi

if [ "$python" != - ] && [ -x "$python" ]; then
    part "-- (f) as uid $U, delegated: Python's scaling check (spacrbench.scale, fork pool)"
    as_user "$D/session" "$python" "$(dirname "$0")/python_scale.py" "groups in $D, delegated to uid $U" \
        >"$tmp/u_py.out" 2>&1
    rc=$?
    while IFS= read -r line; do
        case $line in
        PASS:*) ok "${line#PASS: }" ;;
        FAIL:*) bad "${line#FAIL: }" ;;
        esac
    done <"$tmp/u_py.out"
    grep -q '^PASS' "$tmp/u_py.out" || bad "python as the user (exit $rc): $(tail -c 600 "$tmp/u_py.out" | tr '\n' ' ')"
    expect_eq "user python (delegated): cgroups left in $D" "$(user_left "$D")" 0
else
    say "SKIP: (f) Python's scaling check as the user: no python with spacrbench given (run.sh found no wheel)"
fi

# Alone in a cgroup of its own that is the user's (systemd-run --user
# --scope, a container's init): it moves into a leaf and undoes it all
# (the command does the same as root in part b).
delegate_check=$(dirname "$sb")/tests/c/check_delegate
if [ -x "$delegate_check" ]; then
    part "-- (f) as uid $U alone in $E (its own, delegated): check_delegate's real leaf"
    CK_FORK=no CK_RUN_CASE=real bounded sh -c 'echo $$ >"$1/cgroup.procs" || exit 125; shift; exec setpriv --reuid=4242 --regid=4242 --clear-groups "$@"' \
        sh "$E" "$delegate_check" >"$tmp/u_deleg.out" 2>&1
    rc=$?
    say "   $(grep -E 'check_delegate|SKIP|Checks|\.c:[0-9]+:' "$tmp/u_deleg.out" | tr '\n' ' ')"
    if [ "$rc" -eq 0 ] && ! grep -q SKIP "$tmp/u_deleg.out" && grep -q 'Checks: 1, Failures: 0, Errors: 0' "$tmp/u_deleg.out"; then
        ok "user check_delegate (own cgroup): the leaf measures a child exactly and is undone"
    else
        bad "user check_delegate (own cgroup) (exit $rc): $(tail -c 600 "$tmp/u_deleg.out" | tr '\n' ' ')"
    fi
    expect_eq "user check_delegate (own cgroup): $E/cgroup.subtree_control afterwards" "$(cat "$E/cgroup.subtree_control")" ""
    expect_eq "user check_delegate (own cgroup): cgroups left in $E" "$(find "$E" -mindepth 1 -type d | wc -l)" 0
else
    say "SKIP: (f) the leaf as the user: $delegate_check not built (run.sh BUILD_DIR with the Check suites)"
fi

# Nothing delegated: a leaf of root's.
part "-- (f) as uid $U in $T/rootleaf (root's, nothing delegated): spacrbench run 64 MiB falls back"
as_user "$T/rootleaf" "$sb" run --json --quiet 64 -- "$helper" {} 200 >"$tmp/u_none.json" 2>"$tmp/u_none.err"
expect_eq "user run (none): exit status" "$?" 0
m=$(json_line "$tmp/u_none.json" measurement)
printf '%s\n' "$m" >"$tmp/u_none.meas"
expect_eq "user run (none): peak_method" "$(json_get "$m" peak_method)" child_rusage
expect_contains "user run (none): notes" "$tmp/u_none.meas" "no usable cgroup v2: this process's $T/rootleaf is not writable for uid $U (owner uid 0)"
say "   sampled: $(grep -o 'alive together, sampled [^;]*' "$tmp/u_none.meas")"
rec=$(printf '%s' "$m" | grep -o '"item":"64"[^}]*')
expect_range "user run (none): item 64 MiB peak (MiB)" "$(json_get "$rec" peak_rss_bytes)" \
    $((64 * MiB)) $((72 * MiB)) $MiB

say "timing: parts a-e $((t_f - t_begin)) s, part f (as a user) $(($(uptime_s) - t_f)) s"
echo $$ >"$CG/cgroup.procs"
finish
