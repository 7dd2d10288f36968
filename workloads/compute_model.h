// The compute model: a roofline per GPU type. An op takes
//   max(flops / (peak(precision) x efficiency(class)), bytes / (HBM bandwidth x memory efficiency)),
// with peaks from the GPU catalogue (dense, no sparsity) and efficiencies from a ComputeProfile:
// built-in defaults measured in public benchmarks (sources in compute_model.cpp), overridable
// from a calibration file.
//
// Profile file format (YAML, read by scenarios/compute_profile_file.h; every key optional; a typo or an
// unknown key is an error with file:line:column):
//
//   source: "nsys of Llama-3-8B on 8x H100, March 2025"   # free text, reported with results
//   efficiency:            # every GPU: fractions in (0, 1]
//     gemm: 0.75           #   of the dense tensor-core peak, bf16/fp16/tf32/fp32 GEMMs
//     gemm_fp8: 0.65       #   of the dense fp8 peak, fp8 GEMMs
//     attention: 0.55      #   of the dense peak, fused attention forward + backward
//     memory: 0.85         #   of the HBM bandwidth, streaming kernels
//     norm: 0.94           #   of the streaming rate (memory), LayerNorm / RMSNorm forward over a fused
//     norm_backward: 0.87  #   norm's bytes (read x, write y; backward read x and dy, write dx)
//   gpus:                  # per catalogue GPU (topologies/catalogue/gpus.cpp); wins over `efficiency`
//     h100-sxm: {gemm: 0.78, memory: 0.9}
//
// Precedence for a GPU and a field: the file's gpus entry, then the file's efficiency, then weft's
// built-in per-GPU value, then weft's built-in default.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.h"
#include "topologies/catalogue/gpus.h"

namespace weft {

enum class Precision { fp32, tf32, bf16, fp16, fp8 };

// gemm: tensor-core matrix products (projections, MLP, logits). attention: fused flash-attention
// kernels. memory_bound: norms, elementwise, softmax outside flash-attention; their FLOPs run on
// the fp32 vector units whatever the storage precision, and their bytes usually decide the time.
enum class OpClass { gemm, attention, memory_bound };

std::string_view precision_name(Precision p);
// "fp32", "tf32", "bf16", "fp16", "fp8"; ConfigError listing them otherwise.
Precision parse_precision(std::string_view name);
// Bytes per element: 4, 4 (tf32 is stored as fp32), 2, 2, 1.
uint32_t element_bytes(Precision p);
// Bytes per output element of a GEMM at `p`: element_bytes, but 2 for fp8 (Transformer Engine's fp8
// GEMMs write bf16).
uint32_t gemm_output_bytes(Precision p);

// Dense FLOP/s of `gpu` at `p` (fp16 uses the catalogue's bf16 figure: the same tensor-core rate on
// every catalogue GPU). ConfigError naming the GPU and the precisions it has when it lacks `p`.
double peak_flops(const catalogue::GpuSpec& gpu, Precision p);

// Fractions of peak one GPU reaches.
// norm and norm_backward are fractions of the streaming rate (HBM bandwidth x memory), as the norm
// kernels' effective bandwidth over the bytes a fused norm moves: forward reads x and writes y,
// backward reads x and dy and writes dx. A norm whose backward reads x and dy twice (PyTorch's eager
// LayerNorm) reaches 3/5 of the rate its kernels stream at.
struct Efficiencies {
  double gemm = 0;
  double gemm_fp8 = 0;
  double attention = 0;
  double memory = 0;
  double norm = 1;  // 1: a fused norm at the streaming rate
  double norm_backward = 1;
};

// Fields left empty fall through to the next layer (see the precedence above).
struct EfficiencyOverrides {
  std::optional<double> gemm, gemm_fp8, attention, memory, norm, norm_backward;
};

struct GpuEfficiencies {
  std::string gpu;  // catalogue name
  EfficiencyOverrides set;
  std::string source;
};

// The software generation the efficiencies come from: the same GPU reaches a different fraction of
// its peak under each (attention above all: flash-attention 1, 2 and 3 differ by up to 2x).
//   y2025: FlashAttention-3 class kernels on Hopper (cuDNN 9 / Transformer Engine), FlashAttention-2
//          elsewhere; the GEMM ceilings of 2025's PyTorch and cuBLAS. weft's default.
//   y2023: the stacks of early to mid 2023: FlashAttention 1 on Ampere and older, FlashAttention-2
//          on Hopper, PyTorch's eager LayerNorm (sources in compute_model.cpp).
//   y2021: Megatron-LM of 2021: 2023's figures with apex's affine LayerNorm kernels of 2020, which
//          Megatron-LM copied into its fused_kernels (FlashAttention did not exist yet; a workload
//          says flash_attention: false).
enum class SoftwareStack : uint8_t { y2021, y2023, y2025 };
// "2021", "2023", "2025".
std::string_view software_name(SoftwareStack s);
// Takes "2021", "2023" or "2025"; ConfigError listing them otherwise.
SoftwareStack parse_software(std::string_view name);

struct ComputeProfile {
  SoftwareStack software = SoftwareStack::y2025;
  Efficiencies all;                   // every GPU not overridden below
  std::vector<GpuEfficiencies> gpus;  // per catalogue GPU
  std::string source;                 // where the numbers come from
  // The efficiencies `gpu` runs at (its entry's fields over `all`).
  Efficiencies resolve(std::string_view gpu) const;
};

// weft's defaults: public measurements, cited in compute_model.cpp; not fitted to
// ../shared/validation/training.csv, which stays a held-out check.
ComputeProfile default_compute_profile(SoftwareStack software = SoftwareStack::y2025);
// One row per efficiency field (its key in a profile file), so reading, merging and clearing are
// written once.
struct EfficiencyField {
  const char* key;
  double Efficiencies::*value;
  std::optional<double> EfficiencyOverrides::*set;
};
extern const EfficiencyField kEfficiencyFields[6];

// What a profile file sets: `efficiency` for every GPU, `gpus` per catalogue GPU (canonical names).
struct ProfileOverrides {
  std::optional<EfficiencyOverrides> all;
  std::vector<GpuEfficiencies> gpus;  // in file order; `source` unused
  std::string source;
};

// The defaults of `software` with a profile file's values on top (the precedence above).
ComputeProfile with_profile_overrides(const ProfileOverrides& file, SoftwareStack software = SoftwareStack::y2025);

// Time of one op on one GPU, rounded up to the picosecond. flops and bytes are >= 0.
Time op_time(const catalogue::GpuSpec& gpu, Precision p, OpClass c, double flops, double bytes,
             const Efficiencies& eff);
Time op_time(const catalogue::GpuSpec& gpu, Precision p, OpClass c, double flops, double bytes,
             const ComputeProfile& profile);

// FLOP/s the FLOPs of an op of class `c` run at on `gpu`: the peak at `p` times the class's efficiency.
double compute_rate(const catalogue::GpuSpec& gpu, Precision p, OpClass c, const Efficiencies& eff);

// FLOPs per byte above which an op of class `c` is compute-bound on `gpu` (the roofline's ridge).
double ridge_point(const catalogue::GpuSpec& gpu, Precision p, OpClass c, const Efficiencies& eff);

}  // namespace weft
