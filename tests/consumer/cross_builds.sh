#!/usr/bin/env bash
# The cross builds exactly as docs/platforms.md documents them ("Building
# for Windows and macOS here"): every `cmake` line of that section runs
# verbatim, from the root of a copy of the tree, on a machine that has the
# host's libcheck installed (CI's), so a cross build that picks up a host
# library fails here. Then checks that each build made its library and
# command. Needs the MinGW-w64 compiler and zig's clang (python3 -m pip
# install ziglang, installed here when missing, as tests/macos/run.sh does).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
doc=$repo/docs/platforms.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The section's indented cmake lines, in order.
sed -n '/^## Building for Windows and macOS here/,/^## /p' "$doc" |
    sed -n 's/^    \(cmake .*\)$/\1/p' > "$work/commands"
count=$(wc -l < "$work/commands")
if [ "$count" -lt 4 ]; then
    echo "FAIL: expected the Windows and macOS cmake lines in $doc, found $count:" >&2
    cat "$work/commands" >&2
    exit 1
fi
pkg-config --exists check ||
    { echo "FAIL: the host's check.pc is needed to prove the builds ignore it" >&2; exit 1; }
command -v x86_64-w64-mingw32-gcc-posix >/dev/null ||
    { echo "FAIL: no MinGW-w64 compiler (gcc-mingw-w64-x86-64-posix)" >&2; exit 1; }
if ! python3 -m ziglang version >/dev/null 2>&1; then
    python3 -m pip install --quiet ziglang ||
        { echo "FAIL: cannot install ziglang for python3 (zig's clang builds for macOS)" >&2; exit 1; }
fi

# A copy of the tree (what git tracks, as a clone has it), so the
# documented build folders land in a scratch copy, not the checkout.
src=$work/src
mkdir -p "$src"
(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$src")
status=0
while IFS= read -r line; do
    echo "== $line"
    if ! (cd "$src" && bash -c "$line") > "$work/log" 2>&1; then
        cat "$work/log"
        echo "FAIL: the documented command failed: $line" >&2
        status=1
        break
    fi
    grep -E 'Check|CUDA' "$work/log" | grep -v 'Check for working' || true
done < "$work/commands"
[ "$status" -eq 0 ] || exit 1

for f in build-win/libspacrbench.dll build-win/spacrbench.exe \
         build-mac/src/libspacrbench.1.dylib build-mac/spacrbench; do
    [ -f "$src/$f" ] || { echo "FAIL: the documented build made no $f" >&2; exit 1; }
    echo "built: $f"
done
echo "== the documented Windows and macOS builds build"
