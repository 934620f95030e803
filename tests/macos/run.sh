#!/usr/bin/env bash
# macOS compile and link checks, without a Mac: cross-builds libspacrbench
# for x86_64 and arm64 macOS with zig's clang, headers and libSystem stubs
# (cmake/toolchain-zig-macos.cmake, -Werror), then checks for each:
#  - the library is a Mach-O dylib of that architecture, with an @rpath
#    install name, needing nothing but libSystem;
#  - its exported symbols are exactly the names of src/libspacrbench.map,
#    each declared SPACRBENCH_EXTERN in a public header, and the generated
#    -exported_symbols_list says the map;
#  - tests/consumer/consumer.c, tests/macos/api_links.c (discover +
#    benchmark) and a program taking the address of every declared function
#    compile with -Werror and link against it.
# Nothing built here runs. Installs ziglang (pip) and llvm's nm/objdump
# (apt) when missing; exits non-zero with the reason when it cannot.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
targets=(x86_64-macos.11.0 aarch64-macos.11.0)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

python=${PYTHON:-python3}
if ! "$python" -m ziglang version >/dev/null 2>&1; then
    echo "ziglang missing for $python: pip install ziglang"
    if ! "$python" -m pip install --quiet ziglang 2> "$work/pip.log"; then
        # A distribution's python3 may refuse (PEP 668): a throwaway venv.
        echo "pip refused ($(tail -n 1 "$work/pip.log")); installing into a temporary venv"
        if ! "$python" -m venv "$work/venv" > /dev/null 2>&1 ||
            ! "$work/venv/bin/python" -m pip install --quiet ziglang; then
            fail "cannot install ziglang with pip (offline?); zig's clang is needed"
        fi
        python=$work/venv/bin/python
    fi
    "$python" -m ziglang version >/dev/null 2>&1 || fail "ziglang installed but does not run"
fi
echo "zig $("$python" -m ziglang version) via $python"

# llvm-nm/llvm-objdump read Mach-O; binutils cannot. Any version will do.
find_llvm() { # find_llvm TOOL: the path of TOOL or TOOL-N
    local t
    for t in "$1" $(compgen -c "$1-" | grep -E "^$1-[0-9]+$" | sort -t- -k3 -rn); do
        command -v "$t" && return 0
    done
    return 1
}
if ! find_llvm llvm-nm >/dev/null || ! find_llvm llvm-objdump >/dev/null; then
    echo "llvm-nm/llvm-objdump missing: apt-get install llvm"
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        { apt-get update -q && apt-get install -y -q --no-install-recommends llvm; } >/dev/null ||
            fail "apt-get install llvm failed"
    fi
fi
nm=$(find_llvm llvm-nm) || fail "no llvm-nm (Debian: apt-get install llvm) to read Mach-O symbols"
objdump=$(find_llvm llvm-objdump) || fail "no llvm-objdump (Debian: apt-get install llvm)"
command -v cmake >/dev/null || fail "no cmake"

# The map's names, one a line (it names every symbol: tests/abi checks it).
map=$repo/src/libspacrbench.map
sed 's:/\*.*\*/::' "$map" | tr -s ' \t\n' ' ' | grep -o 'global:[^}]*' |
    grep -o 'spacrbench_[A-Za-z0-9_*]*' | awk '!seen[$0]++' > "$work/map-names"
sort "$work/map-names" > "$work/expected"
[ -s "$work/expected" ] || fail "no names read from $map"

# Functions the public headers declare SPACRBENCH_EXTERN (the identifier
# before the first "(" of each declaration, comments and # lines removed),
# as tests/abi/check_symbols.sh reads them for the Linux library.
find "$repo/include" -name '*.h' | sort | while IFS= read -r h; do
    grep -v '^[[:space:]]*#' "$h" | tr '\n' ' ' |
        sed 's:/\*\([^*]\|\*[^/]\)*\*/: :g' | grep -o 'SPACRBENCH_EXTERN[^;(]*(' |
        sed 's/($//; s/.*[ *]//' || true
done | sort -u > "$work/declared"
[ -s "$work/declared" ] || fail "no declarations read from $repo/include"
diff "$work/expected" "$work/declared" > /dev/null ||
    fail "the map and the public headers name different functions:" \
        "$(diff "$work/expected" "$work/declared" | grep '^[<>]' | tr '\n' ' ')"
echo "map: $(wc -l < "$work/expected") names, each declared in a public header"

# Every declared function's address, so the link resolves the whole API.
{
    cat <<'EOF_C'
#include <spacrbench.h>
#include <stdio.h>
typedef void (*fn)(void);
static const fn all[] = {
EOF_C
    sed 's/.*/    (fn)&,/' "$work/declared"
    cat <<'EOF_C'
};
int main(void)
{
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        printf("%d\n", all[i] != NULL);
    return 0;
}
EOF_C
} > "$work/all_functions.c"

status=0
for target in "${targets[@]}"; do
    arch=${target%%-*}
    macho_arch=${arch/aarch64/arm64}
    build=$work/build-$arch
    echo "== $target"
    cmake -S "$repo" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/toolchain-zig-macos.cmake" \
        -DSPACRBENCH_ZIG_TARGET="$target" -DSPACRBENCH_ZIG_PYTHON="$(command -v "$python")" \
        -DSPACRBENCH_WERROR=ON -DSPACRBENCH_BUILD_TESTS=OFF -DSPACRBENCH_BUILD_CLI=ON \
        -DSPACRBENCH_CUDA=OFF > "$build.configure.log" 2>&1 ||
        { cat "$build.configure.log"; fail "$target: configure failed"; }
    cmake --build "$build" -j2 > "$build.build.log" 2>&1 ||
        { cat "$build.build.log"; fail "$target: build failed"; }
    lib=$build/src/libspacrbench.1.dylib
    [ -f "$lib" ] || fail "$target: no $lib"

    header=$("$objdump" --macho --private-header "$lib")
    grep -Eq "MH_MAGIC_64 +$(tr '[:lower:]' '[:upper:]' <<< "$macho_arch")" <<< "$header" ||
        { echo "$header"; fail "$target: not a 64-bit Mach-O for $macho_arch"; }
    grep -q ' DYLIB ' <<< "$header" || { echo "$header"; fail "$target: not a dylib"; }
    if command -v file >/dev/null; then
        echo "file: $(file -bL "$lib")"
    fi
    loads=$("$objdump" --macho --private-headers "$lib")
    install_name=$(sed -n '/cmd LC_ID_DYLIB/,/name/s/^ *name \(.*\) (offset.*/\1/p' <<< "$loads")
    [ "$install_name" = "@rpath/libspacrbench.1.dylib" ] ||
        fail "$target: install name '$install_name', expected @rpath/libspacrbench.1.dylib"
    deps=$("$objdump" --macho --dylibs-used "$lib" | tail -n +2 | sed 's/^[[:space:]]*//; s/ (.*//' |
        grep -v '^@rpath/libspacrbench\.1\.dylib$' || true)
    [ "$deps" = /usr/lib/libSystem.B.dylib ] ||
        fail "$target: links $(tr '\n' ' ' <<< "$deps"), expected only /usr/lib/libSystem.B.dylib"
    echo "ok: Mach-O $macho_arch dylib, install name $install_name, needs only libSystem"
    # The command: its demo (run/summarize say they need Linux), linked
    # against the dylib it sits beside after installation.
    "$objdump" --macho --private-header "$build/spacrbench" | grep -q ' EXECUTE ' ||
        fail "$target: the spacrbench command is not a Mach-O executable"
    "$objdump" --macho --dylibs-used "$build/spacrbench" | grep -q '@rpath/libspacrbench\.1\.dylib' ||
        fail "$target: the spacrbench command does not load @rpath/libspacrbench.1.dylib"
    echo "ok: the spacrbench command (demo) is a Mach-O executable for $macho_arch"

    # Exports, without Mach-O's leading underscore. The linker itself defines
    # __mh_dylib_header and ___dso_handle in every dylib; they are no API.
    "$nm" --extern-only --defined-only --just-symbol-name "$lib" |
        grep -Ev '^(__mh_dylib_header|___dso_handle)$' | sed 's/^_//' | sort -u > "$build.exported"
    if ! diff -u "$work/expected" "$build.exported" > "$build.exports.diff"; then
        echo "FAIL: $target: exported symbols differ from the map (- expected, + exported):"
        grep '^[-+][^-+]' "$build.exports.diff" | sed 's/^/    /'
        status=1
    else
        echo "ok: exports are the map's $(wc -l < "$build.exported") functions"
    fi
    sed 's/^/_/' "$work/map-names" | diff - "$build/src/libspacrbench.exports" > /dev/null ||
        fail "$target: generated exported_symbols_list differs from the map"

    for program in "$repo/tests/consumer/consumer.c" "$here/api_links.c" "$work/all_functions.c"; do
        name=$(basename "$program" .c)
        out=$build/$name
        "$python" -m ziglang cc -target "$target" -std=c11 -Wall -Wextra -Wpedantic -Werror \
            -I "$repo/include" "$program" -o "$out" -L "$build/src" -lspacrbench \
            -Wl,-rpath,@executable_path > "$out.log" 2>&1 ||
            { cat "$out.log"; fail "$target: $name does not compile or link"; }
        "$objdump" --macho --private-header "$out" | grep -q ' EXECUTE ' ||
            fail "$target: $name is not a Mach-O executable"
        "$objdump" --macho --dylibs-used "$out" | grep -q '@rpath/libspacrbench\.1\.dylib' ||
            fail "$target: $name does not load @rpath/libspacrbench.1.dylib"
        echo "ok: $name compiles (-Werror) and links"
    done
done
[ "$status" -eq 0 ] && echo "== macOS cross-compile checks passed for ${targets[*]}"
exit "$status"
