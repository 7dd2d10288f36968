#!/usr/bin/env bash
# Every bundled example scenario runs (short forms: fewer nodes and sequences, same plan shape),
# and `weft validate` accepts each one in full. Usage: examples_test.sh WEFT SOURCE_DIR
set -euo pipefail
weft=$1
examples=$2/scenarios/examples
fail() { echo "FAIL: $*" >&2; exit 1; }

for f in "$examples"/*.yaml; do
  "$weft" validate "$f" >/dev/null || fail "validate $f"
done

run_short() {  # name, expected text, file, --set arguments...
  local name=$1 expect=$2 file=$3
  shift 3
  local args=()
  for s in "$@"; do args+=(--set "$s"); done
  out=$("$weft" run -q "$examples/$file" "${args[@]}") || fail "$name: weft run failed"
  grep -Eq "$expect" <<<"$out" || fail "$name: expected /$expect/ in output:"$'\n'"$out"
  echo "ok $name"
}

run_short collectives 'all_gather' collectives-8gpu.yaml
run_short pod 'speedup' dgx-h100-pod-llama3-70b.yaml system.nodes=8 workload.batch.global=16 workload.seq_len=2048
# One node cannot hold Mixtral 8x7B's Adam states (ep 8 on 8 GPUs leaves no expert data parallelism to
# shard them over: 117 GiB of 80), so the shrunk run simulates anyway.
run_short mixtral 'exp\.EP' mixtral-64gpu-expert-parallel.yaml system.nodes=1 workload.batch.global=8 workload.seq_len=1024 workload.allow_oom=true
run_short gpt3 'TFLOP/s' gpt3-175b-1024-a100.yaml system.nodes=16 workload.parallel.dp=1 workload.batch.global=16
run_short resnet-trace 'replayed from the trace: 16 ranks' resnet50-trace-fabrics.yaml
run_short serving-8b 'side by side' serving-8b-gpus.yaml workload.serving.requests.count=200
run_short serving-70b 'NVSwitch, tp 8' serving-70b-tp-pcie-vs-nvlink.yaml workload.serving.requests.count=60
run_short serving-disaggregated 'KV caches to decode' serving-70b-disaggregated.yaml workload.serving.requests.count=40
run_short serving-prefix 'prefix cache: ' serving-8b-shared-prefix.yaml workload.serving.requests.count=40
run_short serving-pipeline 'activations between stages' serving-405b-tp-vs-pp.yaml workload.serving.requests.count=30
run_short serving-moe 'an attention engine per GPU' serving-moe-tp-vs-ep.yaml workload.serving.requests.count=60
