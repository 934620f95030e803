#!/usr/bin/env bash
# Regenerates the committed ABI baseline tests/abi/libspacrbench.abi from a
# build of the library (or the library given as $1). Run it only when an ABI
# change is intended, and commit the new baseline with the change that made
# it, so the difference is reviewed. See docs/building.md, "ABI policy".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
sb_abi_library "${1:-}"

# Only types reachable from the public header count (--headers-dir with
# --drop-private-types); locations are kept as bare file names so the
# baseline does not depend on where the tree was built.
abidw --headers-dir "$headers" --drop-private-types \
      --exported-interfaces-only --drop-undefined-syms \
      --no-corpus-path --no-comp-dir-path --short-locs \
      --out-file "$baseline" "$lib"
# Where a function or parameter is defined (file:line in a .c file) is not
# ABI and would churn the baseline with every edit; header locations stay
# (abidiff uses them to tell public from private types).
sed -i "s/ filepath='[^']*\.c' line='[0-9]*' column='[0-9]*'//g" "$baseline"
echo "wrote $baseline from $lib:"
grep -c '<elf-symbol ' "$baseline" | sed 's/^/  exported functions: /'
