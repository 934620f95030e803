#!/usr/bin/env bash
# The cgroup v2 suite on a real kernel: boots Debian's kernel under QEMU
# (TCG: a KVM boot hung on the development machine) with only the unified
# hierarchy (cgroup_no_v1=all), the host's tree shared read-only by
# virtme-ng, and runs tests/qemu/inside.sh there as root against this
# build's spacrbench and test helper. See docs/cgroup-v2.md.
#
#   tests/qemu/run.sh            # installs what is missing, builds into build-ci/qemu
#   tests/qemu/run.sh BUILD_DIR  # uses an existing build (spacrbench, tests/c/cli/sbtest_alloc_touch)
#
# Environment: QEMU_TIMEOUT (seconds for boot + suite, default 300),
# QEMU_MEMORY (default 1536M), QEMU_KERNEL (default the newest /boot/vmlinuz-*),
# QEMU_WORK (where the venv, console log and results go; default build-ci/qemu).
#
# Exit: 0 every check passed; 1 a check failed (or the suite died midway);
# 200 the machine cannot boot the kernel ("SKIP: qemu cgroup v2 suite: <reason>").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${QEMU_WORK:-$repo/build-ci/qemu}
timeout_s=${QEMU_TIMEOUT:-300}
memory=${QEMU_MEMORY:-1536M}
export DEBIAN_FRONTEND=noninteractive

skip() {
    echo "SKIP: qemu cgroup v2 suite: $*"
    exit 200
}

pgid=
stop_qemu() {
    # vng, virtme-run and qemu share the process group made by setsid.
    if [ -n "$pgid" ] && kill -0 -- "-$pgid" 2>/dev/null; then
        kill -TERM -- "-$pgid" 2>/dev/null || true
        for _ in 1 2 3 4 5; do
            kill -0 -- "-$pgid" 2>/dev/null || break
            sleep 1
        done
        kill -KILL -- "-$pgid" 2>/dev/null || true
    fi
    pgid=
}
trap stop_qemu EXIT
trap 'stop_qemu; exit 130' INT
trap 'stop_qemu; exit 143' TERM

# --- what it needs ---------------------------------------------------------
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v busybox >/dev/null || need+=(busybox-static)
compgen -G '/boot/vmlinuz-*' >/dev/null || need+=(linux-image-amd64)
for p in python3-venv python3-pip cmake build-essential; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}"
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
    { "${sudo[@]}" apt-get update -q && "${sudo[@]}" apt-get install -y -q --no-install-recommends "${need[@]}"; } ||
        skip "cannot install ${need[*]}"
fi
[ "$(uname -m)" = x86_64 ] || skip "needs an x86_64 host (this is $(uname -m))"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing after install"
kernel=${QEMU_KERNEL:-$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)}
[ -n "$kernel" ] && [ -r "$kernel" ] || skip "no readable /boot/vmlinuz-* (${kernel:-none}) after install"

mkdir -p "$work"
venv=$work/venv
if [ ! -x "$venv/bin/vng" ]; then
    python3 -m venv "$venv" || skip "cannot create a venv for virtme-ng"
    "$venv/bin/pip" install -q --disable-pip-version-check virtme-ng || skip "pip cannot install virtme-ng"
fi
export PATH=$venv/bin:$PATH # vng runs virtme-run from PATH

# --- the binaries --------------------------------------------------------
if [ $# -ge 1 ]; then
    build=$(cd "$1" && pwd)
else
    build=$work/build
    cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSPACRBENCH_WERROR=ON >/dev/null
    cmake --build "$build" -j2 --target spacrbench_cli
    # The helper comes with the Check suites; build it alone when they are not configured.
    # (check_scale and check_delegate, for parts d and f, only with them.)
    cmake --build "$build" -j2 --target check_scale check_delegate >/dev/null 2>&1 || true
    if ! cmake --build "$build" -j2 --target sbtest_alloc_touch 2>/dev/null; then
        mkdir -p "$build/tests/c/cli"
        cc -O2 -D_GNU_SOURCE -o "$build/tests/c/cli/sbtest_alloc_touch" "$repo/tests/c/cli/helper_alloc_touch.c"
    fi
fi
sb=$build/spacrbench
helper=$build/tests/c/cli/sbtest_alloc_touch
for f in "$sb" "$helper"; do
    [ -x "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done

# Python's scaling check as a user (part f): the wheel the Python stage kept
# (build-ci/python), in a venv of /usr/bin/python3 the user can run; none:
# that part says SKIP.
python=-
wheel=$(ls -t "$repo"/build-ci/python/spacrbench-*.whl 2>/dev/null | head -1 || true)
if [ -n "$wheel" ] && [ -x /usr/bin/python3 ]; then
    pyvenv=$work/pyvenv
    rm -rf "$pyvenv"
    if /usr/bin/python3 -m venv "$pyvenv" &&
        "$pyvenv/bin/pip" install -q --disable-pip-version-check "$wheel"; then
        chmod -R a+rX "$pyvenv"
        python=$pyvenv/bin/python
    else
        echo "warning: no venv with $wheel: Python's part is skipped"
    fi
fi

# --- boot -----------------------------------------------------------------
results=$work/results
rm -rf "$results"
mkdir -p "$results"
console=$work/console.log
echo "booting $kernel under TCG (2 CPUs, $memory, cgroup_no_v1=all), limit ${timeout_s}s"
start=$SECONDS
printf -v inside 'sh %q %q %q %q %q' "$here/inside.sh" "$sb" "$helper" "$results/results.txt" "$python"
setsid vng --disable-kvm --run "$kernel" --memory "$memory" --cpus 2 \
    --append "cgroup_no_v1=all systemd.unified_cgroup_hierarchy=1" \
    --rwdir "$results" \
    --exec "$inside" \
    </dev/null >"$console" 2>&1 &
pgid=$!
timed_out=0
while kill -0 "$pgid" 2>/dev/null; do
    if [ $((SECONDS - start)) -ge "$timeout_s" ]; then
        timed_out=1
        break
    fi
    sleep 1
done
vng_rc=0
if [ "$timed_out" -eq 1 ]; then
    stop_qemu
else
    wait "$pgid" || vng_rc=$?
    stop_qemu # anything it left in its group
fi
elapsed=$((SECONDS - start))
res=$results/results.txt

if [ ! -s "$res" ] || ! head -1 "$res" | grep -qx BEGIN; then
    # The suite never started: the machine could not boot the kernel.
    echo "console (last 30 lines):"
    tail -30 "$console" | sed 's/^/  | /'
    if [ "$timed_out" -eq 1 ]; then
        skip "the VM did not start the suite within ${timeout_s}s (boot too slow or hung; console: $console)"
    fi
    skip "the VM exited (status $vng_rc) before the suite started (console: $console)"
fi

cat "$res"
if grep -q '^KNOWN FAILURE' "$res"; then
    echo "!!! known failures (not passes; see docs/cgroup-v2.md):"
    grep '^KNOWN FAILURE' "$res" | sed 's/^/!!!   /'
fi
last=$(tail -1 "$res")
case $last in
END\ pass=*\ fail=0\ known=*)
    echo "qemu cgroup v2 suite: ${last#END } in ${elapsed}s (boot and suite)"
    exit 0
    ;;
END\ *)
    echo "qemu cgroup v2 suite FAILED: ${last#END } in ${elapsed}s"
    exit 1
    ;;
*)
    echo "console (last 40 lines):"
    tail -40 "$console" | sed 's/^/  | /'
    echo "qemu cgroup v2 suite FAILED: it did not finish ($([ "$timed_out" -eq 1 ] && echo "killed after ${timeout_s}s" || echo "vng exited with $vng_rc"))"
    exit 1
    ;;
esac
