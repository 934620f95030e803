#!/usr/bin/env bash
# The Windows build, tested under Wine: cross-compiles the library DLL,
# spacrbench.exe and check_windows.exe with MinGW-w64 (-Werror), checks the
# DLL's exports against src/libspacrbench.map, then runs the test program,
# the portable Check suites of tests/c (with a libcheck it builds from
# Debian's source package) and the command under Wine in a fresh
# WINEPREFIX, printing the figures. Nothing sets WINEPATH: the build tree
# runs as built (the DLL lands beside spacrbench.exe).
# Exit 0: all passed; 200: cannot run here (the reason is printed); other:
# a failure. Installs its Debian packages when missing (as root).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$PWD
build=${SPACRBENCH_WINDOWS_BUILD:-$repo/build-windows}
triple=x86_64-w64-mingw32
packages=(gcc-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64 wine wine64 cmake)

cannot_run() {
    echo "SKIPPED: Windows tests cannot run here: $*" >&2
    exit 200
}

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
    if ! { "${sudo[@]}" apt-get update -q && DEBIAN_FRONTEND=noninteractive \
            "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; }; then
        cannot_run "could not install ${missing[*]} (apt-get failed; run as root with network)"
    fi
fi
command -v wine >/dev/null || cannot_run "no 'wine' command after installing wine"
command -v python3 >/dev/null || cannot_run "no python3 (reads the map and the JSON)"
command -v "$triple-objdump" >/dev/null || cannot_run "no $triple-objdump"

# A fresh Wine prefix per run, and its wineserver stopped on every path.
tmp=$(mktemp -d)
export WINEPREFIX=$tmp/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
cleanup() {
    wineserver -k >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

failures=0
failed_what=()
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
    failed_what+=("$*")
}

# libcheck for MinGW-w64, for the portable Check suites: Debian ships no
# MinGW binary of it, so it is built from Debian's source package of check
# (fetched with a private deb-src list; the system's apt setup is left
# alone) into the build folder, once.
check_prefix=$build/check-mingw/prefix
check_suites_why=""
build_libcheck() {
    local src=$build/check-mingw/src lists=$build/check-mingw/lists
    rm -rf "$src" && mkdir -p "$src" "$lists/partial"
    echo "deb-src http://deb.debian.org/debian bookworm main" > "$build/check-mingw/sources.list"
    local apt_opts=(-q -o Dir::Etc::SourceList="$build/check-mingw/sources.list"
        -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$lists")
    if ! (cd "$src" && apt-get "${apt_opts[@]}" update >"$tmp/check-fetch.log" 2>&1 &&
            apt-get "${apt_opts[@]}" source --download-only check >>"$tmp/check-fetch.log" 2>&1); then
        check_suites_why="Debian's source package of check could not be fetched ($(tail -n 1 "$tmp/check-fetch.log"))"
        return 0
    fi
    tar -xzf "$src"/check_*.orig.tar.gz -C "$src"
    cmake -S "$src"/check-*/ -B "$src/build" \
        -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/toolchain-mingw-w64-x86_64.cmake" \
        -DCMAKE_C_FLAGS=-D__USE_MINGW_ANSI_STDIO=1 -DCMAKE_INSTALL_PREFIX="$check_prefix" \
        -DCHECK_ENABLE_TESTS=OFF -DBUILD_TESTING=OFF >"$tmp/check-build.log" 2>&1 &&
        cmake --build "$src/build" -j2 >>"$tmp/check-build.log" 2>&1 &&
        cmake --install "$src/build" >>"$tmp/check-build.log" 2>&1 ||
        { cat "$tmp/check-build.log"; fail "libcheck did not build for MinGW-w64"; }
}
if [ ! -f "$check_prefix/lib/libcheck.a" ]; then
    echo "== libcheck for MinGW-w64, from Debian's source package"
    build_libcheck
fi
check_define=()
if [ -f "$check_prefix/lib/libcheck.a" ]; then
    check_define=(-DSPACRBENCH_WINDOWS_CHECK_PREFIX="$check_prefix")
elif [ -z "$check_suites_why" ]; then
    check_suites_why="libcheck for MinGW-w64 did not build"
fi

echo "== build ($triple, -Werror)"
cmake -S "$repo/tests/windows" -B "$build" \
    -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/toolchain-mingw-w64-x86_64.cmake" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPACRBENCH_WERROR=ON "${check_define[@]}" \
    >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$build" -j2 >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
# The project's build tree is $build/spacrbench (tests/windows adds it as a
# subdirectory): on Windows its DLL lands beside its programs, not in src/.
dll=$build/spacrbench/libspacrbench.dll
exe=$build/spacrbench/spacrbench.exe
check=$build/check_windows.exe
for f in "$dll" "$exe" "$check"; do
    [ -f "$f" ] || { echo "FAIL: not built: $f" >&2; exit 1; }
done

echo "== DLL exports = src/libspacrbench.map (every version node), as the .so"
"$triple-objdump" -p "$dll" >"$tmp/dll.txt"
sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' "$tmp/dll.txt" \
    | sed -n 's/^[[:space:]]*\[[[:space:]]*[0-9]*\][[:space:]]*//p' >"$tmp/exports"
# The map names every function in its version node (tests/abi checks it):
# the DLL must export exactly those, nothing else.
python3 - "$repo/src/libspacrbench.map" "$tmp/exports" <<'EOF' \
    || fail "the DLL's export table differs from src/libspacrbench.map"
import re, sys
map_text = re.sub(r"/\*.*?\*/", "", open(sys.argv[1]).read(), flags=re.S)
expected = set()
for name, body in re.findall(r"(SPACRBENCH_[0-9.]+)\s*\{(.*?)\}", map_text, flags=re.S):
    names = {e.strip() for e in body.split("local:")[0].replace("global:", "").split(";")
             if e.strip()}
    print(f"{name}: {len(names)} functions")
    expected |= names
exports = [l.strip() for l in open(sys.argv[2]) if l.strip()]
got = set(exports)
print(f"DLL exports {len(exports)} names ({len(got)} distinct), the map {len(expected)}")
for f in sorted(expected - got):
    print(f"  missing from the DLL: {f}")
for f in sorted(got - expected):
    print(f"  exported by the DLL, not in the map: {f}")
sys.exit(0 if got == expected and len(exports) == len(got) and expected else 1)
EOF
# Only Windows' own DLLs (and ours): the GCC runtime and winpthread are
# linked in, so a program copied to a machine without MinGW starts. (A
# missing DLL makes Wine fail a program before it prints a line.)
for bin in "$dll" "$exe" "$build"/*.exe; do
    imports=$("$triple-objdump" -p "$bin" | sed -n 's/^[[:space:]]*DLL Name: //p' | sort -u |
        tr '\n' ' ')
    echo "imports of $(basename "$bin"): $imports"
    if echo "$imports" | grep -qiE 'libgcc|winpthread|libcheck|psapi'; then
        fail "$(basename "$bin") needs $imports"
    fi
done

echo "== Wine: $(wine --version 2>/dev/null), prefix $WINEPREFIX"
wine cmd /c exit 0 >/dev/null 2>&1 || cannot_run "wine cannot start a program (wine cmd /c exit 0 failed)"
# No WINEPATH and no PATH entry for the DLL, in any run below: the build
# tree must run as built, the DLL found beside the program.
unset WINEPATH

echo "== the build tree runs as built: spacrbench.exe with WINEPATH unset"
rc=0
env -u WINEPATH wine "$exe" --fields 2 --size 256x256 >"$tmp/asbuilt.txt" 2>"$tmp/asbuilt.err" || rc=$?
echo "wine $(basename "$(dirname "$exe")")/spacrbench.exe (DLL beside it: $(basename "$dll")) -> exit $rc"
if [ "$rc" -ne 0 ]; then
    cat "$tmp/asbuilt.txt" "$tmp/asbuilt.err"
    fail "spacrbench.exe exited $rc without WINEPATH (53: the DLL was not found)"
else
    grep -q 'spaCR benchmark' "$tmp/asbuilt.txt" || fail "as built: no report printed"
    grep -q 'recommended workers *[0-9]' "$tmp/asbuilt.txt" || fail "as built: no recommended worker count"
    grep -E 'spaCR benchmark|recommended workers' "$tmp/asbuilt.txt"
fi

echo "== check_windows.exe"
wine "$check" | tee "$tmp/check_windows.txt" ||
    fail "check_windows.exe: $(grep '^not ok' "$tmp/check_windows.txt" | tr '\n' ' ')"

# The portable Check suites of tests/c (SPACRBENCH_PORTABLE_CHECKS in
# cmake/SpacrbenchTesting.cmake: no fork, /proc or cgroups), the same
# sources as on Linux, compiled for Windows. Check cannot fork there.
if [ -n "$check_suites_why" ]; then
    echo "SKIPPED: the portable Check suites under Wine: $check_suites_why"
else
    suites=$(find "$build" -maxdepth 1 -name 'check_*.exe' ! -name check_windows.exe | sort)
    [ -n "$suites" ] || fail "libcheck was built but no portable Check suite was"
    for suite in $suites; do
        echo "== $(basename "$suite") (tests/c/$(basename "$suite" .exe).c)"
        CK_FORK=no wine "$suite" || fail "$(basename "$suite")"
    done
fi

echo "== spacrbench.exe -v (demo; the notes on method are --verbose's)"
if wine "$exe" -v --fields 3 --size 1024x1024 >"$tmp/demo.txt" 2>"$tmp/demo.err"; then
    cat "$tmp/demo.txt"
    grep -q 'recommended workers *[0-9]' "$tmp/demo.txt" || fail "demo: no recommended worker count"
    # A note may go on under the value column: read it joined.
    tr -d '\r' <"$tmp/demo.txt" | tr -s ' \n' ' ' | grep -q 'cannot be reset on Windows' ||
        fail "demo: no Windows peak note"
else
    cat "$tmp/demo.txt" "$tmp/demo.err"
    fail "demo exited $?"
fi

echo "== spacrbench.exe --json, twice to the same --report file (replaced in place)"
report_win=$(winepath -w "$tmp/report.json")
for i in 1 2; do
    wine "$exe" --fields 2 --size 512x512 --json --report "$report_win" >"$tmp/demo$i.json" \
        2>"$tmp/json.err" || { cat "$tmp/json.err"; fail "--json run $i exited non-zero"; }
done
python3 - "$tmp/demo2.json" "$tmp/report.json" <<'EOF' || fail "--json output"
import json, sys
for path in sys.argv[1:]:
    with open(path, newline="") as f:
        doc = json.loads(f.read())
    rec = doc["recommendation"]
    m = doc["measurement"]
    assert isinstance(rec["workers"], int) and rec["workers"] >= 1, rec
    print(f"{path.rsplit('/', 1)[-1]}: workers {rec['workers']} ({rec['reason']}); "
          f"peak {m['peak_rss_bytes'] / 2**20:.1f} MiB ({m['peak_method']}); "
          f"memory {rec['memory_source']}, cores {rec['cores']} from {rec['cores_source']}")
EOF

echo "== --report naming our own standard output appends to it (file identity, not st_ino)"
own_win=$(winepath -w "$tmp/own.txt")
wine "$exe" --fields 2 --size 256x256 --report "$own_win" >"$tmp/own.txt" 2>/dev/null \
    || fail "--report to own stdout exited non-zero"
count=$(grep -c 'spaCR benchmark' "$tmp/own.txt" || true)
echo "reports in the file: $count"
[ "$count" -eq 2 ] || fail "--report to own stdout: $count reports, not the printed one + the appended one"

echo "== spacrbench.exe run / summarize: exit 2, needs Linux"
for mode in "run -- x" "summarize dir"; do
    rc=0
    # shellcheck disable=SC2086  # the mode is two words on purpose
    wine "$exe" $mode >"$tmp/mode.out" 2>"$tmp/mode.err" || rc=$?
    echo "spacrbench.exe $mode -> exit $rc: $(cat "$tmp/mode.err")"
    [ "$rc" -eq 2 ] || fail "'$mode' exited $rc, not 2"
    grep -q 'needs Linux' "$tmp/mode.err" || fail "'$mode' does not say it needs Linux"
done

echo "== affinity from outside: taskset -c 0 wine spacrbench.exe --json"
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then
    taskset -c 0 wine "$exe" --fields 2 --size 512x512 --json >"$tmp/taskset.json" 2>/dev/null \
        || fail "taskset run exited non-zero"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["recommendation"]; print("cores", r["cores"], "from", r["cores_source"]); sys.exit(0 if r["cores"] == 1 and r["cores_source"] == "affinity" else 1)' \
        "$tmp/taskset.json" || fail "taskset -c 0: cores != 1 from affinity"
else
    echo "skipped: needs taskset and more than one core"
fi

if [ "$failures" -ne 0 ]; then
    # Repeated at the end, where a CI log's tail shows it.
    echo "Windows tests: $failures failure(s):" >&2
    printf '  FAIL: %s\n' "${failed_what[@]}" >&2
    exit 1
fi
echo "Windows tests: all passed"
