#!/usr/bin/env bash
# One golden case: runs its command, masks the volatile fields and compares the output byte for byte
# with tests/golden/out/NAME.txt (or writes that file with --update).
# Usage: golden.sh WEFT SOURCE_DIR NAME [--update]
# A case is a line of tests/golden/cases.txt: `NAME | bash snippet | files of $work to append`. The
# snippet calls `weft` (the binary under test); $src is the source folder, $traces ../shared/traces,
# $work a fresh empty folder (for --out folders and unpacked traces).
set -euo pipefail
weft_bin=$1
src=$(cd "$2" && pwd)
name=$3
update=${4:-}
here=$src/tests/golden
traces=$src/../shared/traces
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

line=$(grep -E "^$name *\|" "$here/cases.txt" | head -n 1) || { echo "golden: no case '$name' in cases.txt" >&2; exit 2; }
IFS="|" read -r _ snippet files _labels <<<"$line"

weft() { "$weft_bin" "$@"; }
# Wall-clock fields are the only volatile ones; everything else is simulated, seeded and exact.
# The folders of this run are named as <src>, <traces> and <work>, so a golden holds no machine's path.
mask() {
  sed -E 's/simulated in [0-9]+\.[0-9]+ s/simulated in <wall> s/g' | awk -v w="$work" -v t="$traces" -v s="$src" '
    { while ((i = index($0, w)) > 0) $0 = substr($0, 1, i - 1) "<work>" substr($0, i + length(w))
      while ((i = index($0, t)) > 0) $0 = substr($0, 1, i - 1) "<traces>" substr($0, i + length(t))
      while ((i = index($0, s)) > 0) $0 = substr($0, 1, i - 1) "<src>" substr($0, i + length(s))
      print }'
}

actual=$work/.actual
(cd "$work" && eval "$snippet") >"$actual" 2>"$work/.stderr" || {
  echo "golden $name: the command failed (exit $?):" >&2
  cat "$work/.stderr" >&2
  exit 1
}
for f in $files; do
  printf '\n== %s ==\n' "$f" >>"$actual"
  cat "$work/$f" >>"$actual"
done
mask <"$actual" >"$actual.masked"

expected=$here/out/$name.txt
if [[ $update == --update ]]; then
  mkdir -p "$here/out"
  cp "$actual.masked" "$expected"
  echo "golden $name: written"
  exit 0
fi
[[ -f $expected ]] || { echo "golden $name: no $expected (record it with make goldens)" >&2; exit 1; }
if ! diff -u "$expected" "$actual.masked" >"$work/.diff"; then
  echo "golden $name: output differs from tests/golden/out/$name.txt:" >&2
  head -n 60 "$work/.diff" >&2
  exit 1
fi
echo "ok golden $name"
