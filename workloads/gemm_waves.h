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

// One layer's GEMMs on one rank, by piece (LayerFlops' qkv, out_proj, mlp), for each pass: the
// forward GEMM (tokens x out, inner in), the input gradient (tokens x in, inner out) and the
// weight gradient (in x out, inner tokens), each in full-wave FLOPs. The attention products
// (batched over heads) and the router (a few columns) keep their plain FLOPs; `mlp` is the dense
// MLP's (expert_gemm_cost below is the MoE layer's).
struct LayerGemmCost {
  LayerFlops forward, input_grad, weight_grad;
};
LayerGemmCost layer_gemm_cost(const ModelConfig& m, const LayerShape& shape, uint32_t sms);

// A linear layer's three GEMMs (or their sums over several layers), in full-wave FLOPs.
struct GemmPasses {
  double forward = 0, input_grad = 0, weight_grad = 0;
};

// The rank's MoE experts, experts / ep of them, both MLP GEMMs, as grouped GEMMs (Megatron's
// GroupedMLP): each expert is padded to its capacity, ceil(tokens x top_k x capacity_factor x ep /
// experts) rows, the rows weft's expert FLOPs already charge (LayerFlops::mlp x capacity_factor).
GemmPasses expert_gemm_cost(const ModelConfig& m, const LayerShape& shape, uint32_t ep, double capacity_factor,
                            uint32_t sms);

// The same three GEMMs of the vocabulary projection (tokens x V/t, inner h).
GemmPasses logits_gemm_cost(const ModelConfig& m, const LayerShape& shape, uint32_t sms);

}  // namespace weft
