// Tile and wave quantisation of GEMM kernels (NVIDIA, "Matrix Multiplication Background User's
// Guide", DU-09799-001, 2023, chapter 3). A GEMM kernel splits its m x n output into tiles, one
// thread block each; the GPU runs them in waves of one tile per SM. Tiles past the matrix's edge
// (tile quantisation) and a last wave with SMs left idle (wave quantisation) cost the time of full
// ones, so a GEMM whose tile count is just past a multiple of the SM count runs at nearly half
// speed for that last wave.
//
// The compute model's GEMM efficiency is the best measured over a sweep of shapes (MAMF,
// workloads/compute_model.cpp), taken to be a shape whose waves are full; a GEMM of another shape
// runs at that efficiency times wave_efficiency(). [assumption: the sweep's best shape fills its
// waves]
#pragma once

#include <cstdint>

#include "topologies/catalogue/gpus.h"
#include "workloads/model.h"

namespace weft {

// The fraction of the SM-tile slots a GEMM's m x n output fills, with the tile that fills them
// best; 1 when `sms` is 0 (unknown) or the output is narrower than 128 in either dimension (small
// GEMMs run smaller tiles, which this model does not describe).
// A grouped GEMM (`groups` GEMMs of one shape in one kernel, as MoE layers run their experts) puts
// all the groups' tiles in the same waves.
double wave_efficiency(uint64_t m, uint64_t n, uint32_t sms, uint64_t groups = 1);

// What a GEMM (or all `groups` of a grouped one) of m x n outputs over an inner dimension k costs, in
// FLOPs at full-wave speed: 2 m n k groups / wave_efficiency(m, n, sms, groups).
double full_wave_flops(uint64_t m, uint64_t n, uint64_t k, uint32_t sms, uint64_t groups = 1);

// The part of writing a GEMM's output to HBM that its main loop does not hide, as a fraction of
// writing it at the GPU's HBM bandwidth. Fitted to OpenXLA's default matmul table for H100
// (xla/service/gpu/model/matmul_interpolator_data.h, key sm_90, bf16 in and out; measured GEMM
// times, not training steps): over its 46 shapes with at least 4 M outputs (b x m x n), the time
// t = t0 + F / P + g x outputs fits with a median error of 1.7 % (6.0 % without the output term),
// P = 834 TFLOP/s, t0 = 5.1 us and g = 0.335 ps per output, which is 0.56 of writing 2 bytes at
// 3.35 TB/s. Other GPUs: the same fraction [assumption: no such table was found for them; Ampere's
// kernels, without Hopper's asynchronous stores, likely hide less]. t0, the launch and tail of a lone
// timed kernel, is left out: a training step's kernels queue behind each other.
inline constexpr double kUnhiddenOutputWrite = 0.56;

// A GPU as a GEMM's cost sees it: the SMs its waves fill (0: waves left out) and the FLOPs of GEMM
// work that the unhidden write of one output element costs (0: left out). A weight gradient's output
// is the rank's gradient buffer, into which every micro-batch adds its gradient, so each of its
// elements is read and written (Megatron-LM's gradient_accumulation_fusion does it in the GEMM, into
// fp32 main_grad; PyTorch's autograd adds into .grad): flops_per_gradient costs that, at the same
// unhidden fraction [assumption: the table above has no GEMM that reads its output].
struct GemmDevice {
  uint32_t sms = 0;
  double flops_per_output = 0;
  double flops_per_gradient = 0;
};
// Seconds of that unhidden write per output element of `output_bytes` on `gpu` (0 without its HBM
// bandwidth).
double unhidden_write_seconds(const catalogue::GpuSpec& gpu, uint32_t output_bytes);
// `gpu` running GEMMs at `flops_per_s` and writing `output_bytes` per output element.
GemmDevice gemm_device(const catalogue::GpuSpec& gpu, double flops_per_s, uint32_t output_bytes);

// A GEMM's cost in FLOPs of GEMM work: its full-wave FLOPs plus its outputs' unhidden write.
double gemm_cost(uint64_t m, uint64_t n, uint64_t k, const GemmDevice& device, uint64_t groups = 1);

// One layer's GEMMs on one rank, by piece (LayerFlops' qkv, out_proj, mlp), for each pass: the
// forward GEMM (tokens x out, inner in), the input gradient (tokens x in, inner out) and the
// weight gradient (in x out, inner tokens, its outputs at flops_per_gradient), each as gemm_cost gives it. The
// attention products (batched over heads) and the router (a few columns) keep their plain FLOPs; `mlp` is the dense
// MLP's (expert_gemm_cost below is the MoE layer's).
struct LayerGemmCost {
  LayerFlops forward, input_grad, weight_grad;
};
LayerGemmCost layer_gemm_cost(const ModelConfig& m, const LayerShape& shape, const GemmDevice& device);

// A linear layer's three GEMMs (or their sums over several layers), as gemm_cost gives them.
struct GemmPasses {
  double forward = 0, input_grad = 0, weight_grad = 0;
};

// The rank's MoE experts, experts / ep of them, both MLP GEMMs, as grouped GEMMs (Megatron's
// GroupedMLP): each expert is padded to its capacity, ceil(tokens x top_k x capacity_factor x ep /
// experts) rows, the rows weft's expert FLOPs already charge (LayerFlops::mlp x capacity_factor).
GemmPasses expert_gemm_cost(const ModelConfig& m, const LayerShape& shape, uint32_t ep, double capacity_factor,
                            const GemmDevice& device);

// The same three GEMMs of the vocabulary projection (tokens x V/t, inner h).
GemmPasses logits_gemm_cost(const ModelConfig& m, const LayerShape& shape, const GemmDevice& device);

}  // namespace weft
