#!/usr/bin/env bash
# Check the VRAM measurement on a machine with an NVIDIA GPU (< 3 minutes),
# each figure against its truth:
#   1. a benchmark that never touches the GPU reports 0 and leaves no CUDA
#      context (nvidia-smi does not list the process);
#   2. a benchmark whose items create the CUDA context alone, then allocate
#      1 GiB and 3 GiB with cudaMalloc: the context is named, and each peak
#      is the allocation plus the context (run peak < 3 GiB + 1 GiB);
#   3. `spacrbench --gpu` (the CUDA build of the command) runs the field
#      workload on the device: its peak is the workload's device buffers
#      (device_bytes_per_field) plus the context, under 1 GiB of slack;
#   4. `spacrbench run` measures the 3 GiB of vram_alloc started by a shell
#      (a process tree), per item.
# It ends with a Markdown table of every figure (truth, measured,
# difference) for docs/gpu.md.
# Usage: tests/gpu/run_gpu_check.sh [build-dir]   (default: build-gpucheck)
# Set COMPILE_ONLY=1 to build the programs without running them (machines
# without a GPU; CI does). Exit status: 0 pass, 1 fail, 2 nothing to run on.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-gpucheck}
jobs=$(nproc 2>/dev/null || echo 2)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
GiB=$((1 << 30))

echo "== build the library and the CUDA command ($build)"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSPACRBENCH_BUILD_TESTS=OFF -DSPACRBENCH_CUDA=ON \
      -DCMAKE_CUDA_COMPILER="$nvcc" >/dev/null
cmake --build "$build" -j "$jobs" --target spacrbench spacrbench_cli >/dev/null
lib_dir=$(dirname "$(find "$build" -name 'libspacrbench.so.1' -print -quit)")

echo "== compile the check programs"
"$nvcc" -O2 -I "$root/include" "$root/tests/gpu/vram_alloc.cu" -o "$build/vram_alloc" \
        -L "$lib_dir" -lspacrbench -Xlinker -rpath -Xlinker "$lib_dir"
cc -std=c11 -O2 -Wall -Wextra -Werror -I "$root/include" "$root/tests/gpu/vram_idle.c" -o "$build/vram_idle" \
   -L "$lib_dir" -lspacrbench -Wl,-rpath,"$lib_dir"
if [ "${COMPILE_ONLY:-0}" = 1 ]; then
    echo "COMPILE_ONLY=1: built $build/spacrbench (CUDA), $build/vram_alloc and $build/vram_idle"
    exit 0
fi

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: no NVIDIA GPU or driver here (nvidia-smi -L failed)"
    exit 2
fi
echo "== where this runs"
echo "kernel $(uname -sr), $("$nvcc" --version | tail -n 1)"
nvidia-smi --query-gpu=index,name,driver_version,memory.total,memory.used,persistence_mode \
           --format=csv,noheader
echo "this shell: $(grep NSpid /proc/self/status), pid namespace $(readlink /proc/self/ns/pid)"

figures=$build/figures.txt
: >"$figures"
status=0
note_status() { # RC: 0 pass, 2 skip (kept unless something failed), else fail
    case $1 in
        0) ;;
        2) if [ $status -eq 0 ]; then status=2; fi ;;
        *) status=1 ;;
    esac
}
for prog in vram_idle vram_alloc; do
    echo "== $prog"
    set +e
    timeout 120 "$build/$prog" | tee "$build/$prog.out"
    rc=${PIPESTATUS[0]}
    set -e
    grep '^figure|' "$build/$prog.out" >>"$figures" || true
    note_status "$rc"
done

json_value() { # FILE EXPR: a value of the JSON document d, None when absent
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null \
        || echo None
}
# check_cli NAME LABEL TRUTH-EXPR MEASURED-EXPR -- spacrbench arguments
# (with --json before any `--`): passes when TRUTH <= MEASURED < TRUTH +
# 1 GiB (the context's slack); a null figure (VRAM not measurable here)
# skips, with the notes that say why.
check_cli() {
    local name=$1 label=$2 truth_expr=$3 measured_expr=$4
    shift 5
    echo "== $name: spacrbench $*"
    set +e
    timeout 300 "$build/spacrbench" "$@" >"$build/$name.json"
    local rc=$?
    set -e
    local truth measured
    truth=$(json_value "$build/$name.json" "$truth_expr")
    measured=$(json_value "$build/$name.json" "$measured_expr")
    echo "exit $rc; truth $truth_expr = $truth; measured $measured_expr = $measured"
    if [ $rc -ne 0 ] || [ "$truth" = None ]; then
        echo "FAIL: spacrbench exited $rc or its JSON lacks the truth"
        status=1
        return
    fi
    if [ "$measured" = None ]; then
        json_value "$build/$name.json" "'\\n'.join(d['measurement']['notes'])"
        echo "SKIP: VRAM not measured here (the notes above say why)"
        note_status 2
        echo "figure|$label|$truth|-1" >>"$figures"
        return
    fi
    echo "figure|$label|$truth|$measured" >>"$figures"
    if [ "$measured" -lt "$truth" ] || [ "$measured" -ge $((truth + GiB)) ]; then
        echo "FAIL: want $truth <= measured < $truth + 1 GiB"
        status=1
    fi
}
check_cli spacrbench_gpu "spacrbench --gpu 4096x4096x4, truth the device buffers of one field" \
    "d['workload']['device_bytes_per_field']" "d['measurement']['peak_vram_bytes']" -- \
    --json --gpu --size 4096x4096 --fields 2
check_cli run_tree "spacrbench run: vram_alloc under sh, truth 3 GiB" \
    "$((3 * GiB))" "d['measurement']['records'][0]['peak_vram_bytes']" -- \
    run --json x -- sh -c "'$build/vram_alloc' >/dev/null; true"

echo "== figures (MiB; for docs/gpu.md)"
python3 - "$figures" <<'EOF'
import sys
MiB = 1 << 20
print("| figure | truth | measured | measured - truth |")
print("|---|---:|---:|---:|")
for line in open(sys.argv[1]):
    _, label, truth, measured = line.rstrip("\n").split("|")
    truth, measured = int(truth), int(measured)
    if measured < 0:
        cells = ("%.1f" % (truth / MiB) if truth >= 0 else "-", "not measured", "-")
    elif truth < 0:
        cells = ("-", "%.1f" % (measured / MiB), "-")
    else:
        cells = ("%.1f" % (truth / MiB), "%.1f" % (measured / MiB),
                 "%+.1f" % ((measured - truth) / MiB))
    print("| %s | %s | %s | %s |" % ((label,) + cells))
EOF
echo "== result: $([ $status -eq 0 ] && echo PASS || ([ $status -eq 2 ] && echo SKIPPED || echo FAIL))"
exit $status
