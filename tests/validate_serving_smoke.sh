#!/usr/bin/env bash
# Smoke check of bench/weft_validate_serving (not an accuracy test: the published rows are a held-out
# check whose errors are reported, never asserted): the rows run, both summaries and the CSV come out,
# rows weft cannot describe are listed with their reason. Skips (exit 0) where the bench was not built.
set -u
bin="$1"
table="$2"
if [[ ! -x "$bin" || ! -f "$table" ]]; then echo "SKIP: $bin or $table missing"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$bin" "$table" "$work/rows.csv" >"$work/out" 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
n=$(sed -nE 's/^summary throughput: median \|error\| [0-9.]+%, median signed [-+][0-9.]+% over ([0-9]+) comparisons.*/\1/p' "$work/out")
[[ -n "$n" && "$n" -gt 10 ]] || fail "no throughput summary over the rows: $(tail -20 "$work/out")"
grep -qE '^summary p50 latency: median \|error\|' "$work/out" || fail "no latency summary"
grep -qE '^trt017-l31-8b-h100-tp1-128-128 +output tok/s +1x1' "$work/out" || fail "no TensorRT-LLM H100 row"
grep -qE '^skipped: .*lengths drawn from a dataset' "$work/out" || fail "dataset rows not reported as skipped"
[[ $(wc -l <"$work/rows.csv") -gt $n ]] || fail "CSV too short: $(head -3 "$work/rows.csv")"
awk -F, 'NR > 1 && !($5 > 0) { exit 1 }' "$work/rows.csv" || fail "non-positive prediction"
[[ $failures -eq 0 ]] && echo "ok validate_serving ($n throughput comparisons)"
exit $failures
