# Shared by check.sh and update.sh (sourced, bash). Sets $repo, $baseline
# and $headers (SB_ABI_BASELINE / SB_ABI_HEADERS override them, for the
# self-test) and provides sb_abi_library, which sets $lib.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
baseline=${SB_ABI_BASELINE:-$repo/tests/abi/libspacrbench.abi}
headers=${SB_ABI_HEADERS:-$repo/include}

for tool in abidw abidiff; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "$tool not found: install the Debian package 'abigail-tools'" >&2
        exit 1
    fi
done

# sb_abi_library [LIBRARY]: sets $lib to the given library, or to a fresh
# RelWithDebInfo build of the library alone (abidw needs its DWARF) in a
# temporary directory that is removed on exit.
sb_abi_library() {
    if [ $# -ge 1 ] && [ -n "$1" ]; then
        if [ ! -f "$1" ]; then
            echo "no such library: $1" >&2
            exit 1
        fi
        lib=$1
        return
    fi
    sb_abi_build=$(mktemp -d)
    trap 'rm -rf "$sb_abi_build"' EXIT
    cmake -S "$repo" -B "$sb_abi_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DSPACRBENCH_BUILD_TESTS=OFF -DSPACRBENCH_BUILD_CLI=OFF >&2
    cmake --build "$sb_abi_build" --target spacrbench -j2 >&2
    lib=$sb_abi_build/src/libspacrbench.so.1
}
