#!/bin/sh
# Checks the linker-level interface of a built libspacrbench:
#  - SONAME is libspacrbench.so.1;
#  - every exported (defined, dynamic) symbol starts with spacrbench_ and
#    carries a SPACRBENCH_x.y version (src/libspacrbench.map), apart from
#    the version-node markers themselves;
#  - every exported function is declared SPACRBENCH_EXTERN in the public
#    header, and every such declaration is exported.
# Usage: check_symbols.sh LIBRARY HEADER [NM] [READELF]
set -eu
lib=$1
header=$2
nm=${3:-nm}
readelf=${4:-readelf}
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

soname=$("$readelf" -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [ "$soname" != "libspacrbench.so.1" ]; then
    echo "FAIL: SONAME is '$soname', expected 'libspacrbench.so.1'"
    status=1
else
    echo "ok: SONAME $soname"
fi

# nm -D prints "ADDRESS TYPE NAME[@@VERSION]"; A-type entries named like the
# version nodes are the nodes themselves.
"$nm" -D --defined-only "$lib" | awk '{print $2, $3}' > "$tmp/all"
grep -Ev '^A SPACRBENCH_[0-9]+\.[0-9]+$' "$tmp/all" | awk '{print $2}' \
    | sed 's/@.*//' | sort -u > "$tmp/exported"
unversioned=$(grep -Ev '^A SPACRBENCH_[0-9]+\.[0-9]+$' "$tmp/all" | awk '{print $2}' \
    | grep -v '@SPACRBENCH_[0-9]' || true)
if [ ! -s "$tmp/exported" ]; then
    echo "FAIL: no exported symbols at all"
    status=1
fi
if [ -n "$unversioned" ]; then
    echo "FAIL: exported symbols outside a SPACRBENCH_x.y version node:"
    echo "$unversioned" | sed 's/^/    /'
    status=1
fi
if [ ! -s "$tmp/exported" ]; then
    :
elif grep -v '^spacrbench_' "$tmp/exported" > "$tmp/foreign"; then
    echo "FAIL: symbols exported without the spacrbench_ prefix:"
    sed 's/^/    /' "$tmp/foreign"
    status=1
else
    echo "ok: $(wc -l < "$tmp/exported") exported symbols, all spacrbench_*"
fi

# Declarations: the function name is the identifier right before the first
# "(" of each SPACRBENCH_EXTERN declaration (which may span lines), once
# preprocessor lines and comments are removed.
grep -v '^[[:space:]]*#' "$header" | tr '\n' ' ' \
    | sed 's:/\*\([^*]\|\*[^/]\)*\*/: :g' \
    | grep -o 'SPACRBENCH_EXTERN[^;(]*(' \
    | sed 's/($//; s/.*[ *]//' | sort -u > "$tmp/declared"
if ! comm -23 "$tmp/declared" "$tmp/exported" > "$tmp/missing" || [ -s "$tmp/missing" ]; then
    echo "FAIL: declared in the header but not exported:"
    sed 's/^/    /' "$tmp/missing"
    status=1
fi
if ! comm -13 "$tmp/declared" "$tmp/exported" > "$tmp/extra" || [ -s "$tmp/extra" ]; then
    echo "FAIL: exported but not declared SPACRBENCH_EXTERN in the header:"
    sed 's/^/    /' "$tmp/extra"
    status=1
fi
[ "$status" -eq 0 ] && echo "ok: header declarations and exports match ($(wc -l < "$tmp/declared") functions)"
exit "$status"
