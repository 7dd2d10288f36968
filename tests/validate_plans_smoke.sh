#!/usr/bin/env bash
# Check of bench/weft_validate_plans on a short form of `make validate`'s plan check (issue 18, item 4):
# on the 8-GPU llm-foundry MPT-125m rows and the NeMo Llama 3.1 8B rows, the plan weft's search picks
# is at least as fast as the published plan in weft's own prediction, and fits (not an accuracy test:
# no measurement enters the comparison; it fails when the search misses a plan it was given). The
# published plan is always a candidate (where it fits in weft's memory model), the CSV comes out, a
# bad option fails. Skips (exit 0) where the bench was not built (WEFT_BENCH=OFF) or the table is absent.
set -u
bin="$1"
table="$2"
if [[ ! -x "$bin" || ! -f "$table" ]]; then echo "SKIP: $bin or $table missing"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if ! "$bin" "$table" "$work/rows.csv" --max-gpus 8 --match '^(MPT-125m amp_bf16|Llama3.1 8B)' >"$work/out" 2>"$work/err"; then
  fail "exit $?: $(cat "$work/err")"
fi
read -r held rows < <(sed -nE 's/^summary: .* fits on ([0-9]+) of ([0-9]+) rows$/\1 \2/p' "$work/out")
[[ -n "${rows:-}" && "$rows" -eq 11 ]] || fail "expected 11 rows (9 MPT-125m, 2 Llama 3.1 8B): $(cat "$work/out")"
[[ "${held:-0}" -eq "${rows:-1}" ]] || fail "the search's pick is slower than a published plan: $(grep -E 'SLOWER|does not hold' "$work/out")"
# Every MPT-125m published plan fits, so the search timed it (it was a candidate).
[[ $(grep -cE '^MPT-125m amp_bf16 .* ranked [0-9]+ of [0-9]+ \((final|isolated|screen)\)$' "$work/out") -eq 9 ]] ||
  fail "a published MPT-125m plan was not a candidate: $(grep '^MPT-125m' "$work/out")"
# The two 8-GPU Llama rows are over memory in weft's model (80.4 of 80 GiB): said, not hidden.
[[ $(grep -cE "^Llama3.1 8B .* not a candidate: over memory in weft's model$" "$work/out") -eq 2 ]] ||
  fail "Llama 3.1 8B rows: $(grep '^Llama' "$work/out")"
grep -qE '^  llm-foundry amp_bf16 +9 rows hold' "$work/out" || fail "no llm-foundry family line"
[[ $(wc -l <"$work/rows.csv") -eq $((rows + 1)) ]] || fail "CSV should hold a header and $rows rows"

"$bin" --no-such-option >/dev/null 2>"$work/err"
rc=$?
[[ $rc -eq 2 ]] && grep -q "unknown option" "$work/err" || fail "bad option: exit $rc, $(cat "$work/err")"

[[ $failures -eq 0 ]] && echo "validate_plans smoke: ok"
exit $((failures > 0))
