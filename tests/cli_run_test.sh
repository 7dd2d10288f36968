#!/usr/bin/env bash
# End-to-end checks of `weft run --out` and `weft validate`: the output files exist and parse,
# summary.json is byte-identical between two runs (same seed), no temporary files are left, Ctrl-C
# stops with exit 130 and no summary.json, and validate answers ok / file:line:column with exit 0 / 1.
# Usage: cli_run_test.sh WEFT_BINARY SOURCE_DIR
set -euo pipefail
weft="$1"
source_dir="$2"  # unused for now: the scenarios are written below, so the test reads like its input
: "$source_dir"
python=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# A small training step (16 GPUs, two layers' worth of milliseconds) and one compare: variant.
cat >"$work/small.yaml" <<'EOF'
name: small training
fabric: flow
system:
  name: dgx-h100
  nodes: 2
workload:
  model: llama-2-7b
  parallel: {tp: 2, pp: 2}
  collective_timing: isolated
  batch: {global: 8, micro: 1}
  seq_len: 1024
compare:
  - name: tp8
    set: {workload.parallel.tp: 8}
EOF

# --- weft run --out --------------------------------------------------------------------------
"$weft" run "$work/small.yaml" --out "$work/out1" >"$work/stdout1" 2>"$work/stderr1" ||
  fail "run --out: exit $? ($(cat "$work/stderr1"))"
grep -q 'speedup' "$work/stdout1" || fail "run --out: no comparison table on stdout"
for f in summary.json report.txt variants.csv collectives.csv trace.json trace-tp8.json; do
  [[ -s "$work/out1/$f" ]] || fail "run --out: $f missing or empty"
done
leftovers=$(find "$work/out1" -name '.*.tmp')
[[ -z "$leftovers" ]] || fail "run --out: temporary files left: $leftovers"
cmp -s "$work/out1/report.txt" "$work/stdout1" || fail "run --out: report.txt differs from the table printed"

"$python" - "$work/out1" <<'EOF' || fail "run --out: the files do not parse as expected"
import csv, json, sys
out = sys.argv[1]
summary = json.load(open(f"{out}/summary.json"))
assert summary, "empty summary.json"
rows = list(csv.reader(open(f"{out}/variants.csv")))
assert len(rows) == 3, f"variants.csv: {len(rows)} rows, expected a header and 2 variants"
assert len(list(csv.reader(open(f"{out}/collectives.csv")))) > 1, "collectives.csv has no rows"
for name in ("trace.json", "trace-tp8.json"):
    trace = json.load(open(f"{out}/{name}"))
    events = trace["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    ops = [e for e in events if e["ph"] == "X"]
    ranks = {pid for pid, title in processes.items() if title.startswith("rank ")}
    assert ranks == set(range(16)), f"{name}: processes {sorted(ranks)}, expected ranks 0-15"
    # The busiest links' utilisation, in a process after the ranks, percent in [0, 100].
    assert processes.get(16) == "links, busiest first", f"{name}: no link process: {processes.get(16)}"
    util = [e for e in events if e["ph"] == "C" and e["pid"] == 16]
    assert util and all(0 <= e["args"]["util %"] <= 100 for e in util), f"{name}: bad link counters"
    assert ops and all(e["dur"] >= 0 for e in ops), f"{name}: no op events or negative durations"
    assert any(e["ph"] == "C" for e in events), f"{name}: no counter track"
EOF

# Same scenario, same seed: byte-identical summary.json.
"$weft" run "$work/small.yaml" --out "$work/out2" --quiet >/dev/null || fail "second run: exit $?"

# software: 2023 is named on the plan line and slows attention (FlashAttention-2 on Hopper).
"$weft" run "$work/small.yaml" --set workload.software=2023 --quiet >"$work/stdout_2023" 2>/dev/null ||
  fail "software 2023: exit $?"
grep -qE '^   plan .*; bf16; software 2023$' "$work/stdout_2023" || fail "software 2023: $(head -4 "$work/stdout_2023")"
grep -qE '^   plan .*; bf16$' "$work/stdout1" || fail "default software named on the plan line"
cmp -s "$work/out1/summary.json" "$work/out2/summary.json" || fail "summary.json differs between two runs"

# --- Ctrl-C ----------------------------------------------------------------------------------
# A step that takes the flow fabric several seconds (shared collective timing, 4k tokens, 64 micro-
# batches), interrupted after one: exit 130, one line on stderr, no summary.json.
sed -e 's/collective_timing: isolated/collective_timing: shared/' -e 's/seq_len: 1024/seq_len: 4096/' \
  -e 's/global: 8,/global: 256,/' "$work/small.yaml" >"$work/long.yaml"
rc=0
timeout --preserve-status -s INT 1 "$weft" run "$work/long.yaml" --out "$work/out3" >/dev/null 2>"$work/stderr3" || rc=$?
[[ $rc -eq 130 ]] || fail "Ctrl-C: exit $rc, expected 130 ($(cat "$work/stderr3"))"
grep -q 'interrupted' "$work/stderr3" || fail "Ctrl-C: no 'interrupted' message: $(cat "$work/stderr3")"
[[ ! -e "$work/out3/summary.json" ]] || fail "Ctrl-C: summary.json written by a stopped run"

# --- weft validate ---------------------------------------------------------------------------
out=$("$weft" validate "$work/small.yaml") || fail "validate good file: exit $?"
[[ "$out" == "$work/small.yaml: ok (2 variants: 'baseline', 'tp8')" ]] || fail "validate good file: '$out'"

sed 's/  seq_len: 1024/  seq_len: 1024\n  bogus: 3/' "$work/small.yaml" >"$work/bad.yaml"
rc=0
"$weft" validate "$work/bad.yaml" >/dev/null 2>"$work/stderr4" || rc=$?
[[ $rc -eq 1 ]] || fail "validate bad key: exit $rc, expected 1"
grep -qE "bad\.yaml:12:3: unknown key 'bogus'" "$work/stderr4" ||
  fail "validate bad key: no file:line:column message: $(cat "$work/stderr4")"

# A plan that cannot run (tp does not divide 16 GPUs evenly with pp 2: 3 x 2 x dp != 16).
sed 's/tp: 2, pp: 2/tp: 3, pp: 2/' "$work/small.yaml" >"$work/plan.yaml"
rc=0
"$weft" validate "$work/plan.yaml" >/dev/null 2>"$work/stderr5" || rc=$?
[[ $rc -eq 1 ]] || fail "validate impossible plan: exit $rc, expected 1"
grep -qE 'plan\.yaml:[0-9]+:[0-9]+:' "$work/stderr5" || fail "validate impossible plan: $(cat "$work/stderr5")"

echo "cli_run_test: all checks passed"
