#!/usr/bin/env bash
# weft trace info / export end to end: real ETs summarised, a scenario's step exported as Chakra ETs
# and read back, bad files named. Usage: cli_trace_test.sh WEFT SOURCE_DIR
set -euo pipefail
weft=$1
src=$2
traces=$src/../shared/traces
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# ASTRA-sim's minimal ETs: 8 ranks, one 1 MiB all-reduce each (8 instances over all ranks).
out=$("$weft" trace info "$traces/astra-sim/all_reduce_8npus_1MB/all_reduce.{rank}.et")
grep -q "8 files" <<<"$out" || fail "trace info: no '8 files' in"$'\n'"$out"
grep -Eq "^all_reduce +1048576 +8 +8$" <<<"$out" || fail "trace info: no 1 MiB all-reduce row in"$'\n'"$out"

# The Chakra ResNet trace: the 14 CPU-side collectives are named as left out.
out=$("$weft" trace info "$traces/chakra/resnet50_ddp_2gpu.rank0.et")
grep -q "14 CPU-side collective nodes" <<<"$out" || fail "trace info: CPU-side nodes not reported"

# Export the default scenario's step (short form: one box) and read it back with its process groups.
"$weft" trace export "$src/scenarios/default.yaml" --out "$work/et" --set system.nodes=1 \
  --set workload.batch.global=4 >/dev/null || fail "trace export"
[[ -f "$work/et/default.comm_group.json" ]] || fail "trace export wrote no comm_group.json"
out=$("$weft" trace info "$work/et/default.{rank}.et")
grep -q "trace default: 8 ranks" <<<"$out" || fail "round trip: not 8 ranks in"$'\n'"$out"
grep -Eq "^(0|1) +other +0,1$" <<<"$out" || fail "round trip: the tp pair {0,1} is missing in"$'\n'"$out"

# Bad input: a clear error naming the file, exit 2.
head -c 100 "$traces/chakra/resnet50_ddp_2gpu.rank0.et" >"$work/cut.et"
rc=0
err=$("$weft" trace info "$work/cut.et" 2>&1 >/dev/null) || rc=$?
[[ $rc -eq 2 ]] || fail "truncated ET: exit $rc, expected 2"
grep -q "cut.et" <<<"$err" || fail "truncated ET: the error does not name the file: $err"
echo "ok trace info/export"
