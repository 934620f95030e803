#!/usr/bin/env bash
# Self-test of check.sh's policy on tiny stand-in libraries built here:
# unchanged, private-type change and additions in a new version node pass;
# additions in an existing node, removals, member insertion, member type
# change and struct growth fail. Usage: selftest.sh [CC]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cc=${1:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

header() { # header DIR MEMBERS
    mkdir -p "$1"
    cat > "$1/spacrbench.h" <<EOT
#include <stddef.h>
typedef struct spacrbench_opts { size_t size; $2 } spacrbench_opts;
__attribute__((visibility("default"))) int spacrbench_a(const spacrbench_opts *o);
__attribute__((visibility("default"))) int spacrbench_b(int x);
EOT
}
header inc_base "int a;"
header inc_insert "int b; int a;"
header inc_retype "double a;"
header inc_grow "int a; int b;"

cat > base.c <<'EOT'
#include "spacrbench.h"
struct hidden { int q; };
int spacrbench_a(const spacrbench_opts *o) { struct hidden h = {(int)o->a}; return h.q; }
int spacrbench_b(int x) { return x; }
EOT
sed 's/int q;/long q; int z;/' base.c > private.c
grep -v spacrbench_b base.c > removed.c
cp base.c added.c
echo '__attribute__((visibility("default"))) int spacrbench_c(void); int spacrbench_c(void) { return 3; }' >> added.c
printf 'SPACRBENCH_1.0 { global: spacrbench_*; local: *; };\n' > v10.map
printf 'SPACRBENCH_1.0 { global: spacrbench_*; local: *; };\nSPACRBENCH_1.1 { global: spacrbench_c; } SPACRBENCH_1.0;\n' > v11.map

build() { # build NAME SOURCE INCLUDE MAP
    "$cc" -g -O2 -shared -fPIC -fvisibility=hidden -I"$3" \
        -Wl,-soname,libspacrbench.so.1 -Wl,--version-script="$4" "$2" -o "$1.so"
}
build base base.c inc_base v10.map
SB_ABI_BASELINE=$work/base.abi SB_ABI_HEADERS=$work/inc_base \
    bash "$here/update.sh" "$work/base.so" > /dev/null

failures=0
expect() { # expect pass|fail NAME SOURCE INCLUDE MAP
    build "$2" "$3" "$4" "$5"
    local rc=0
    SB_ABI_BASELINE=$work/base.abi SB_ABI_HEADERS=$work/$4 \
        bash "$here/check.sh" "$work/$2.so" > "$2.log" 2>&1 || rc=$?
    if { [ "$1" = pass ] && [ "$rc" -eq 0 ]; } || { [ "$1" = fail ] && [ "$rc" -ne 0 ]; }; then
        echo "ok: $2 -> expected $1 (exit $rc)"
    else
        echo "FAIL: $2 -> expected $1, got exit $rc:"
        sed 's/^/    /' "$2.log"
        failures=$((failures + 1))
    fi
}
expect pass unchanged base.c inc_base v10.map
expect pass private_type_change private.c inc_base v10.map
expect pass added_in_new_node added.c inc_base v11.map
expect fail added_in_old_node added.c inc_base v10.map
expect fail removed_function removed.c inc_base v10.map
expect fail member_inserted base.c inc_insert v10.map
expect fail member_type_changed base.c inc_retype v10.map
expect fail struct_grown base.c inc_grow v10.map
[ "$failures" -eq 0 ]
