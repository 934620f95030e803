#!/bin/sh
# The error codes are written twice in include/spacrbench/common.h: the enum
# spacrbench_error (for readers and cffi) and SPACRBENCH_ERROR_MAP (the
# messages). src/abi/errors.c checks at compile time that they are one list.
# This test proves those checks fire: it compiles errors.c against the real
# headers (must compile), against a consistent addition to both (must
# compile), and against copies of the headers that drift in each way (must
# NOT compile): a constant only in the enum, a code only in the map, a value
# that differs, two codes with one value.
# Usage: check_error_map.sh CC REPO
set -eu
cc=$1
repo=$2
src=$repo/src
include=$repo/include
header=$include/spacrbench/common.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

compiles() { # compiles DIR: errors.c against the headers in DIR, no -Werror
    "$cc" -std=c11 -fsyntax-only -DSPACRBENCH_BUILDING -D_GNU_SOURCE -I "$1" -I "$src" -I "$src/util" \
        "$src/abi/errors.c" > "$1/log" 2>&1
}

variant() { # variant NAME SED-SCRIPT...: DIR $tmp/NAME with an edited common.h
    mkdir -p "$tmp/$1"
    dir=$tmp/$1
    shift
    cp -R "$include/." "$dir/"
    for script in "$@"; do
        sed -i "$script" "$dir/spacrbench/common.h"
    done
    if cmp -s "$header" "$dir/spacrbench/common.h"; then
        echo "FAIL: the edit of $(basename "$dir") changed nothing (header layout changed?)"
        failures=$((failures + 1))
        return 1
    fi
}

expect() { # expect compile NAME | expect fail NAME DIAGNOSTIC (a grep -E pattern)
    if compiles "$tmp/$2"; then got=compile; else got=fail; fi
    # A failure counts only for the reason given: a missing include would
    # make every drift "fail" too.
    if [ "$got" = fail ] && [ -n "${3:-}" ] && ! grep -Eq "$3" "$tmp/$2/log"; then
        got="fail for another reason"
    fi
    if [ "$got" = "$1" ]; then
        echo "ok: $2: errors.c does $([ "$got" = compile ] && echo "" || echo "not ")compile$(
            [ "$got" = fail ] && echo ": $(grep -m1 'error:' "$tmp/$2/log" | sed 's/^.*error: //')")"
    else
        echo "FAIL: $2: expected $1, got $got"
        sed 's/^/    /' "$tmp/$2/log"
        failures=$((failures + 1))
    fi
}

enum_line='s/^    SPACRBENCH_OK = 0,$/&\n    SPACRBENCH_EDRIFT = -99,/'
map_line='s/^#define SPACRBENCH_ERROR_MAP(X) *\\$/&\n    X(EDRIFT, -99, "drift") \\/'

mkdir -p "$tmp/unchanged" && cp -R "$include/." "$tmp/unchanged/"
expect compile unchanged
variant added_to_both "$enum_line" "$map_line" && expect compile added_to_both
variant only_in_enum "$enum_line" && expect fail only_in_enum "not handled in switch"
variant only_in_map "$map_line" && expect fail only_in_map "(SPACRBENCH_EDRIFT.{0,4} undeclared|undeclared identifier .SPACRBENCH_EDRIFT)"
variant value_differs 's/^    SPACRBENCH_EBUSY = -6,$/    SPACRBENCH_EBUSY = -60,/' &&
    expect fail value_differs "SPACRBENCH_EBUSY differs between enum"
variant one_value_twice 's/^    SPACRBENCH_OK = 0,$/&\n    SPACRBENCH_EDRIFT = -12,/' \
    's/^#define SPACRBENCH_ERROR_MAP(X) *\\$/&\n    X(EDRIFT, -12, "drift") \\/' &&
    expect fail one_value_twice "duplicate case value"

if [ "$failures" -ne 0 ]; then
    echo "error map check: $failures failure(s)"
    exit 1
fi
echo "error map check: enum spacrbench_error and SPACRBENCH_ERROR_MAP cannot drift"
