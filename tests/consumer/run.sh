#!/usr/bin/env bash
# Installs spacrbench to a temporary prefix and builds tests/consumer against
# it twice: (a) find_package via CMAKE_PREFIX_PATH, (b) pkg-config via
# PKG_CONFIG_PATH, linked with the line docs/building.md documents for a
# prefix the loader does not search; then (c) a C++ program against the same
# header (consumer_cxx.cpp, C++11 and C++17). Runs each and checks its
# output; then (d) the cross builds exactly as docs/platforms.md documents
# them (cross_builds.sh); then (e) docs/building.md's PATH and XDG_DATA_DIRS
# lines: man and bash-completion find the prefix's page and completion
# (bash-completion and man-db are installed when missing and root). Usage:
#   tests/consumer/run.sh [BUILD_DIR]   (default: a fresh build of the tree)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
doc=$repo/docs/building.md

# documented START: the one command line of docs/building.md (an indented
# line) that begins with START, its /opt/spacrbench being this prefix.
documented() {
    local lines
    lines=$(awk -v start="$1" '/^    / { l = $0; sub(/^ +/, "", l);
        if (index(l, start) == 1) print l }' "$doc" | sort -u)
    if [ "$(printf '%s' "$lines" | grep -c '')" -ne 1 ]; then
        echo "FAIL: expected one line '$1...' in $doc, found: '$lines'" >&2
        return 1
    fi
    printf '%s\n' "${lines//\/opt\/spacrbench/$prefix}"
}

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
# With pkg-config's flags alone the loader does not find the library in a
# prefix of its own: the failure docs/building.md explains (unless this
# machine has one installed where the loader looks).
if system_lib=$(ldconfig -p 2>/dev/null | grep -F 'libspacrbench.so.1 '); then
    echo "SKIPPED PART: the loader has a libspacrbench.so.1 of its own: $system_lib"
elif env -u LD_LIBRARY_PATH "$work/consumer-pc" > "$work/pc-plain.log" 2>&1; then
    echo "FAIL: started without LD_LIBRARY_PATH or RUNPATH; docs/building.md says it cannot"
    exit 1
elif grep -q 'libspacrbench.so.1: cannot open shared object file' "$work/pc-plain.log"; then
    echo "ok: linked with pkg-config's flags alone it stops: $(cat "$work/pc-plain.log")"
else
    echo "FAIL: not the loader's message docs/building.md quotes:"
    cat "$work/pc-plain.log"
    exit 1
fi
# The documented line, as written (app.c being consumer.c), then the program
# started without LD_LIBRARY_PATH.
pc_line=$(documented 'export PKG_CONFIG_PATH=/opt/spacrbench/')
# shellcheck disable=SC2016  # the line as written, $(...) included
link_line=$(documented 'cc app.c $(pkg-config')
echo "documented: $pc_line"
echo "documented: $link_line"
mkdir -p "$work/pc"
(
    [ "$libdir" = "$prefix/lib" ] && eval "$pc_line" # the docs' lib; not a Debian /usr libdir
    cd "$work/pc"
    eval "${link_line/app.c/$here/consumer.c}"
    env -u LD_LIBRARY_PATH ./a.out
) > "$work/pc.log" 2>&1 || { cat "$work/pc.log"; exit 1; }
check_output "pkg-config, the documented line, no LD_LIBRARY_PATH" "$work/pc.log"

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

echo "== (e) docs/building.md's PATH and XDG_DATA_DIRS lines: man, bash-completion"
# have PACKAGE FILE: FILE exists, after installing PACKAGE (Debian's) as
# .ci/run would when it is missing and we are root; otherwise a visible skip.
have() {
    [ -e "$2" ] && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        { apt-get install -y -q --no-install-recommends "$1" ||
            { apt-get update -q && apt-get install -y -q --no-install-recommends "$1"; }; } \
            > "$work/apt.log" 2>&1 || { cat "$work/apt.log"; exit 1; }
        [ -e "$2" ] && return 0
    fi
    echo "SKIPPED PART: $2 is missing (apt-get install $1)"
    return 1
}
path_line=$(documented 'export PATH=/opt/spacrbench/bin:')
xdg_line=$(documented 'export XDG_DATA_DIRS=/opt/spacrbench/share:')
echo "documented: $path_line"
echo "documented: $xdg_line"
# A shell with none of this user's or machine's settings: an empty home and
# working directory, no XDG_DATA_DIRS, MANPATH or BASH_COMPLETION_USER_DIR.
mkdir -p "$work/home" "$work/cwd"
clean_shell() { # clean_shell SCRIPT
    (cd "$work/cwd" && env -u XDG_DATA_DIRS -u XDG_DATA_HOME -u MANPATH \
        -u BASH_COMPLETION_USER_DIR HOME="$work/home" bash --norc --noprofile -c "$1")
}
page=$prefix/share/man/man1/spacrbench.1
if have man-db /usr/bin/man; then
    found=$(clean_shell "$path_line; man -w spacrbench" 2>&1) || true
    [ "$found" = "$page" ] || { echo "FAIL: with the PATH line man -w found '$found', not $page"; exit 1; }
    without=$(clean_shell "man -w spacrbench" 2>&1) || true
    [ "$without" != "$page" ] || { echo "FAIL: man found the page without the PATH line"; exit 1; }
    echo "ok: man -w spacrbench: $found (without the PATH line: ${without:-nothing})"
fi
# What bash does on TAB: bash-completion's loader finds the command's file,
# then the function it defined completes COMP_WORDS. Prints the file the
# function came from, then the reply to each of "run --sc" and "run --scale ".
# shellcheck disable=SC2016  # run by the clean shell, not expanded here
tab='. /usr/share/bash-completion/bash_completion
_completion_loader spacrbench
spec=$(complete -p spacrbench) || exit 1
func=${spec#*-F }; func=${func%% *}
shopt -s extdebug; set -- $(declare -F "$func"); shopt -u extdebug; echo "${3:-}"
reply() {
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    COMPREPLY=(); "$func" spacrbench "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    echo "${COMPREPLY[*]}"
}
reply spacrbench run --sc
reply spacrbench run --scale ""'
completion=$prefix/share/bash-completion/completions/spacrbench
if have bash-completion /usr/share/bash-completion/bash_completion; then
    clean_shell "$xdg_line; $tab" > "$work/tab.log" 2>&1 || { cat "$work/tab.log"; exit 1; }
    # The --sc options the installed command's help lists, in any order.
    want_sc=$("$prefix/bin/spacrbench" run --help | grep -o -- '--sc[a-z-]*' | sort -u | xargs)
    got_sc=$(sed -n 2p "$work/tab.log" | tr ' ' '\n' | sort -u | xargs)
    if [ "$(sed -n 1p "$work/tab.log")" != "$completion" ] || [ "$got_sc" != "$want_sc" ] ||
        [ "$(sed -n 3p "$work/tab.log")" != auto ]; then
        echo "FAIL: bash-completion with the XDG_DATA_DIRS line (wanted $completion;"
        echo "      '$want_sc'; 'auto'):"
        sed 's/^/    /' "$work/tab.log"
        exit 1
    fi
    echo "ok: bash-completion loads $completion"
    echo "ok: spacrbench run --sc<TAB>: $(sed -n 2p "$work/tab.log")"
    echo "ok: spacrbench run --scale <TAB>: $(sed -n 3p "$work/tab.log")"
    clean_shell "$tab" > "$work/tab-without.log" 2>&1 || true
    if [ "$(sed -n 1p "$work/tab-without.log")" = "$completion" ]; then
        echo "FAIL: bash-completion found the prefix's completion without the XDG_DATA_DIRS line"
        exit 1
    fi
    echo "ok: without the XDG_DATA_DIRS line bash-completion does not find it" \
        "(bash-completion $(dpkg-query -W -f='${Version}' bash-completion 2>/dev/null || echo '?'))"
fi
echo "== consumer test passed"
