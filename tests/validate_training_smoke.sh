#!/usr/bin/env bash
# Smoke check of bench/weft_validate_training (not an accuracy test: the rows are a held-out check and
# their errors are reported, never asserted): the 8-GPU rows of the published table run (NeMo and llm-foundry), the
# summary and the CSV come out, rows the catalogue cannot describe are listed, a bad option fails.
# Skips (exit 0) where the bench was not built (WEFT_BENCH=OFF) or the table is absent.
set -u
bin="$1"
table="$2"
if [[ ! -x "$bin" || ! -f "$table" ]]; then echo "SKIP: $bin or $table missing"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if ! "$bin" "$table" "$work/rows.csv" --max-gpus 8 >"$work/out" 2>"$work/err"; then
  fail "exit $?: $(cat "$work/err")"
fi
rows=$(sed -nE 's/^summary: median \|time error\| [0-9.]+%, median signed [-+][0-9.]+% over ([0-9]+) rows.*/\1/p' "$work/out")
[[ -n "$rows" && "$rows" -gt 2 ]] || fail "no summary over the 8-GPU rows: $(cat "$work/out")"
grep -qE '^Llama3.1 8B bf16 +8 tp1 pp1 dp4 cp2' "$work/out" || fail "no 8-GPU bf16 row"
grep -qE '^skipped: BLOOM.*not in the catalogue' "$work/out" || fail "BLOOM not reported as skipped"
grep -qE '^skipped: .*> --max-gpus 8' "$work/out" || fail "rows over the budget not reported"
grep -qE '^MPT-7b amp_bf16 +8 tp1 pp1 dp8' "$work/out" || fail "no 8-GPU llm-foundry row"
grep -qE '^  llm-foundry bf16 +median' "$work/out" || fail "no llm-foundry family line"
grep -qE "^memory: [0-9]+ of $rows published runs fit in weft's memory model" "$work/out" || fail "no memory check"
[[ $(wc -l <"$work/rows.csv") -eq $((rows + 1)) ]] || fail "CSV should hold a header and $rows rows: $(head -3 "$work/rows.csv")"
# Predictions are positive times (the 4th comma field after the quoted name, system and plan).
awk -F'"' 'NR > 1 { split($7, f, ","); if (!(f[4] > 0)) exit 1 }' "$work/rows.csv" || fail "non-positive prediction"

"$bin" --no-such-option >/dev/null 2>"$work/err"
rc=$?
[[ $rc -eq 2 ]] && grep -q "unknown option" "$work/err" || fail "bad option: exit $rc, $(cat "$work/err")"

[[ $failures -eq 0 ]] && echo "validate_training smoke: ok"
exit $((failures > 0))
