#!/usr/bin/env bash
# Installs spacrbench to a temporary prefix and builds tests/consumer against
# it twice: (a) find_package via CMAKE_PREFIX_PATH, (b) pkg-config via
# PKG_CONFIG_PATH; then (c) a C++ program against the same header
# (consumer_cxx.cpp, C++11 and C++17). Runs each and checks its output; then
# (d) the cross builds exactly as docs/platforms.md documents them
# (cross_builds.sh). Usage:
#   tests/consumer/run.sh [BUILD_DIR]   (default: a fresh build of the tree)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

build=${1:-}
if [ -z "$build" ]; then
    build=$work/build
    cmake -S "$repo" -B "$build" -DSPACRBENCH_BUILD_TESTS=OFF
    cmake --build "$build" -j2
fi
cmake --install "$build" --prefix "$prefix"
libdir=$(dirname "$(find "$prefix" -name libspacrbench.so.1 -print -quit)")

echo "== installed files"
(cd "$prefix" && find . \( -type f -o -type l \) | sort)
echo "== SONAME links"
for name in libspacrbench.so libspacrbench.so.1; do
    printf '%s -> %s\n' "$name" "$(readlink "$libdir/$name")"
done
[ "$(readlink "$libdir/libspacrbench.so")" = libspacrbench.so.1 ]
[ -f "$libdir/$(readlink "$libdir/libspacrbench.so.1")" ]
# The build tree's RPATH must not leak into the installed library.
if readelf -d "$libdir/libspacrbench.so.1" | grep -E 'RPATH|RUNPATH' | grep -q "$build"; then
    echo "FAIL: installed library still points into the build tree:"
    readelf -d "$libdir/libspacrbench.so.1" | grep -E 'RPATH|RUNPATH'
    exit 1
fi

check_output() { # check_output LABEL LOG
    if grep -q '^consumer OK: spacrbench ' "$2"; then
        echo "ok: $1: $(grep '^consumer OK' "$2")"
    else
        echo "FAIL: $1: no 'consumer OK' line; output:"
        sed 's/^/    /' "$2"
        return 1
    fi
}

# The command, when built, must run from the prefix against the installed
# library (its RPATH is $ORIGIN/../LIBDIR), not the build tree's.
if [ -x "$prefix/bin/spacrbench" ]; then
    echo "== installed command"
    version_line=$(env -u LD_LIBRARY_PATH "$prefix/bin/spacrbench" --version)
    echo "$version_line"
    case $version_line in
        "spacrbench "*) ;;
        *) echo "FAIL: unexpected --version output"; exit 1 ;;
    esac
    loaded=$(env -u LD_LIBRARY_PATH ldd "$prefix/bin/spacrbench" \
        | sed -n 's/^[[:space:]]*libspacrbench\.so\.1 => \(.*\) (0x.*/\1/p')
    if [ -z "$loaded" ] || [ "$(readlink -f "$loaded")" != "$(readlink -f "$libdir/libspacrbench.so.1")" ]; then
        echo "FAIL: installed command loads '${loaded}', not $libdir/libspacrbench.so.1"
        exit 1
    fi
    echo "ok: installed command loads the installed library"
fi

echo "== (a) find_package(spacrbench 1) with CMAKE_PREFIX_PATH"
cmake -S "$here" -B "$work/consumer-cmake" -DCMAKE_PREFIX_PATH="$prefix"
cmake --build "$work/consumer-cmake"
# CMake records the imported library's directory in the build RPATH.
"$work/consumer-cmake/consumer" > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; exit 1; }
check_output find_package "$work/cmake.log"

echo "== find_package(spacrbench 2) must be refused (SameMajorVersion)"
mkdir -p "$work/wrong-major"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(wrong_major LANGUAGES NONE)\nfind_package(spacrbench 2 REQUIRED)\n' \
    > "$work/wrong-major/CMakeLists.txt"
if cmake -S "$work/wrong-major" -B "$work/wrong-major/build" -DCMAKE_PREFIX_PATH="$prefix" \
        > "$work/wrong-major.log" 2>&1; then
    echo "FAIL: a 1.x install satisfied find_package(spacrbench 2)"
    exit 1
fi
grep -q 'spacrbenchConfig.cmake, version: 1' "$work/wrong-major.log"
echo "ok: refused, as a different major version must be"

echo "== (b) pkg-config with PKG_CONFIG_PATH"
export PKG_CONFIG_PATH=$libdir/pkgconfig
echo "pkg-config --cflags --libs spacrbench: $(pkg-config --cflags --libs spacrbench)"
[ "$(pkg-config --modversion spacrbench)" = "$(sed -n 's/^project(spacrbench VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")" ]
static_libs=$(pkg-config --static --libs spacrbench)
for lib in -lpthread -ldl -lm; do
    case " $static_libs " in *" $lib "*) ;; *) echo "FAIL: --static --libs lacks $lib: $static_libs"; exit 1 ;; esac
done
# shellcheck disable=SC2046  # word splitting of pkg-config's flags is wanted
${CC:-cc} -std=c11 -Wall -Wextra -Werror "$here/consumer.c" -o "$work/consumer-pc" \
    $(pkg-config --cflags --libs spacrbench)
LD_LIBRARY_PATH=$libdir "$work/consumer-pc" > "$work/pc.log" 2>&1 || { cat "$work/pc.log"; exit 1; }
check_output pkg-config "$work/pc.log"

echo "== (c) C++: the installed header compiles and links from C++"
cxx=${CXX:-c++}
if command -v "$cxx" >/dev/null; then
    for std in c++11 c++17; do
        # shellcheck disable=SC2046  # word splitting of pkg-config's flags is wanted
        "$cxx" -std=$std -Wall -Wextra -Wpedantic -Werror "$here/consumer_cxx.cpp" \
            -o "$work/consumer-cxx" $(pkg-config --cflags --libs spacrbench)
        LD_LIBRARY_PATH=$libdir "$work/consumer-cxx" > "$work/cxx.log" 2>&1 ||
            { cat "$work/cxx.log"; exit 1; }
        if grep -q '^consumer_cxx OK: ' "$work/cxx.log"; then
            echo "ok: -std=$std: $(cat "$work/cxx.log")"
        else
            echo "FAIL: -std=$std: no 'consumer_cxx OK' line; output:"
            sed 's/^/    /' "$work/cxx.log"
            exit 1
        fi
    done
else
    echo "skipped: no C++ compiler ('$cxx' not found)"
fi
echo "== (d) the documented Windows and macOS cross builds, on this machine with a host libcheck"
bash "$here/cross_builds.sh"
echo "== consumer test passed"
