#!/usr/bin/env bash
# Check the VRAM measurement on a machine with an NVIDIA GPU (< 3 minutes):
#   1. a benchmark allocating 1 GiB then 3 GiB with cudaMalloc reports a
#      peak of 3 GiB plus the CUDA context (under 1 GiB of slack);
#   2. a benchmark that never touches the GPU reports 0 and leaves no CUDA
#      context (nvidia-smi does not list the process);
#   3. `spacrbench --gpu` (the CUDA build of the command) runs the field
#      workload on the device and measures a VRAM peak above 0;
#   4. `spacrbench run` measures the 3 GiB of vram_alloc started by a shell
#      (a process tree), per item.
# Usage: tests/gpu/run_gpu_check.sh [build-dir]   (default: build-gpucheck)
# Set COMPILE_ONLY=1 to build the programs without running them (machines
# without a GPU). Exit status: 0 pass, 1 fail, 2 nothing to run on.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-gpucheck}
jobs=$(nproc 2>/dev/null || echo 2)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

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
    echo "COMPILE_ONLY=1: built $build/vram_alloc and $build/vram_idle"
    exit 0
fi

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: no NVIDIA GPU or driver here (nvidia-smi -L failed)"
    exit 2
fi
nvidia-smi --query-gpu=index,name,memory.total,memory.used,persistence_mode \
           --format=csv,noheader

status=0
for prog in vram_idle vram_alloc; do
    echo "== $prog"
    set +e
    timeout 120 "$build/$prog"
    rc=$?
    set -e
    case $rc in
        0) ;;
        2) [ $status -eq 0 ] && status=2 ;;
        *) status=1 ;;
    esac
done
json_value() { # FILE EXPR: a value of the JSON document d
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
check_cli() { # NAME MIN_BYTES EXPR -- spacrbench arguments
    local name=$1 min=$2 expr=$3
    shift 4
    echo "== $name"
    set +e
    timeout 300 "$build/spacrbench" "$@" --json >"$build/$name.json"
    local rc=$?
    set -e
    local got
    got=$(json_value "$build/$name.json" "$expr" 2>/dev/null || echo None)
    echo "exit $rc, $expr = $got (want >= $min)"
    if [ $rc -ne 0 ] || [ "$got" = None ] || [ "$got" -lt "$min" ]; then status=1; fi
}
check_cli spacrbench_gpu 1 "d['measurement']['peak_vram_bytes']" -- \
    --gpu --size 4096x4096 --fields 2
check_cli run_tree $((3 << 30)) "d['measurement']['records'][0]['peak_vram_bytes']" -- \
    run x -- sh -c "'$build/vram_alloc' >/dev/null; true"
echo "== result: $([ $status -eq 0 ] && echo PASS || ([ $status -eq 2 ] && echo SKIPPED || echo FAIL))"
exit $status
