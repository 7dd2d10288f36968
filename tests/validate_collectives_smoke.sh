#!/usr/bin/env bash
# Smoke check of bench/weft_validate_collectives (not an accuracy test: the published rows are a
# held-out check and their errors are reported, never asserted): the report has every band against its
# target, the coverage line and the rows it cannot describe with their reasons; a bad row is reported
# and the run goes on. Skips (exit 0) where the bench was not built (WEFT_BENCH=OFF) or the table is absent.
set -u
bin="$1"
table="$2"
if [[ ! -x "$bin" || ! -f "$table" ]]; then echo "SKIP: $bin or $table missing"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$bin" "$table" "$work/rows.csv" >"$work/out" 2>"$work/err" || fail "exit $?: $(cat "$work/err")"
total=$(($(wc -l <"$table") - 1))
for band in latency-bound middle bandwidth-bound; do
  grep -qE "^band $band +[0-9]+ rows: median \|error\| +[0-9.]+%" "$work/out" || fail "no $band line"
done
grep -qE "^coverage: [0-9]+ of $total rows described" "$work/out" || fail "no coverage over $total rows"
for kernel in normal low-latency; do  # DeepEP's kernels run as EP exchanges (collectives/ep_exchange.h)
  grep -q ",DeepEP $kernel," "$work/rows.csv" || fail "no DeepEP $kernel rows predicted"
done
# The Azure guide's own script ran -g 8 with NCCL_ALGO per column, the NVLS column published (H100/H200).
grep -q '^"Azure ND H100 v5.*NCCL_ALGO=NVLS as measured; NCCL 2.18.5 (the tuning.cc of 2.18.3); -g 8' "$work/rows.csv" ||
  fail "Azure H100 rows not described as the guide ran them"
grep '^"Azure ND A100 v4' "$work/rows.csv" | grep -q 'NCCL_ALGO' && fail "Azure A100 rows forced to an algorithm"
described=$(sed -nE 's/^coverage: ([0-9]+) of.*/\1/p' "$work/out")
[[ $(($(wc -l <"$work/rows.csv") - 1)) -eq ${described:-0} ]] || fail "CSV rows differ from the described count"

# One bad row (a size that is not a number) and an unknown system: both reported, the good row predicted.
head -1 "$table" >"$work/bad.csv"
grep -m1 '^NVIDIA DGX H100' "$table" >>"$work/bad.csv"
grep -m1 '^NVIDIA DGX H100' "$table" | sed 's/,all_reduce,,[0-9]*,/,all_reduce,,x12,/' >>"$work/bad.csv"
grep -m1 '^NVIDIA DGX H100' "$table" | sed 's/^NVIDIA DGX H100/Imaginary Box/' >>"$work/bad.csv"
grep -m1 'DeepEP normal' "$table" | sed 's/tokens\/batch/tokens/' >>"$work/bad.csv"
"$bin" "$work/bad.csv" "$work/bad_rows.csv" >"$work/out2" 2>"$work/err2" || fail "a bad row stopped the run"
grep -qE '^coverage: 1 of 4 rows described' "$work/out2" || fail "bad rows: $(cat "$work/out2")"
grep -qE '^not described: Imaginary Box .*not in the catalogue' "$work/out2" || fail "unknown system not listed"
grep -qE '^not described: NVIDIA DGX H100 .* \(1 rows\): ' "$work/out2" || fail "bad size not listed"
grep -qE '^not described: DeepSeek .*the notes do not give the tokens per batch' "$work/out2" ||
  fail "DeepEP row without its shape not listed"

[[ $failures -eq 0 ]] && echo "validate_collectives smoke: ok"
exit $((failures > 0))
