#!/bin/sh
# Every public header compiles when a program includes it alone, first,
# as C11 and (when CXX is given) as C++11, with -Wall -Wextra -Wpedantic
# -Werror: each begins by including spacrbench.h, so whichever one comes
# first the tiers are read in spacrbench.h's order.
# Usage: check_headers.sh INCLUDE_DIR CC [CXX]
set -eu
include=$1
cc=$2
cxx=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
count=0
for h in $(cd "$include" && find . -name '*.h' | sed 's:^\./::' | sort); do
    printf '#include <%s>\nint main(void) { return spacrbench_version_number() == 0; }\n' "$h" \
        > "$tmp/alone.c"
    count=$((count + 1))
    if ! "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I "$include" \
        "$tmp/alone.c" > "$tmp/log" 2>&1; then
        echo "FAIL: <$h> alone does not compile as C11:"
        sed 's/^/    /' "$tmp/log"
        status=1
    fi
    if [ -n "$cxx" ] && ! "$cxx" -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror \
        -fsyntax-only -I "$include" "$tmp/alone.c" > "$tmp/log" 2>&1; then
        echo "FAIL: <$h> alone does not compile as C++11:"
        sed 's/^/    /' "$tmp/log"
        status=1
    fi
done
[ "$count" -gt 0 ] || { echo "FAIL: no header under $include"; exit 1; }
[ "$status" -eq 0 ] && echo "ok: each of the $count public headers compiles included alone"
exit "$status"
