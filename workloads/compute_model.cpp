#include "workloads/compute_model.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "sim/core/errors.h"
#include "sim/core/names.h"

namespace weft {

const EfficiencyField kEfficiencyFields[6] = {
    {"gemm", &Efficiencies::gemm, &EfficiencyOverrides::gemm},
    {"gemm_fp8", &Efficiencies::gemm_fp8, &EfficiencyOverrides::gemm_fp8},
    {"attention", &Efficiencies::attention, &EfficiencyOverrides::attention},
    {"memory", &Efficiencies::memory, &EfficiencyOverrides::memory},
    {"norm", &Efficiencies::norm, &EfficiencyOverrides::norm},
    {"norm_backward", &Efficiencies::norm_backward, &EfficiencyOverrides::norm_backward},
};

namespace {

constexpr std::array<std::string_view, 5> kPrecisionNames = {"fp32", "tf32", "bf16", "fp16", "fp8"};
constexpr std::array<std::string_view, 3> kSoftwareNames = {"2021", "2023", "2025"};

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

// GEMM figures below are the "Maximum Achievable Matmul FLOPS" table of github.com/stas00/ml-engineering
// (compute/accelerator/README.md): the best torch.matmul over a sweep of shapes, mean of 100 runs
// after 50 warm-ups, as a fraction of the dense peak. They are ceilings for well-shaped GEMMs;
// smaller or oddly shaped ones reach less, which a calibration profile can express.
constexpr const char* kMamf = "stas00/ml-engineering MAMF table";
// Flash-attention on Hopper: FlashAttention-3 (Shah et al. 2024, arXiv:2407.08608, abstract) is
// 1.5-2.0x FlashAttention-2, which reaches only 35 % of H100 peak: 0.53-0.70 of peak. We take 0.60,
// in the lower half because training's attention FLOPs are 2/3 backward, the pass that gains least.
constexpr double kHopperAttention = 0.60;
// HBM: te42kyfo/gpu-benches cuda-stream/h100_pcie.txt, STREAM triad at full occupancy 1,832 GB/s of
// the H100 PCIe's 2,000 GB/s.
constexpr double kHopperMemory = 0.916;

std::vector<GpuEfficiencies> default_gpu_entries() {
  const std::string mamf = kMamf;
  return {
      // A100 SXM: 271.2 of 312 TFLOP/s bf16 (torch 2.6.0+cu126).
      {"a100-40gb", {.gemm = 0.869}, mamf + ": A100 SXM bf16 271.2/312"},
      {"a100-80gb", {.gemm = 0.869}, mamf + ": A100 SXM bf16 271.2/312"},
      // H100 SXM: bf16 794.5/989 (torch 2.7.0+cu126), fp8 1402.6/1979. HBM3 efficiency
      // [unverified: assumed equal to the H100 PCIe's measured triad ratio].
      {"h100-sxm",
       {.gemm = 0.803, .gemm_fp8 = 0.709, .attention = kHopperAttention, .memory = kHopperMemory},
       mamf + ": H100 SXM bf16 794.5/989, fp8 1402.6/1979; arXiv:2407.08608; gpu-benches triad (PCIe)"},
      {"h100-pcie", {.memory = kHopperMemory}, "te42kyfo/gpu-benches cuda-stream h100_pcie.txt: triad 1832/2000 GB/s"},
      // H200: the MAMF table notes bf16 "H200 is the same" as H100 SXM; fp8 1453.4/1979.
      {"h200",
       {.gemm = 0.803, .gemm_fp8 = 0.734, .attention = kHopperAttention},
       mamf + ": H200 bf16 as H100 SXM, fp8 1453.4/1979; arXiv:2407.08608"},
      // B200: bf16 1745.0/2250 (torch 2.7.1+cu128), fp8 3432.5/4500.
      {"b200", {.gemm = 0.776, .gemm_fp8 = 0.763}, mamf + ": B200 bf16 1745.0/2250, fp8 3432.5/4500"},
      // GB200: bf16 1822/2500, fp8 3615.6/5000 (torch 2.10.0.dev20250916+cu130).
      {"gb200", {.gemm = 0.729, .gemm_fp8 = 0.723}, mamf + ": GB200 bf16 1822/2500, fp8 3615.6/5000"},
  };
}

// The 2023 stacks' attention, where it differs from 2025's. Ampere and older ran FlashAttention 1
// (flash-attn 1.0.x; FlashAttention-2 appeared in July 2023): FlashAttention-2 is "around 2x" faster
// and reaches 50-73 % of A100 peak (Dao 2023, arXiv:2307.08691, abstract), so FlashAttention 1 reached
// 25-37 %; 0.25, the lower end for the same reason as the 2025 default (backward dominates). Hopper
// ran FlashAttention-2, at "only 35 %" of H100 peak (FlashAttention-3, arXiv:2407.08608, abstract).
// Blackwell had no 2023 stack: its 2025 figures stay.
constexpr double kFlashAttention1 = 0.25;
constexpr double kFlashAttention2OnHopper = 0.35;
constexpr const char* kSoftware2023 =
    "2023 stack: FlashAttention 1 on Ampere (arXiv:2307.08691: FA2 ~2x FA1, 50-73 % of A100 peak), "
    "FlashAttention-2 on Hopper (arXiv:2407.08608: 35 % of H100 peak), PyTorch's eager LayerNorm "
    "(its backward reads x and dy twice)";

// PyTorch's eager LayerNorm (torch.nn.functional.layer_norm; llm-foundry's LPLayerNorm on torch
// 1.13.1): its backward runs layer_norm_grad_input_kernel (reads dY and X, writes dX) and then
// GammaBetaBackwardCUDAKernel, which reads dY and X again for the weight and bias gradients
// (aten/src/ATen/native/cuda/layer_norm_kernel.cu, LayerNormBackwardKernelImplInternal): five tensors
// where a fused backward moves three, so 3/5 of the rate its kernels stream at. The forward kernel
// reads X and writes Y once, as a fused one does.
constexpr double kEagerNormBackward = 3.0 / 5.0;

void apply_2023_stack(ComputeProfile& p) {
  const double attention_2025 = p.all.attention;
  p.all.attention = kFlashAttention1;
  p.all.norm_backward = p.all.norm * kEagerNormBackward;
  for (GpuEfficiencies& g : p.gpus) {
    if (g.gpu == "h100-sxm" || g.gpu == "h100-pcie" || g.gpu == "h200") {
      g.set.attention = kFlashAttention2OnHopper;
      g.source += "; " + std::string(kSoftware2023);
    } else if (g.gpu == "b200" || g.gpu == "gb200") {
      g.set.attention = g.set.attention.value_or(attention_2025);
    }
  }
}

// Megatron-LM of 2021 normalised with apex's affine LayerNorm kernels of 2020, copied into
// megatron/fused_kernels/layer_norm_cuda_kernel.cu ("copied fron NVIDIA apex", Megatron-LM@a8d172b,
// April 2021: cuApplyLayerNorm; backward cuComputePartGradGammaBeta, cuComputeGradGammaBeta and
// cuComputeGradInput, which read x and dy twice). apex#1037 (January 2021) timed those kernels against
// its new fused ones in one run on GA100, over the same bytes: forward 895.8 against 1258.0 GB/s,
// backward 572.2 against 1163.4 GB/s. The 2021 stack keeps those ratios to the fused kernels.
constexpr double kApex2020NormForward = 895.8 / 1258.0;
constexpr double kApex2020NormBackward = 572.2 / 1163.4;
constexpr const char* kSoftware2021 =
    "2021 stack: the 2023 stack with apex's affine LayerNorm of 2020 (Megatron-LM's fused_kernels; apex#1037: "
    "895.8 and 572.2 GB/s against the fused kernels' 1258.0 and 1163.4 on GA100)";

void apply_2021_stack(ComputeProfile& p) {
  const double fused_forward = p.all.norm;
  const double fused_backward = p.all.norm_backward;
  apply_2023_stack(p);
  p.all.norm = fused_forward * kApex2020NormForward;
  p.all.norm_backward = fused_backward * kApex2020NormBackward;
}

void apply(const EfficiencyOverrides& from, Efficiencies& to) {
  for (const EfficiencyField& f : kEfficiencyFields) {
    if (from.*f.set) to.*f.value = *(from.*f.set);
  }
}

void apply(const EfficiencyOverrides& from, EfficiencyOverrides& to) {
  for (const EfficiencyField& f : kEfficiencyFields) {
    if (from.*f.set) to.*f.set = from.*f.set;
  }
}

// A field the file sets for every GPU beats weft's built-in per-GPU value of that field.
void clear(const EfficiencyOverrides& by, EfficiencyOverrides& from) {
  for (const EfficiencyField& f : kEfficiencyFields) {
    if (by.*f.set) (from.*f.set).reset();
  }
}

GpuEfficiencies& entry_for(ComputeProfile& p, std::string_view gpu) {
  for (GpuEfficiencies& g : p.gpus) {
    if (g.gpu == gpu) return g;
  }
  return p.gpus.emplace_back(GpuEfficiencies{std::string(gpu), {}, ""});
}

}  // namespace

// Memory-bound kernels run on the fp32 vector units whatever the storage type (norms and softmax
// accumulate in fp32) at their full rate: their bytes decide.
double compute_rate(const catalogue::GpuSpec& gpu, Precision p, OpClass c, const Efficiencies& eff) {
  switch (c) {
    case OpClass::gemm:
      return peak_flops(gpu, p) * (p == Precision::fp8 ? eff.gemm_fp8 : eff.gemm);
    case OpClass::attention:
      // fp8 training keeps attention in bf16: Transformer Engine's fp8 recipes quantise the GEMMs of
      // the linear layers only (DelayedScaling's fp8_dpa, FP8 dot-product attention, is off by default).
      return peak_flops(gpu, p == Precision::fp8 ? Precision::bf16 : p) * eff.attention;
    case OpClass::memory_bound:
      return gpu.fp32_flops;
  }
  WEFT_ASSERT(false);
  return 0;
}

std::string_view precision_name(Precision p) { return kPrecisionNames[static_cast<size_t>(p)]; }

std::string_view software_name(SoftwareStack s) { return kSoftwareNames[static_cast<size_t>(s)]; }

SoftwareStack parse_software(std::string_view name) {
  for (size_t i = 0; i < kSoftwareNames.size(); ++i) {
    if (kSoftwareNames[i] == name) return static_cast<SoftwareStack>(i);
  }
  throw ConfigError(fmt::format("software: unknown '{}' (expected one of {})", name, join_names(kSoftwareNames)));
}

Precision parse_precision(std::string_view name) {
  for (size_t i = 0; i < kPrecisionNames.size(); ++i) {
    if (iequals(kPrecisionNames[i], name)) return static_cast<Precision>(i);
  }
  throw ConfigError(fmt::format("precision: unknown '{}' (expected one of {}){}", name, join_names(kPrecisionNames),
                                did_you_mean(name, kPrecisionNames)));
}

uint32_t element_bytes(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
      return 4;
    case Precision::bf16:
    case Precision::fp16:
      return 2;
    case Precision::fp8:
      return 1;
  }
  WEFT_ASSERT(false);
  return 0;
}

uint32_t gemm_output_bytes(Precision p) { return p == Precision::fp8 ? 2 : element_bytes(p); }

double peak_flops(const catalogue::GpuSpec& gpu, Precision p) {
  const double peaks[] = {gpu.fp32_flops, gpu.tf32_flops, gpu.bf16_flops, gpu.bf16_flops, gpu.fp8_flops};
  const double peak = peaks[static_cast<size_t>(p)];
  if (peak > 0) return peak;
  std::vector<std::string_view> has;
  for (size_t i = 0; i < kPrecisionNames.size(); ++i) {
    if (peaks[i] > 0) has.push_back(kPrecisionNames[i]);
  }
  throw ConfigError(fmt::format("precision: {} has no {} (it has {})", gpu.name, precision_name(p), join_names(has)));
}

Efficiencies ComputeProfile::resolve(std::string_view gpu) const {
  Efficiencies out = all;
  for (const GpuEfficiencies& g : gpus) {
    if (iequals(g.gpu, gpu)) apply(g.set, out);
  }
  return out;
}

// Defaults for every GPU without an entry of its own:
//  gemm 0.80: the MAMF table's NVIDIA rows span 72.9-86.9 % (bf16); 0.80 is its H100 SXM row.
//  gemm_fp8 0.71: the same table's H100 SXM fp8 row, 1402.6 of 1979 TFLOP/s.
//  attention 0.50: FlashAttention-2 (Dao 2023, arXiv:2307.08691, abstract) reaches 50-73 % of A100
//    peak; the lower end, because training runs the slower backward pass twice as many FLOPs.
//  memory 0.86: te42kyfo/gpu-benches cuda-stream/a100_80.txt, STREAM triad at full occupancy
//    1,759 GB/s of the A100 80 GB's 2,039 GB/s [unverified: SXM4 assumed; 0.91 if it was PCIe].
//  norm 0.94, norm_backward 0.87 (of the streaming rate): apex's fused LayerNorm (apex#1037,
//    apex.contrib FastLayerNorm) on GA100, 1258.0 GB/s forward and 1163.4 GB/s backward over a fused
//    norm's bytes, against 0.86 x 1,555 GB/s [assumption: the A100 40 GB, the GA100 of January 2021];
//    Transformer Engine's LayerNorm and RMSNorm are that kernel family (transformer_engine/common/
//    layer_norm/ln_fwd_kernels.cuh: the same CTAS_PER_ROW / WARPS_M / WARPS_N / BYTES_PER_LDG traits).
ComputeProfile default_compute_profile(SoftwareStack software) {
  ComputeProfile p{
      .software = software,
      .all = {.gemm = 0.80,
              .gemm_fp8 = 0.71,
              .attention = 0.50,
              .memory = 0.86,
              .norm = 1258.0 / (0.86 * 1555),
              .norm_backward = 1163.4 / (0.86 * 1555)},
      .gpus = default_gpu_entries(),
      .source =
          "weft defaults: stas00/ml-engineering MAMF table (GEMM), FlashAttention-2 arXiv:2307.08691 and "
          "FlashAttention-3 arXiv:2407.08608 (attention), te42kyfo/gpu-benches STREAM triad (HBM), apex#1037 "
          "(norms)"};
  if (software == SoftwareStack::y2023) {
    apply_2023_stack(p);
    p.source = fmt::format("{}; {}", kSoftware2023, p.source);
  } else if (software == SoftwareStack::y2021) {
    apply_2021_stack(p);
    p.source = fmt::format("{}; {}", kSoftware2021, p.source);
  }
  return p;
}

ComputeProfile with_profile_overrides(const ProfileOverrides& file, SoftwareStack software) {
  ComputeProfile p = default_compute_profile(software);
  if (file.all) {
    apply(*file.all, p.all);
    for (GpuEfficiencies& g : p.gpus) clear(*file.all, g.set);
  }
  for (const GpuEfficiencies& g : file.gpus) {
    GpuEfficiencies& entry = entry_for(p, g.gpu);
    apply(g.set, entry.set);
    entry.source = file.source;
  }
  p.source = fmt::format("{}, over weft's defaults ({})", file.source, p.source);
  return p;
}

Time op_time(const catalogue::GpuSpec& gpu, Precision p, OpClass c, double flops, double bytes,
             const Efficiencies& eff) {
  WEFT_ASSERT(flops >= 0 && bytes >= 0);
  const double compute_s = flops > 0 ? flops / compute_rate(gpu, p, c, eff) : 0.0;
  const double memory_s = bytes > 0 ? bytes / (gpu.memory_bandwidth * eff.memory) : 0.0;
  const double ps = std::ceil(std::max(compute_s, memory_s) * 1e12);
  WEFT_ASSERT(std::isfinite(ps) && ps < 9e18);  // a zero efficiency or bandwidth, or > 100 days
  return Time::ps(static_cast<int64_t>(ps));
}

Time op_time(const catalogue::GpuSpec& gpu, Precision p, OpClass c, double flops, double bytes,
             const ComputeProfile& profile) {
  return op_time(gpu, p, c, flops, bytes, profile.resolve(gpu.name));
}

double ridge_point(const catalogue::GpuSpec& gpu, Precision p, OpClass c, const Efficiencies& eff) {
  return compute_rate(gpu, p, c, eff) / (gpu.memory_bandwidth * eff.memory);
}

}  // namespace weft
