#!/usr/bin/env bash
# weft collective --compare and weft calibrate on nccl-tests logs rebuilt from ../shared/validation rows (their published
# out-of-place values; in-place columns N/A as the sources give none), and on malformed logs: clear
# errors, exit 2, nothing printed on stdout. Skips (exit 0) where the table is absent.
set -u
weft="$1"
table="$2/../shared/validation/collectives.csv"
if [[ ! -f "$table" ]]; then echo "SKIP: $table missing"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# rebuild SYSTEM HOSTS GPUS_PER_HOST TEST OUT [GPUS_PER_THREAD]: an nccl-tests log of the system's rows with a time.
rebuild() {
  /usr/bin/python3 - "$table" "$@" <<'PY'
import csv, sys
table, system, hosts, per_host, test, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
gpus = int(sys.argv[7]) if len(sys.argv) > 7 else 1
rows = [r for r in csv.DictReader(open(table)) if r["system"] == system and r["time_us"]]
with open(out, "w") as f:
    f.write(f"# Collective test starting: {test}\n# nThread 1 nGpus {gpus} minBytes 8 maxBytes 8 step: 2(factor)\n#\n# Using devices\n")
    for r in range(hosts * per_host):
        f.write(f"#  Rank {r:2d} Group  0 Pid {1000 + r} on node{r // per_host} device {r % per_host} [0x00] GPU\n")
    f.write("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n")
    for r in rows:
        b = int(r["bytes"])
        f.write(f"{b:12d} {b // 4:13d} float sum -1 {r['time_us']} {r['algbw_GBps'] or 0} {r['busbw_GBps'] or 0} 0 N/A N/A N/A N/A\n")
    f.write("# Avg bus bandwidth    : 0\n")
print(len(rows))
PY
}

n=$(rebuild "NVIDIA DGX H100 (8x H100 SXM 80GB)" 1 8 all_reduce_perf "$work/dgx.log")
"$weft" collective --system dgx-h100 --compare "$work/dgx.log" >"$work/out" 2>"$work/err" || fail "dgx: $(cat "$work/err")"
[[ $(grep -cE '^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+% ' "$work/out") -eq $n ]] || fail "dgx: expected $n rows: $(cat "$work/out")"
grep -q '^# weft collective --compare .*all_reduce on dgx-h100 x1 nodes, 8 ranks' "$work/out" || fail "dgx header"
for band in "latency-bound" "middle" "bandwidth-bound"; do
  grep -qE "^# $band.*rows, median error [-+][0-9.]+%, median \|error\| [0-9.]+%" "$work/out" || fail "no $band summary"
done
"$weft" collective --system dgx-h100 --compare "$work/dgx.log" --format json >"$work/json" || fail "json"
/usr/bin/python3 -c "import json,sys; j=json.load(open('$work/json')); assert len(j['rows'])==$n and j['rows'][0]['measured_us']>0" ||
  fail "json rows"

# The log's NCCL version picks the tuner's constants: 2.18.5 has 2.18.3's tuning.cc, and says so.
sed 's/^# Using devices/#  NCCL version 2.18.5+cuda12.2\n# Using devices/' "$work/dgx.log" >"$work/dgx-2185.log"
"$weft" collective --system dgx-h100 --compare "$work/dgx-2185.log" >"$work/out" 2>"$work/err" || fail "2.18.5: $(cat "$work/err")"
grep -q "NCCL 2.18.3 constants (the log's NCCL 2.18.5 has the same tuning.cc)" "$work/out" || fail "2.18.5: $(head -1 "$work/out")"

# Two hosts of 8: the log's hosts give the nodes (p4de over EFA).
rebuild "AWS p4de.24xlarge (8x A100 80GB)" 2 8 all_reduce_perf "$work/p4de.log" >/dev/null
"$weft" collective --system aws-p4de --compare "$work/p4de.log" >"$work/out" 2>"$work/err" || fail "p4de: $(cat "$work/err")"
grep -q 'on aws-p4de x2 nodes, 16 ranks' "$work/out" || fail "p4de: nodes from the log's hosts"
"$weft" collective --system aws-p4de --nodes 3 --compare "$work/p4de.log" >"$work/out" 2>"$work/err"
[[ $? -eq 2 && ! -s "$work/out" ]] && grep -q "contradicts" "$work/err" || fail "--nodes 3 against 2 hosts: $(cat "$work/err")"
"$weft" collective --system dgx-h100 --compare "$work/p4de.log" --op all_gather >"$work/out" 2>"$work/err"
[[ $? -eq 2 ]] && grep -q "contradicts" "$work/err" || fail "--op against the log's test"
"$weft" collective --compare "$work/p4de.log" >"$work/out" 2>"$work/err"
[[ $? -eq 2 ]] && grep -q "needs --system" "$work/err" || fail "no --system"

# One thread driving 8 GPUs (-g 8, DGX-1 V100): the smallest rows are host-bound, 8 launches of 3.25 us.
rebuild "8x Tesla V100-SXM2-16GB (hybrid cube-mesh NV1/NV2, DGX-1-like)" 1 8 all_reduce_perf "$work/v100.log" 8 >/dev/null
"$weft" collective --system dgx1-v100 --compare "$work/v100.log" >"$work/out" 2>"$work/err" || fail "v100: $(cat "$work/err")"
grep -q '8 ranks (8 GPU(s) per thread)' "$work/out" || fail "v100: -g 8 not read from the log"
grep -qE '^ +8 +[0-9.]+ +26\.00 ' "$work/out" || fail "v100: 8 B not host-bound at 26 us: $(cat "$work/out")"
"$weft" collective --system dgx1-v100 -g 4 --compare "$work/v100.log" >"$work/out" 2>"$work/err"
[[ $? -eq 2 ]] && grep -q "contradicts" "$work/err" || fail "-g 4 against the log's nGpus 8"

# Malformed: a time that is not a number; a log with no table.
sed 's/ 13.67 / 13.6x7 /' "$work/dgx.log" >"$work/bad.log"
"$weft" collective --system dgx-h100 --compare "$work/bad.log" >"$work/out" 2>"$work/err"
[[ $? -eq 2 && ! -s "$work/out" ]] && grep -q "bad.log:[0-9]*: column 6 (time): expected a number, got '13.6x7'" "$work/err" ||
  fail "bad number: $(cat "$work/err")"
grep '^#' "$work/dgx.log" >"$work/empty.log"
"$weft" collective --system dgx-h100 --compare "$work/empty.log" >"$work/out" 2>"$work/err"
[[ $? -eq 2 ]] && grep -q "no nccl-tests table" "$work/err" || fail "no table: $(cat "$work/err")"

# weft calibrate takes the log too: series under the algorithm weft's tuner picks per size on the system,
# and the profile it writes times those sizes in weft collective --calibration.
"$weft" calibrate "$work/dgx.log" --system dgx-h100 --holdout --out "$work/prof/p.yaml" >"$work/out" 2>"$work/err" ||
  fail "calibrate: $(cat "$work/err")"
grep -qE '^all_reduce x8 nvls/simple intra' "$work/out" || fail "calibrate: no NVLS series: $(cat "$work/out")"
grep -qE '^holdout median \|error\| = [0-9.]+ %' "$work/out" || fail "calibrate: no held-out error"
[[ -f "$work/prof/p.network.yaml" ]] || fail "calibrate: no network profile"
"$weft" collective --system dgx-h100 -b 8 -e 1G -f 32 --calibration "$work/prof/p.network.yaml" >"$work/out" ||
  fail "collective --calibration"
grep -qE '^# 6 of 6 sizes timed by the measured fits' "$work/out" || fail "the profile did not time the sizes"
"$weft" calibrate "$work/dgx.log" --out "$work/nosys/p.yaml" >"$work/out" 2>"$work/err"
[[ $? -eq 2 && ! -e "$work/nosys" ]] && grep -q "needs --system" "$work/err" || fail "calibrate without --system"
"$weft" calibrate "$work/bad.log" --system dgx-h100 --out "$work/bad/p.yaml" >"$work/out" 2>"$work/err"
[[ $? -eq 2 && ! -e "$work/bad" ]] && grep -q "column 6 (time)" "$work/err" || fail "calibrate a bad log wrote files"

[[ $failures -eq 0 ]] && echo "nccl-tests compare: ok"
exit $((failures > 0))
