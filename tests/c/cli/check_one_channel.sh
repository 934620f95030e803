#!/usr/bin/env bash
# The command's messages leave by one channel (src/cli/cli_error.c:
# cli_error, cli_library_error, cli_usage_error, cli_notice, cli_progress).
# Fails when a C file of src/cli writes to stderr itself with fprintf,
# vfprintf or perror, however the call is wrapped over lines.
# Usage: check_one_channel.sh SOURCE_DIR
set -u
src=${1:?usage: check_one_channel.sh SOURCE_DIR}/src/cli
# The only file that may: the channel itself.
allowed=("cli_error.c")
pattern='(v?fprintf[[:space:]]*\([[:space:]]*stderr[^[:alnum:]_]|(^|[^[:alnum:]_])perror[[:space:]]*\()'

# How many direct writes to stderr file $1 holds (calls split over lines
# included: the file is read as one line).
count() { tr '\n' ' ' <"$1" | grep -Eo "$pattern" | wc -l; }

# The detector itself must see a call that clang-format wrapped.
planted=$(mktemp "${TMPDIR:-/tmp}/sbtest-one-channel-$$-XXXXXX.c") || exit 1
trap 'rm -f "$planted"' EXIT
printf 'static void f(void)\n{\n    fprintf(\n        stderr, "x");\n    perror("y");\n}\n' >"$planted"
if [ "$(count "$planted")" -ne 2 ]; then
    echo "FAIL: the check does not see the planted fprintf(stderr)/perror"
    exit 1
fi

[ -d "$src" ] || { echo "FAIL: no $src"; exit 1; }
bad=0
while IFS= read -r -d '' file; do
    rel=${file#"$src"/}
    skip=0
    for a in "${allowed[@]}"; do [ "$rel" = "$a" ] && skip=1; done
    [ "$skip" = 1 ] && continue
    n=$(count "$file")
    if [ "$n" -ne 0 ]; then
        echo "FAIL: src/cli/$rel writes to stderr directly ($n call(s)); use cli_error.c:"
        grep -nE 'v?fprintf[[:space:]]*\(|perror[[:space:]]*\(' "$file" | sed 's/^/    /'
        bad=1
    fi
done < <(find "$src" -name '*.c' -print0)
[ "$bad" = 0 ] && echo "OK: every message of src/cli goes through cli_error.c"
exit "$bad"
