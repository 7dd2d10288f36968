#!/usr/bin/env bash
# weft lower / calibrate / compare-real from the command line, without MPI: a training step lowers
# with paired sends, the GPU sweep lowers, errors exit 2 with the reason.
# Usage: cli_lower_test.sh WEFT SOURCE_DIR
set -euo pipefail
weft=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cli_lower_test: FAIL: $*" >&2; exit 1; }

cat >"$work/step.yaml" <<'YAML'
name: dp tp pp
system: {name: dgx-a100, nodes: 2}
workload:
  model: gpt-2-124m
  parallel: {tp: 2, pp: 2}
  collective_timing: isolated
  batch: {global: 8, micro: 1}
  seq_len: 512
YAML
"$weft" lower "$work/step.yaml" --out "$work/step" | grep -q "16 ranks" || fail "lower of a training step"
/usr/bin/python3 - "$work/step/schedule.json" "$work/step/predicted.json" <<'PY' || fail "lowered step content"
import json, sys, collections
s = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
assert s["format"] == "weft-schedule" and s["version"] == 1 and s["ranks"] == 16
assert p["schedule"]["fingerprint"] == s["fingerprint"]
sends, recvs = collections.Counter(), collections.Counter()
for prog in s["programs"]:
    for o in prog["ops"]:
        if o["kind"] == "send": sends[(prog["rank"], o["peer"], o["tag"], o["bytes"])] += 1
        if o["kind"] == "recv": recvs[(o["peer"], prog["rank"], o["tag"], o["bytes"])] += 1
        if o["kind"] == "collective": assert prog["rank"] in s["comms"][o["comm"]]["ranks"]
assert sends and sends == recvs
assert len(p["ops"]) == sum(len(prog["ops"]) for prog in s["programs"])
PY

"$weft" lower --gpu-sweep h200 --max-gemm 1024 --max-copy 4MiB --out "$work/gpu" | grep -q "1 ranks" || fail "gpu sweep"

rc=0
"$weft" lower "$work/step.yaml" --variant nope --out "$work/x" 2>"$work/err" || rc=$?
[[ $rc -eq 2 ]] && grep -q "variant 'nope'" "$work/err" || fail "unknown variant: exit $rc"
rc=0
"$weft" lower --out "$work/x" 2>"$work/err" || rc=$?
[[ $rc -eq 2 ]] || fail "no scenario: exit $rc"
rc=0
"$weft" calibrate "$work/step/predicted.json" --out "$work/p.yaml" 2>"$work/err" || rc=$?
[[ $rc -eq 2 ]] && grep -q "not a weft-measured file" "$work/err" || fail "calibrate of a non-measurement: exit $rc"
echo "cli_lower_test: all checks passed"
