#!/usr/bin/env bash
# The GPU check of issue 9, one prepared script for one machine with NVIDIA GPUs (sized for 8
# minutes on one H200 with 16 cores): build weft and weft-exec, run the single-GPU calibration
# schedule (bf16 GEMM sweep, device and host<->device copies, single-rank NCCL all-reduces for the
# launch overhead), calibrate, print predicted vs measured. With 2+ GPUs also an all-reduce /
# all-gather sweep over all of them (NCCL refuses two ranks on one GPU).
#
#   executor/gpu-check.sh [--out DIR] [--build-dir DIR] [--jobs N]
#   executor/gpu-check.sh --dry-run --weft PATH --build-dir DIR   # no GPU: lower, validate, expect exit 69
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build-gpu
out=${TMPDIR:-/tmp}/weft-gpu-check
jobs=$(nproc)
dry=0
weft=
while [[ $# -gt 0 ]]; do
  case $1 in
    --dry-run) dry=1 ;;
    --weft) weft=$2; shift ;;
    --build-dir) build=$2; shift ;;
    --out) out=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    *) echo "gpu-check: unknown argument $1" >&2; exit 64 ;;
  esac
  shift
done
start=$(date +%s)
step() { echo "== gpu-check [$(($(date +%s) - start)) s] $*"; }
[[ $dry -eq 1 ]] && out=$(mktemp -d)
mkdir -p "$out"

if [[ $dry -eq 0 ]]; then
  step "build weft and weft-exec in $build ($jobs jobs)"
  generator=(-G Ninja)
  command -v ninja >/dev/null || generator=()
  cmake -S "$src" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DWEFT_BENCH=OFF -DWEFT_PYTHON=OFF >"$out/cmake.log"
  timeout 300 cmake --build "$build" -j "$jobs" --target weft weft-exec >"$out/build.log" || {
    tail -30 "$out/build.log"; echo "gpu-check: build failed or took over 5 min" >&2; exit 1; }
  weft=$build/weft
fi
exec_gpu=$build/executor/weft-exec
[[ -n $weft && -x $weft ]] || { echo "gpu-check: no weft binary (--weft)" >&2; exit 64; }

# The catalogue GPU the predictions assume, from the first GPU's name.
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
case $name in
  *H200*) gpu=h200 ;; *H100*PCIe*) gpu=h100-pcie ;; *H100*) gpu=h100-sxm ;; *A100*40GB*) gpu=a100-40gb ;;
  *A100*) gpu=a100-80gb ;; *B200*) gpu=b200 ;; *) gpu=h200 ;;
esac
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
step "GPU: ${name:-none} -> catalogue $gpu; $gpus GPUs"

step "lower the single-GPU calibration schedule"
"$weft" lower --gpu-sweep "$gpu" --out "$out/single"

# Collectives over all GPUs of this node: NVLink ring, 1 KiB - 256 MiB.
{
  echo "name: all-reduce/all-gather over the node's GPUs"
  echo "system: {topology: single-switch, ranks: $((gpus > 1 ? gpus : 2)), link: {kind: nvlink, rate: 3600Gbps, latency: 1us}}"
  echo "workload:"
  echo "  collectives:"
  for op in all_reduce all_gather; do
    for ((l = 10; l <= 28; l++)); do echo "    - {op: $op, size: $((1 << l))}"; done
  done
} >"$out/collectives.yaml"
"$weft" lower "$out/collectives.yaml" --out "$out/multi" >/dev/null

if [[ $dry -eq 1 ]]; then
  if [[ -x $exec_gpu ]]; then
    step "weft-exec --check (no GPU needed)"
    "$exec_gpu" "$out/single/schedule.json" --check
    "$exec_gpu" "$out/multi/schedule.json" --check
    if [[ $gpus -eq 0 ]]; then
      rc=0
      "$exec_gpu" "$out/single/schedule.json" --single-process --out "$out/none.json" 2>"$out/err" || rc=$?
      cat "$out/err"
      [[ $rc -eq 69 ]] || { echo "gpu-check: without a GPU weft-exec exited $rc, expected 69" >&2; exit 1; }
      [[ ! -e $out/none.json ]] || { echo "gpu-check: a measurement without a GPU" >&2; exit 1; }
    fi
  else
    step "weft-exec not built here (no CUDA/NCCL): lowering checked only"
  fi
  step "dry run: would run weft-exec --single-process, weft calibrate and weft compare-real"
  rm -rf "$out"
  exit 0
fi

step "run the single-GPU schedule (2 warm-up + 5 repeats)"
timeout 180 "$exec_gpu" "$out/single/schedule.json" --single-process --out "$out/single/measured.json" --warmup 2 --repeats 5
step "calibrate"
"$weft" calibrate "$out/single/measured.json" --out "$out/single/profile.yaml"
cat "$out/single/profile.yaml"
step "predicted (weft's defaults) vs measured"
"$weft" compare-real --predicted "$out/single/predicted.json" --measured "$out/single/measured.json" --rows 100

if [[ $gpus -ge 2 ]]; then
  step "collectives over $gpus GPUs (NCCL Ring/Simple forced), then NCCL's own choice"
  timeout 120 "$exec_gpu" "$out/multi/schedule.json" --single-process --out "$out/multi/measured.json" --warmup 2 --repeats 5
  timeout 120 "$exec_gpu" "$out/multi/schedule.json" --single-process --nccl-choice --out "$out/multi/choice.json" --warmup 2 --repeats 5
  "$weft" calibrate "$out/multi/measured.json" --out "$out/multi/profile.yaml" --holdout
  "$weft" compare-real --predicted "$out/multi/predicted.json" --measured "$out/multi/measured.json" --rows 0
else
  step "one GPU: multi-GPU collectives skipped (NCCL refuses two ranks on one GPU)"
fi
step "done; files in $out"
