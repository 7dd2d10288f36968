// GPU catalogue data. Tensor-core FLOP/s are dense: NVIDIA's data-centre sheets print the 2:4-sparsity
// figure with a footnote, and we halve it. For GeForce cards we take the fp32-accumulate figures of
// the architecture whitepapers (half the fp16-accumulate rate on those cards), which is what bf16
// training uses. Memory capacities in "GB" on these sheets are binary (an H100 80 GB shows ~79.6 GiB
// usable in nvidia-smi), so we store N GiB. "[unverified: ...]" marks a recollection or derivation.
#include "topologies/catalogue/gpus.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/names.h"

namespace weft::catalogue {
namespace {

constexpr double kTera = 1e12;
constexpr uint64_t kGiB = 1ULL << 30;

constexpr GpuSpec kGpus[] = {
    // NVIDIA V100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/v100), SXM2 32 GB column.
    // No TF32, bf16 or fp8: the 125 TFLOP/s tensor figure is fp16 (the bf16_flops field covers fp16).
    {.name = "v100",
     .description = "NVIDIA V100 SXM2 32 GB (Volta)",
     .fp32_flops = 15.7 * kTera,
     .tf32_flops = 0,
     .bf16_flops = 125 * kTera,
     .fp8_flops = 0,
     .memory_bandwidth = 900e9,
     .memory = Bytes(32 * kGiB),
     .nvlink_generation = 2,
     .nvlink_links = 6,  // 300 GB/s bidirectional
     .pcie_generation = 3,
     .pcie_lanes = 16,
     .tdp_watts = 300,
     .sms = 80},  // Volta whitepaper: 80 SMs (V100 SXM2)
    // NVIDIA A100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/a100), A100 40 GB SXM:
    // TF32 156 (312 sparse), BF16 312 (624 sparse), 1,555 GB/s, NVLink 600 GB/s, PCIe Gen4, 400 W.
    {.name = "a100-40gb",
     .description = "NVIDIA A100 SXM4 40 GB (Ampere)",
     .fp32_flops = 19.5 * kTera,
     .tf32_flops = 156 * kTera,
     .bf16_flops = 312 * kTera,
     .fp8_flops = 0,
     .memory_bandwidth = 1555e9,
     .memory = Bytes(40 * kGiB),
     .nvlink_generation = 3,
     .nvlink_links = 12,
     .pcie_generation = 4,
     .pcie_lanes = 16,
     .tdp_watts = 400,
     .sms = 108},  // Ampere GA100 whitepaper: 108 SMs (A100)
    // Same datasheet, A100 80 GB SXM: 2,039 GB/s.
    {.name = "a100-80gb",
     .description = "NVIDIA A100 SXM4 80 GB (Ampere)",
     .fp32_flops = 19.5 * kTera,
     .tf32_flops = 156 * kTera,
     .bf16_flops = 312 * kTera,
     .fp8_flops = 0,
     .memory_bandwidth = 2039e9,
     .memory = Bytes(80 * kGiB),
     .nvlink_generation = 3,
     .nvlink_links = 12,
     .pcie_generation = 4,
     .pcie_lanes = 16,
     .tdp_watts = 400,
     .sms = 108},  // Ampere GA100 whitepaper: 108 SMs (A100)
    // NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100), H100 SXM: FP32 67,
    // TF32 989 / BF16 1,979 / FP8 3,958 sparse, 3.35 TB/s, NVLink 900 GB/s, PCIe Gen5, up to 700 W.
    {.name = "h100-sxm",
     .description = "NVIDIA H100 SXM5 80 GB (Hopper)",
     .fp32_flops = 67 * kTera,
     .tf32_flops = 494.5 * kTera,
     .bf16_flops = 989.5 * kTera,
     .fp8_flops = 1979 * kTera,
     .memory_bandwidth = 3.35e12,
     .memory = Bytes(80 * kGiB),
     .nvlink_generation = 4,
     .nvlink_links = 18,
     .pcie_generation = 5,
     .pcie_lanes = 16,
     .tdp_watts = 700,
     .sms = 132},  // Hopper whitepaper: 132 SMs (H100 SXM5)
    // Same datasheet, H100 PCIe: FP32 51, TF32 756 / BF16 1,513 / FP8 3,026 sparse, 2 TB/s, 300-350 W.
    // No NVLink to a switch, but bridges give "NVLink: 600 GB/s" = 12 NVLink 4 links x 50 GB/s bidir.
    {.name = "h100-pcie",
     .description = "NVIDIA H100 PCIe 80 GB (Hopper), NVLink bridges",
     .fp32_flops = 51 * kTera,
     .tf32_flops = 378 * kTera,
     .bf16_flops = 756.5 * kTera,
     .fp8_flops = 1513 * kTera,
     .memory_bandwidth = 2.0e12,
     .memory = Bytes(80 * kGiB),
     .nvlink_generation = 4,
     .nvlink_links = 12,
     .pcie_generation = 5,
     .pcie_lanes = 16,
     .tdp_watts = 350,
     .sms = 114},  // Hopper whitepaper: 114 SMs (H100 PCIe)
    // NVIDIA H200 datasheet (nvidia.com/en-us/data-center/h200), H200 SXM: same compute as H100 SXM,
    // 141 GB HBM3e at 4.8 TB/s, NVLink 900 GB/s, PCIe Gen5, up to 700 W.
    {.name = "h200",
     .description = "NVIDIA H200 SXM 141 GB (Hopper)",
     .fp32_flops = 67 * kTera,
     .tf32_flops = 494.5 * kTera,
     .bf16_flops = 989.5 * kTera,
     .fp8_flops = 1979 * kTera,
     .memory_bandwidth = 4.8e12,
     .memory = Bytes(141 * kGiB),
     .nvlink_generation = 4,
     .nvlink_links = 18,
     .pcie_generation = 5,
     .pcie_lanes = 16,
     .tdp_watts = 700,
     .sms = 132},  // [unverified: the H100 SXM5's GH100 configuration, 132 SMs]
    // NVIDIA H800 SXM5 (the export variant of the H100 SXM5 sold in China in 2023): NVIDIA's H800
    // datasheet gives NVLink 400 GB/s (8 NVLink4 links, against the H100's 18), FP64 cut, and otherwise
    // the H100 SXM5's figures: BF16 1,979 / FP8 3,958 TFLOP/s sparse, 80 GB HBM3 at 3.35 TB/s, PCIe Gen5,
    // 700 W. DeepSeek-V3's technical report (arXiv:2412.19437, section 3.1) runs its H800 nodes on
    // NVLink/NVSwitch with one 400 Gb/s InfiniBand NIC per GPU.
    {.name = "h800",
     .description = "NVIDIA H800 SXM5 80 GB (Hopper), NVLink 400 GB/s",
     .fp32_flops = 67 * kTera,
     .tf32_flops = 494.5 * kTera,
     .bf16_flops = 989.5 * kTera,
     .fp8_flops = 1979 * kTera,
     .memory_bandwidth = 3.35e12,
     .memory = Bytes(80 * kGiB),
     .nvlink_generation = 4,
     .nvlink_links = 8,
     .pcie_generation = 5,
     .pcie_lanes = 16,
     .tdp_watts = 700,
     .sms = 132},  // [unverified: the H100 SXM5's GH100 configuration, 132 SMs]
    // NVIDIA H20 (the export-compliant Hopper of 2024; NVIDIA's HGX H20 product brief is not public,
    // figures as published by SemiAnalysis "Nvidia's New China AI Chips Circumvent US Restrictions",
    // 2023-11-09): FP8 296 / BF16 148 TFLOP/s dense, 96 GB HBM3 at 4.0 TB/s, NVLink 900 GB/s (18 NVLink4
    // links, as H100 SXM), PCIe Gen5 x16, 400 W.
    {.name = "h20",
     .description = "NVIDIA H20 96 GB (Hopper) [unverified: press figures, no public datasheet]",
     .fp32_flops = 44 * kTera,
     .tf32_flops = 74 * kTera,
     .bf16_flops = 148 * kTera,
     .fp8_flops = 296 * kTera,
     .memory_bandwidth = 4.0e12,
     .memory = Bytes(96 * kGiB),
     .nvlink_generation = 4,
     .nvlink_links = 18,
     .pcie_generation = 5,
     .pcie_lanes = 16,
     .tdp_watts = 400,
     .sms = 78},  // [unverified: press figures, 78 SMs]
    // NVIDIA DGX/HGX B200 datasheets, per GPU: FP8 9 PF / BF16 4.5 PF / TF32 2.2 PF sparse, FP32 75 TF
    // (600 TF per 8 GPUs), 1,440 GB per 8 GPUs = 180 GB, 64 TB/s per 8 = 8 TB/s, NVLink 1.8 TB/s.
    // Host link PCIe Gen5 x16 and 1,000 W TGP (MLCommons inference v6.0, nebius_b200_n1.json).
    // pytorch/ao#4002 measures a 7,680-bit bus, 7.67 TB/s; we keep the datasheet 8 TB/s.
    {.name = "b200",
     .description = "NVIDIA B200 SXM 180 GB (Blackwell)",
     .fp32_flops = 75 * kTera,
     .tf32_flops = 1100 * kTera,
     .bf16_flops = 2250 * kTera,
     .fp8_flops = 4500 * kTera,
     .memory_bandwidth = 8e12,
     .memory = Bytes(180 * kGiB),
     .nvlink_generation = 5,
     .nvlink_links = 18,
     .pcie_generation = 5,
     .pcie_lanes = 16,
     .tdp_watts = 1000,
     .sms = 148},  // [unverified: press figures, 148 SMs over two dies]
    // NVIDIA GB200 NVL72 datasheet (nvidia.com/en-us/data-center/gb200-nvl72), per GPU (rack / 72):
    // FP8 720 PF / BF16 360 PF / TF32 180 PF sparse -> 5 / 2.5 / 1.25 PF dense; 576 TB/s -> 8 TB/s;
    // 13.4 TB HBM3e -> 186 GB. FP32 5,760 TF -> 80 TF [unverified: an earlier sheet said 6,480 TF].
    // GPU power ~1,200 W of the superchip's 2,700 W [unverified: third-party per-GPU tables].
    // The host link is NVLink-C2C to Grace; PCIe Gen5 x16 is kept for NICs [unverified: recollection].
    {.name = "gb200",
     .description = "NVIDIA GB200 superchip, per Blackwell GPU (186 GB)",
     .fp32_flops = 80 * kTera,
     .tf32_flops = 1250 * kTera,
     .bf16_flops = 2500 * kTera,
     .fp8_flops = 5000 * kTera,
     .memory_bandwidth = 8e12,
     .memory = Bytes(186 * kGiB),
     .nvlink_generation = 5,
     .nvlink_links = 18,
     .pcie_generation = 5,
     .pcie_lanes = 16,
     .tdp_watts = 1200,
     .sms = 148},  // [unverified: as B200, 148 SMs]
    // NVIDIA L40S datasheet (nvidia.com/en-us/data-center/l40s): FP32 91.6, TF32 366 / BF16 733 /
    // FP8 1,466 sparse, 48 GB GDDR6 at 864 GB/s, PCIe Gen4 x16, 350 W, no NVLink.
    {.name = "l40s",
     .description = "NVIDIA L40S 48 GB (Ada Lovelace)",
     .fp32_flops = 91.6 * kTera,
     .tf32_flops = 183 * kTera,
     .bf16_flops = 362.05 * kTera,
     .fp8_flops = 733 * kTera,
     .memory_bandwidth = 864e9,
     .memory = Bytes(48 * kGiB),
     .nvlink_generation = 0,
     .nvlink_links = 0,
     .pcie_generation = 4,
     .pcie_lanes = 16,
     .tdp_watts = 350,
     .sms = 142},  // L40S datasheet / Ada whitepaper AD102: 142 SMs
    // NVIDIA A30 datasheet (nvidia.com/en-us/data-center/products/a30-gpu): FP32 10.3, TF32 165 /
    // BF16 330 sparse, 24 GB HBM2 at 933 GB/s, PCIe Gen4, 165 W; "NVLink: third-generation 200 GB/s"
    // bridge = 4 NVLink 3 links x 50 GB/s bidirectional.
    {.name = "a30",
     .description = "NVIDIA A30 24 GB (Ampere), NVLink bridge",
     .fp32_flops = 10.3 * kTera,
     .tf32_flops = 82 * kTera,
     .bf16_flops = 165 * kTera,
     .fp8_flops = 0,
     .memory_bandwidth = 933e9,
     .memory = Bytes(24 * kGiB),
     .nvlink_generation = 3,
     .nvlink_links = 4,
     .pcie_generation = 4,
     .pcie_lanes = 16,
     .tdp_watts = 165,
     .sms = 56},  // [unverified: A30 product brief, 56 SMs]
    // NVIDIA Ampere GA102 GPU Architecture whitepaper, RTX 3090: FP32 35.6, TF32 35.6, FP16/BF16 tensor
    // with FP32 accumulate 71 (fp16 accumulate 142), 24 GB GDDR6X at 936 GB/s, 350 W, PCIe Gen4.
    // Its NVLink bridge is four x4 links of 14.0625 GB/s per direction = 56.25 GB/s (112.5 GB/s bidir);
    // weft's NVLink links are 25 GB/s, so we model it as 2 links = 50 GB/s per direction (11 % low).
    {.name = "rtx-3090",
     .description = "NVIDIA GeForce RTX 3090 24 GB (Ampere), NVLink bridge",
     .fp32_flops = 35.6 * kTera,
     .tf32_flops = 35.6 * kTera,
     .bf16_flops = 71 * kTera,
     .fp8_flops = 0,
     .memory_bandwidth = 936e9,
     .memory = Bytes(24 * kGiB),
     .nvlink_generation = 3,
     .nvlink_links = 2,
     .pcie_generation = 4,
     .pcie_lanes = 16,
     .tdp_watts = 350,
     .sms = 82},  // Ampere GA102 whitepaper: 82 SMs (RTX 3090)
    // NVIDIA Turing GPU Architecture whitepaper (2018), GeForce RTX 2080 Ti reference: 4,352 CUDA cores
    // at 1,545 MHz boost = 13.4 TFLOPS FP32; FP16 tensor with FP32 accumulate 53.8 TFLOPS (no BF16, no
    // TF32, no FP8 on Turing: the bf16 field holds FP16); 11 GB GDDR6 at 616 GB/s; 250 W; PCIe Gen3 x16;
    // two x8 NVLink 2 links of 25 GB/s per direction, 100 GB/s bidirectional over the bridge
    // (techpowerup.com Turing architecture review p. 14; tomshardware.com Turing architecture, p. 7).
    {.name = "rtx-2080ti",
     .description = "NVIDIA GeForce RTX 2080 Ti 11 GB (Turing), NVLink bridge",
     .fp32_flops = 13.4 * kTera,
     .tf32_flops = 0,
     .bf16_flops = 53.8 * kTera,
     .fp8_flops = 0,
     .memory_bandwidth = 616e9,
     .memory = Bytes(11 * kGiB),
     .nvlink_generation = 2,
     .nvlink_links = 2,
     .pcie_generation = 3,
     .pcie_lanes = 16,
     .tdp_watts = 250,
     .sms = 68},  // Turing whitepaper: 68 SMs (RTX 2080 Ti)
    // NVIDIA Ada GPU Architecture whitepaper, RTX 4090: FP32 82.6, TF32 82.6, BF16 (fp32 accumulate)
    // 165.2, FP8 (fp32 accumulate) 330.3, 24 GB GDDR6X at 1,008 GB/s, 450 W, PCIe Gen4, no NVLink.
    {.name = "rtx-4090",
     .description = "NVIDIA GeForce RTX 4090 24 GB (Ada Lovelace)",
     .fp32_flops = 82.6 * kTera,
     .tf32_flops = 82.6 * kTera,
     .bf16_flops = 165.2 * kTera,
     .fp8_flops = 330.3 * kTera,
     .memory_bandwidth = 1008e9,
     .memory = Bytes(24 * kGiB),
     .nvlink_generation = 0,
     .nvlink_links = 0,
     .pcie_generation = 4,
     .pcie_lanes = 16,
     .tdp_watts = 450,
     .sms = 128},  // Ada whitepaper: 128 SMs (RTX 4090)
    // NVIDIA RTX Blackwell GPU Architecture whitepaper, RTX 5090: FP32 104.8, 32 GB GDDR7 at 1,792 GB/s,
    // 575 W, PCIe Gen5, no NVLink. FP16 tensor 838 TF sparse (fp16 accumulate) -> 419 dense; TF32 at the
    // FP32 rate and the fp32-accumulate rates 209.5 (BF16) and 419 (FP8) assume GeForce's usual ratios
    // as on the RTX 4090 [unverified: derived, not read from the whitepaper table].
    {.name = "rtx-5090",
     .description = "NVIDIA GeForce RTX 5090 32 GB (Blackwell)",
     .fp32_flops = 104.8 * kTera,
     .tf32_flops = 104.8 * kTera,
     .bf16_flops = 209.5 * kTera,
     .fp8_flops = 419 * kTera,
     .memory_bandwidth = 1792e9,
     .memory = Bytes(32 * kGiB),
     .nvlink_generation = 0,
     .nvlink_links = 0,
     .pcie_generation = 5,
     .pcie_lanes = 16,
     .tdp_watts = 575,
     .sms = 170},  // Blackwell GB202 whitepaper: 170 SMs (RTX 5090)
};

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

std::span<const GpuSpec> gpus() { return kGpus; }

const GpuSpec& gpu(std::string_view name) {
  std::vector<std::string_view> known;
  for (const GpuSpec& g : kGpus) {
    if (iequals(g.name, name)) return g;
    known.push_back(g.name);
  }
  throw ConfigError(fmt::format("gpu: unknown '{}' (known: {}){}", name, join_names(known), did_you_mean(name, known)));
}

}  // namespace weft::catalogue
