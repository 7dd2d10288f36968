#!/usr/bin/env bash
# Rewrites every golden output (or those whose names match a pattern) with the given binary.
# Usage: record.sh WEFT SOURCE_DIR [PATTERN] — then review `git diff tests/golden` and say why in the commit.
set -euo pipefail
weft=$1
src=$2
pattern=${3:-.}
here=$(dirname "$0")
grep -E '^[a-z0-9][^|]*\|' "$here/cases.txt" | sed -E 's/ *\|.*//' | grep -E -- "$pattern" |
  xargs -P "$(nproc)" -I{} "$here/golden.sh" "$weft" "$src" {} --update
