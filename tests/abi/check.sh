#!/usr/bin/env bash
# Compares a libspacrbench.so.1 ($1, or a fresh build of the tree) with the
# committed ABI baseline. Fails on any removal or change (abidiff's exit
# bits: 1 error, 2 usage error, 4 ABI change, 8 incompatible change), and on
# added functions unless they sit in a NEW version node of
# src/libspacrbench.map (e.g. SPACRBENCH_1.1), never in one the baseline
# already has. Exit status: 0 when compatible, otherwise the abidiff bits.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
sb_abi_library "${1:-}"
if [ ! -f "$baseline" ]; then
    echo "FAIL: no baseline $baseline (make one with tests/abi/update.sh)" >&2
    exit 1
fi

diff_args=(--headers-dir2 "$headers" --drop-private-types "$baseline" "$lib")
rc=0
report=$(abidiff "${diff_args[@]}") || rc=$?
printf '%s\n' "$report"
if [ "$rc" -eq 0 ]; then
    echo "ABI check: OK, $lib matches the baseline"
    exit 0
fi
if [ $((rc & 11)) -ne 0 ]; then
    [ $((rc & 3)) -ne 0 ] && echo "ABI check: abidiff failed (exit $rc)" >&2
    [ $((rc & 8)) -ne 0 ] && echo "ABI check: FAIL, incompatible change (removal) (exit $rc)" >&2
    exit "$rc"
fi

# rc == 4: a change. Allowed only if it is made of additions alone...
only_additions=0
abidiff --no-added-syms "${diff_args[@]}" >/dev/null || only_additions=$?
if [ "$only_additions" -ne 0 ]; then
    echo "ABI check: FAIL, changed functions or types (exit $rc); if intended," \
         "this is a new ABI: regenerate with tests/abi/update.sh and review" >&2
    exit "$rc"
fi
# ...and every added symbol is versioned in a node the baseline lacks.
known_nodes=$(grep -o "version='[^']*'" "$baseline" | sort -u | sed "s/version='//; s/'//")
bad=0
while IFS= read -r symbol; do
    node=${symbol##*@}
    if [ -z "$node" ] || [ "$node" = "$symbol" ] || printf '%s\n' "$known_nodes" | grep -qx "$node"; then
        echo "ABI check: FAIL, added symbol $symbol is not in a new version node" >&2
        bad=1
    fi
done < <(printf '%s\n' "$report" | sed -n "s/^ *\[A\] .*{\(.*\)}$/\1/p")
if [ "$bad" -ne 0 ]; then
    echo "  add new functions to a new node in src/libspacrbench.map, e.g." >&2
    echo "  SPACRBENCH_1.1 { global: spacrbench_new_function; } SPACRBENCH_1.0;" >&2
    exit "$rc"
fi
echo "ABI check: OK, only additions in new version nodes"
