#!/bin/sh
# Checks the linker-level interface of a built libspacrbench:
#  - SONAME is libspacrbench.so.1;
#  - every exported (defined, dynamic) symbol starts with spacrbench_ and
#    carries a SPACRBENCH_x.y version, apart from the version-node markers
#    themselves;
#  - the version map names every symbol literally (no glob: a function
#    missing from it would be exported unseen) and ends in local: *, and
#    the exported functions are exactly the map's names;
#  - every function a public header (INCLUDE_DIR and its folders) declares
#    SPACRBENCH_EXTERN is exported, and every exported one is declared.
# Usage: check_symbols.sh LIBRARY INCLUDE_DIR MAP [NM] [READELF]
set -eu
lib=$1
include=$2
map=$3
nm=${4:-nm}
readelf=${5:-readelf}
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

# The map's entries after each "global:" (comments removed), one a line.
tr '\n' ' ' < "$map" | sed 's:/\*\([^*]\|\*[^/]\)*\*/: :g' | grep -o 'global:[^}]*' \
    | sed 's/global://; s/local:.*//' | tr ';' '\n' | tr -d ' \t' | grep -v '^$' \
    > "$tmp/map_entries" || true
if grep '[*?[]' "$tmp/map_entries" > "$tmp/globs"; then
    echo "FAIL: the map exports by pattern (name every symbol in its node instead):"
    sed 's/^/    /' "$tmp/globs"
    status=1
fi
if ! tr '\n' ' ' < "$map" | grep -q 'local: *\* *;'; then
    echo "FAIL: the map has no 'local: *;' (symbols it does not name would be exported)"
    status=1
fi
sort -u "$tmp/map_entries" | grep -v '[*?[]' > "$tmp/mapped" || true
if ! comm -13 "$tmp/mapped" "$tmp/exported" > "$tmp/unmapped" || [ -s "$tmp/unmapped" ]; then
    echo "FAIL: exported but not named in the map:"
    sed 's/^/    /' "$tmp/unmapped"
    status=1
fi
if ! comm -23 "$tmp/mapped" "$tmp/exported" > "$tmp/unexported" || [ -s "$tmp/unexported" ]; then
    echo "FAIL: named in the map but not exported:"
    sed 's/^/    /' "$tmp/unexported"
    status=1
fi
[ -s "$tmp/unmapped" ] || [ -s "$tmp/unexported" ] || [ -s "$tmp/globs" ] ||
    echo "ok: the map names the $(wc -l < "$tmp/mapped") exported symbols, no pattern"

# Declarations: the function name is the identifier right before the first
# "(" of each SPACRBENCH_EXTERN declaration (which may span lines), once
# preprocessor lines and comments are removed.
find "$include" -name '*.h' | sort > "$tmp/headers"
[ -s "$tmp/headers" ] || { echo "FAIL: no header under $include"; status=1; }
while IFS= read -r h; do
    grep -v '^[[:space:]]*#' "$h" | tr '\n' ' ' \
        | sed 's:/\*\([^*]\|\*[^/]\)*\*/: :g' \
        | grep -o 'SPACRBENCH_EXTERN[^;(]*(' \
        | sed 's/($//; s/.*[ *]//' || true
done < "$tmp/headers" | sort -u > "$tmp/declared"
if ! comm -23 "$tmp/declared" "$tmp/exported" > "$tmp/missing" || [ -s "$tmp/missing" ]; then
    echo "FAIL: declared in a public header but not exported:"
    sed 's/^/    /' "$tmp/missing"
    status=1
fi
if ! comm -13 "$tmp/declared" "$tmp/exported" > "$tmp/extra" || [ -s "$tmp/extra" ]; then
    echo "FAIL: exported but not declared SPACRBENCH_EXTERN in a public header:"
    sed 's/^/    /' "$tmp/extra"
    status=1
fi
[ "$status" -eq 0 ] && echo "ok: header declarations and exports match ($(wc -l < "$tmp/declared") functions in $(wc -l < "$tmp/headers") headers)"
exit "$status"
