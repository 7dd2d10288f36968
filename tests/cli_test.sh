#!/usr/bin/env bash
# End-to-end checks of the weft binary: help and version, a sweep in every format, determinism
# (same seed -> byte-identical JSON), and clear one-line errors with a non-zero exit for bad input.
set -u
weft="$1"
source_dir="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

pass() { :; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_ok NAME PATTERN CMD...: exit 0 and stdout matching PATTERN
expect_ok() {
  local name="$1" pattern="$2"; shift 2
  local out
  if ! out=$("$@" 2>"$work/err"); then fail "$name: exit $? ($(cat "$work/err"))"; return; fi
  grep -qE -- "$pattern" <<<"$out" || fail "$name: output does not match /$pattern/: $out"
}

# expect_error NAME PATTERN CMD...: non-zero exit (not a crash) and stderr matching PATTERN
expect_error() {
  local name="$1" pattern="$2"; shift 2
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [[ $rc -eq 0 ]]; then fail "$name: exited 0"; return; fi
  if [[ $rc -ge 128 ]]; then fail "$name: crashed with signal $((rc - 128))"; return; fi
  grep -qE -- "$pattern" "$work/err" || fail "$name: stderr does not match /$pattern/: $(cat "$work/err")"
}

expect_ok version '^weft [0-9]+\.[0-9]+\.[0-9]+' "$weft" --version
expect_ok help 'collective' "$weft" --help
expect_ok collective-help 'link-rate' "$weft" collective --help
expect_ok table 'busbw' "$weft" collective --ranks 4 -b 8 -e 1M
expect_ok csv '^size,count,type,time_us,algbw_GBps,busbw_GBps' "$weft" collective --ranks 4 -e 64K --format csv
expect_ok ring-analytic '"fabric": "analytic"' "$weft" collective --topology ring --ranks 6 --fabric analytic --op all_gather --format json
expect_ok run-default 'speedup' "$weft" run
expect_ok run-file 'all_reduce' "$weft" run "$source_dir/scenarios/examples/collectives-8gpu.yaml" --fabric analytic

# Traffic patterns: FCT statistics and fabric counters.
expect_ok run-incast 'fct_p99' "$weft" run "$source_dir/scenarios/incast.yaml"
expect_ok run-incast-counters '^transfers +16$' "$weft" run "$source_dir/scenarios/incast.yaml"
expect_ok run-incast-csv '^src,dst,bytes,start_us,fct_us,ideal_us,slowdown' "$weft" run "$source_dir/scenarios/incast.yaml" --format csv
expect_ok run-incast-csv-row '^16,0,10000000,0\.000000,12802\.000000,802\.000000,' "$weft" run "$source_dir/scenarios/incast.yaml" --format csv
expect_ok run-incast-json '"fct_p99_us": 12802' "$weft" run "$source_dir/scenarios/incast.yaml" --format json
expect_ok run-incast-analytic 'analytic fabric' "$weft" run "$source_dir/scenarios/incast.yaml" --fabric analytic

# The system catalogue and topologies.
expect_ok systems 'dgx-h100 .*NVSwitch' "$weft" systems
expect_ok fields 'workload.parallel.tp +1 +tensor parallel \(0 to 1048576\)' "$weft" fields workload.training
expect_ok fields-cost 'cost.pue +1.3 ' "$weft" fields cost
expect_error fields-unknown "SECTION: unknown 'nope' \(expected scenario, system, system.custom, fabric.router, fabric" "$weft" fields nope
expect_ok topo-summary 'bisection bandwidth' "$weft" topo dgx-h100 --nodes 2
expect_ok topo-dot '^graph ' "$weft" topo pcie-3090x8-nvlink --dot
expect_ok topo-json '"path_diversity"' "$weft" topo dgx-a100 --nodes 2 --json
expect_ok topo-scenario 'h100' "$weft" topo "$source_dir/scenarios/dgx-h100-2nodes.yaml"
expect_ok collective-system 'dgx-h100 x2 nodes, 16 ranks' "$weft" collective --system dgx-h100 --nodes 2 -b 1M -e 4M
expect_ok collective-set 'pcie-4090x8 x1 nodes, 4 ranks' "$weft" collective --system pcie-4090x8 --set node.gpus=4 -e 1M
expect_ok explain-bottleneck '^# bottleneck at 4194304 bytes: n[0-9]+/[a-z0-9]+ -> [^ ]+ \([a-z]+, [0-9.]+ Gb/s\): [0-9.]+% utilised' \
  "$weft" collective --system dgx-h100 --nodes 2 -b 1M -e 4M --explain
expect_ok explain-all-to-all '^# NCCL runs all_to_all as grouped point-to-point sends' \
  "$weft" collective --system dgx-h100 --nodes 2 -b 1M -e 1M --op all_to_all --explain
expect_ok simgrid-catalogue 'Ring/LL128 x16' "$weft" collective --system dgx-h100 --nodes 2 -b 64M -e 64M --algo Ring \
  --fabric simgrid
expect_ok collnet-sharp 'CollNetDirect/Simple x16' "$weft" collective --system dgx-h100 --nodes 2 --set network.sharp=true \
  --algo CollNetDirect -b 4M -e 4M
expect_ok pat-one-gpu-per-node 'PAT/Simple' "$weft" collective --system pcie-4090x8 --set node.gpus=1 --nodes 4 --op all_gather \
  --algo PAT -b 1M -e 1M
expect_error collnet-no-sharp 'CollNetDirect needs SHARP switches.*available for all_reduce here: Ring' \
  "$weft" collective --system dgx-h100 --nodes 2 --algo CollNetDirect -e 1M
expect_error sharp-on-roce 'sharp = true on roce; SHARP in-network reduction exists only in InfiniBand' \
  "$weft" collective --system hgx-h200 --nodes 2 --set network.sharp=true -e 1M
expect_ok run-system 'all_gather' "$weft" run "$source_dir/scenarios/dgx-h100-2nodes.yaml"
expect_ok simgrid-one-size '"fabric": "simgrid"' "$weft" collective --fabric simgrid -b 4M -e 4M --ranks 8 --format json
expect_error simgrid-sweep 'one simulation per process.*3 sizes; give -b and -e the same size' "$weft" collective --fabric simgrid -b 1M -e 4M
# The SimGrid fabric is a module loaded on first use (sim/simgrid_module.h): a missing one is a clear error.
expect_error simgrid-no-module 'fabric simgrid: cannot load its module /nonexistent/libweft_simgrid.so' \
  env WEFT_SIMGRID_MODULE=/nonexistent/libweft_simgrid.so "$weft" collective --fabric simgrid -b 4M -e 4M --ranks 8
expect_ok packet-collective '"fabric": "packet"' "$weft" collective --fabric packet --ranks 4 -b 1M -e 4M --format json
expect_ok packet-spray 'busbw' "$weft" collective --system dgx-h100 --nodes 2 --fabric packet --routing spray -b 4M -e 4M
expect_ok reduction-order "NVLS/Simple x16 .*65536/" "$weft" collective --system dgx-h100 --reduction-order -b 1M -e 4M -f 4
expect_ok packet-incast 'paused|ecn_marks' "$weft" run "$source_dir/scenarios/incast-roce.yaml"
expect_error spray-needs-packet 'needs the packet fabric' "$weft" collective --routing spray -b 1M -e 1M
expect_error bad-routing 'ecmp, spray or adaptive' "$weft" collective --fabric packet --routing random -b 1M -e 1M
expect_error unknown-system "did you mean 'dgx-h100'" "$weft" topo dgx-h10
expect_error bad-set 'pcie_lanes = 0; expected 1, 2, 4, 8 or 16' "$weft" topo pcie-4090x8 --set node.pcie_lanes=0
expect_error bad-set-key "did you mean 'node.nics'" "$weft" collective --system dgx-h100 --set node.nic=cx7 --set node.nicks=4
expect_error bad-set-form 'KEY=VALUE' "$weft" collective --system dgx-h100 --set nodes

# Determinism: two runs, byte-identical JSON.
"$weft" collective --ranks 16 -b 1K -e 16M --channels 2 --seed 5 --format json >"$work/a.json"
"$weft" collective --ranks 16 -b 1K -e 16M --channels 2 --seed 5 --format json >"$work/b.json"
cmp -s "$work/a.json" "$work/b.json" || fail "collective JSON differs between identical runs"
"$weft" run "$source_dir/scenarios/examples/collectives-8gpu.yaml" --format json >"$work/c.json"
"$weft" run "$source_dir/scenarios/examples/collectives-8gpu.yaml" --format json >"$work/d.json"
cmp -s "$work/c.json" "$work/d.json" || fail "run JSON differs between identical runs"

# A scenario written out (validate --resolved) runs to the same numbers; only its source differs.
for f in default.yaml incast-roce.yaml dgx-h100-2nodes.yaml examples/collectives-8gpu.yaml; do
  "$weft" validate --resolved "$source_dir/scenarios/$f" >"$work/resolved.yaml" || fail "resolved $f: exit $?"
  "$weft" run "$source_dir/scenarios/$f" --format json | grep -v '"source"' >"$work/as-read.json"
  "$weft" run "$work/resolved.yaml" --format json | grep -v '"source"' >"$work/as-written.json"
  cmp -s "$work/as-read.json" "$work/as-written.json" || fail "resolved $f: the written scenario runs otherwise"
done

# Bad command-line values.
expect_error bad-rate 'link-rate.*400Gbps' "$weft" collective --link-rate fast
expect_error bad-latency 'latency' "$weft" collective --latency 3parsecs
expect_error bad-op 'all_reduce' "$weft" collective --op all_reduse
expect_error bad-ranks 'ranks' "$weft" collective --ranks 0
expect_error bad-range 'min-bytes' "$weft" collective -b 1M -e 1K
expect_error bad-topology 'topology' "$weft" collective --topology torus
expect_error bad-format 'format' "$weft" collective --format xml
expect_error no-subcommand 'subcommand' "$weft"

# Bad scenario files: file:line:column, key, expectation.
printf 'system:\n  topology: ring\n  ranks: 4\n  link: {rate: 100Gbps, latency: 1us}\nworkload:\n  collectives:\n    - op: all_reduce\n      size: 1 lightyear\n' >"$work/bad_unit.yaml"
expect_error bad-unit "bad_unit.yaml:8:13: .*size" "$weft" run "$work/bad_unit.yaml"
printf 'system: [unclosed\n' >"$work/bad_syntax.yaml"
expect_error bad-syntax 'bad_syntax.yaml:[0-9]+:[0-9]+: not valid YAML' "$weft" run "$work/bad_syntax.yaml"
expect_error missing-file 'cannot open' "$weft" run "$work/none.yaml"
printf 'system:\n  name: dgx-h100\n  node:\n    pcie_lanes: 3\nworkload:\n  collectives:\n    - {op: all_reduce, size: 1M}\n' >"$work/bad_node.yaml"
expect_error bad-node-field 'bad_node.yaml:[0-9]+:[0-9]+: .*pcie_lanes = 3' "$weft" run "$work/bad_node.yaml"
printf 'system:\n  name: dgx-h100\n  network:\n    radixx: 8\nworkload:\n  collectives:\n    - {op: all_reduce, size: 1M}\n' >"$work/bad_key.yaml"
expect_error bad-network-key "bad_key.yaml:4:[0-9]+: .*did you mean 'network.radix'" "$weft" run "$work/bad_key.yaml"
printf 'system:\n  name: hgx-h200\n  nodes: 2\n  network:\n    sharp: true\nworkload:\n  collectives:\n    - {op: all_reduce, size: 1M}\n' >"$work/sharp_roce.yaml"
expect_error sharp-yaml-roce 'sharp_roce.yaml:[0-9]+:[0-9]+: network: sharp = true on roce' "$weft" run "$work/sharp_roce.yaml"
printf 'system:\n  topology: single-switch\n  ranks: 4\n  link: {rate: 100Gbps, latency: 1us}\nworkload:\n  traffic: incast\n  bytes: 1MB\n  senders: [1, 0]\n' >"$work/bad_traffic.yaml"
expect_error bad-traffic 'bad_traffic.yaml:8:12: senders: rank 0 is the receiver' "$weft" run "$work/bad_traffic.yaml"
printf 'fabric: {model: flow, ecn: {enabled: true}}\nsystem:\n  topology: ring\n  ranks: 4\n  link: {rate: 100Gbps, latency: 1us}\nworkload:\n  traffic: all_to_all\n  bytes: 1MB\n' >"$work/bad_fabric.yaml"
expect_error bad-fabric-map 'bad_fabric.yaml:1:28: ecn: configures the packet fabric only' "$weft" run "$work/bad_fabric.yaml"

# --calibration: measured fits time the sizes they cover. 1 MiB on 8 ranks at 10 us + bytes / 5 GB/s:
# 10 + 1,048,576 / 5e3 = 219.72 us.
cat >"$work/fit.network.yaml" <<'YAML'
format: weft-network-profile
version: 1
series:
  - {kind: collective, op: all_reduce, ranks: 8, algorithm: ring, protocol: simple, link: inter, alpha_us: 10, beta_GBps: 5}
YAML
out=$("$weft" collective --ranks 8 --op all_reduce -b 1M -e 1M --calibration "$work/fit.network.yaml")
grep -Eq "^ +1048576 +262144 +float +219\.72 " <<<"$out" || fail "collective --calibration: 219.72 us expected:"$'\n'"$out"
grep -q "1 of 1 sizes timed by the measured fits" <<<"$out" || fail "collective --calibration: no note"

# weft ep: DeepEP's dispatch and combine. Bad shapes name what is wrong; simgrid runs one phase.
expect_error ep-no-system 'ep needs a catalogue system' "$weft" ep
expect_error ep-experts 'EP exchange: 100 experts do not divide over 8 ranks' "$weft" ep --system dgx-h100 --experts 100
expect_error ep-simgrid-phases 'ask for one phase: dispatch or combine' "$weft" ep --system dgx-h100 --fabric simgrid
out=$("$weft" ep --system dgx-h100 --nodes 2 --tokens 256 --format csv)
grep -Eq '^dispatch,[0-9.]+,[0-9.]+,RDMA,' <<<"$out" && grep -Eq '^combine,' <<<"$out" || fail "weft ep csv:"$'\n'"$out"

if [[ $failures -gt 0 ]]; then
  echo "$failures e2e check(s) failed"
  exit 1
fi
echo "all e2e checks passed"
