#!/bin/sh
# Self-test of check_symbols.sh on tiny stand-in libraries built here: the
# consistent one passes; a map that exports by pattern, a map naming a
# symbol the library lacks, and a header (in a subfolder) declaring a
# function the library does not export each fail, for that reason.
# Usage: check_symbols_selftest.sh CC
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cc=${1:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

mkdir -p inc/spacrbench inc_extra/spacrbench
printf '#define SPACRBENCH_EXTERN __attribute__((visibility("default")))\n#include "spacrbench/topic.h"\nSPACRBENCH_EXTERN int spacrbench_a(void);\n' > inc/spacrbench.h
printf 'SPACRBENCH_EXTERN int spacrbench_b(int x);\n' > inc/spacrbench/topic.h
cp inc/spacrbench.h inc_extra/
printf 'SPACRBENCH_EXTERN int spacrbench_b(int x);\nSPACRBENCH_EXTERN int spacrbench_extra(void);\n' > inc_extra/spacrbench/topic.h
cat > lib.c <<'EOT'
#include "spacrbench.h"
int spacrbench_a(void) { return 1; }
int spacrbench_b(int x) { return x; }
SPACRBENCH_EXTERN int spacrbench_c(void);
int spacrbench_c(void) { return 3; } /* declared nowhere public, named in no map */
EOT
printf 'SPACRBENCH_1.0 {\n  global:\n    spacrbench_a;\n  local:\n    *;\n};\nSPACRBENCH_1.1 {\n  global:\n    spacrbench_b;\n} SPACRBENCH_1.0;\n' > named.map
sed 's/spacrbench_b;/spacrbench_*;/' named.map > glob.map
sed 's/spacrbench_b;/spacrbench_b;\n    spacrbench_gone;/' named.map > gone.map

failures=0
expect() { # expect pass|FAIL-LINE NAME MAP INCLUDE
    "$cc" -shared -fPIC -fvisibility=hidden -I"$4" -Wl,-soname,libspacrbench.so.1 \
        -Wl,--version-script="$3" lib.c -o "$2.so"
    rc=0
    sh "$here/check_symbols.sh" "$work/$2.so" "$4" "$3" > "$2.log" 2>&1 || rc=$?
    if [ "$1" = pass ] && [ "$rc" -eq 0 ]; then
        echo "ok: $2 passes"
    elif [ "$1" != pass ] && [ "$rc" -ne 0 ] && grep -q "^FAIL: $1" "$2.log"; then
        echo "ok: $2 fails: $1"
    else
        echo "FAIL: $2: expected ${1}, got exit $rc:"
        sed 's/^/    /' "$2.log"
        failures=$((failures + 1))
    fi
}
expect pass named named.map inc
expect "the map exports by pattern" glob glob.map inc
expect "named in the map but not exported" gone gone.map inc
expect "declared in a public header but not exported" extra named.map inc_extra

if [ "$failures" -ne 0 ]; then
    echo "check_symbols self-test: $failures failure(s)"
    exit 1
fi
echo "check_symbols self-test: each drift of map, library and headers is named"
