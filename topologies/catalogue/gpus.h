// GPU catalogue: peak dense throughput per precision, memory, and the links each GPU has, from the
// vendor data sheets cited beside each entry in gpus.cpp.
#pragma once

#include <span>
#include <string_view>

#include "sim/core/units.h"

namespace weft::catalogue {

struct GpuSpec {
  std::string_view name;         // catalogue key, lower case: "h100-sxm", "rtx-4090", ...
  std::string_view description;  // one line, e.g. "NVIDIA H100 SXM5 80 GB (Hopper)"
  double fp32_flops = 0;         // dense FLOP/s (no sparsity)
  double tf32_flops = 0;         // dense tensor-core FLOP/s; 0 when the GPU has none
  double bf16_flops = 0;         // dense tensor-core FLOP/s for bf16 / fp16
  double fp8_flops = 0;          // dense tensor-core FLOP/s; 0 before Hopper / Ada
  double memory_bandwidth = 0;   // bytes/s
  Bytes memory;                  // bytes of HBM / GDDR
  int nvlink_generation = 0;     // 0 when the GPU has no NVLink
  int nvlink_links = 0;          // NVLink links (bridge links for consumer cards)
  int pcie_generation = 0;
  int pcie_lanes = 16;
  double tdp_watts = 0;
  // Streaming multiprocessors: NCCL's kernels hold one per channel while they run, which compute
  // beside them loses (workloads/sm_share.h).
  int sms = 0;
};

std::span<const GpuSpec> gpus();
// Throws ConfigError listing the known names (and the closest one) for an unknown name.
const GpuSpec& gpu(std::string_view name);

}  // namespace weft::catalogue
