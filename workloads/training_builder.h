// Internal to the training generator: the state of emitting one rank's Program (training.cpp drives
// the pipeline and data parallelism; training_layers.cpp emits one layer's ops).
#pragma once

#include <vector>

#include "workloads/gemm_waves.h"
#include "workloads/training.h"

namespace weft::detail {

// Streams of a training rank (a CUDA stream each; ops on one stream run one at a time).
enum TrainingStream : uint8_t {
  kCompute = 0,
  kTpStream = 1,
  kCpSend = 2,
  kCpRecv = 3,
  kEpStream = 4,
  kPpSend = 5,
  kPpRecv = 6,
  kDpStream = 7,
};

struct RankContext {
  const TrainingSpec& spec;
  const catalogue::GpuSpec& gpu;
  const Efficiencies& efficiency;  // the profile resolved for this GPU
  const RankLayout& layout;
  const PlanCommunicators& comms;
  Workload& workload;
  uint32_t rank;
  Program& program;
  std::array<uint32_t, kDims> coords;
  LayerShape shape;        // this rank's slice of one micro-batch
  uint32_t element_bytes;  // activations and the tensors they exchange

  // The GPU as this rank's GEMMs see it (gemm_waves.h): its SMs, and its GEMM rate and HBM for the
  // outputs' write (gemm_output_bytes) and for the gradient buffer's read and write (grad_bytes
  // each).
  GemmDevice gemm() const;

  // Helpers that append one op; each returns its index.
  uint32_t compute(const char* label, Phase phase, double gemm_flops, double attention_flops, double bytes,
                   const std::vector<uint32_t>& after, double useful_flops = 0);
  uint32_t collective(const char* label, Phase phase, CommGroup group, int32_t comm, uint8_t stream, CollectiveOp op,
                      double bytes, const std::vector<uint32_t>& after);
  uint32_t p2p(const char* label, Phase phase, CommGroup group, bool send, uint32_t peer, uint32_t tag, uint8_t stream,
               double bytes, const std::vector<uint32_t>& after);
};

// Forward (or recomputed forward) of one layer for one micro-batch: returns the op whose completion
// means the layer's output is ready. `moe` selects the expert MLP.
uint32_t emit_layer_forward(RankContext& ctx, Phase phase, uint32_t layer, uint32_t micro_batch, uint32_t input);
// Backward of one layer: returns the op after which its input gradient is ready; `weights_done`
// receives the op after which its weight gradients are ready.
uint32_t emit_layer_backward(RankContext& ctx, uint32_t layer, uint32_t micro_batch, uint32_t grad_in,
                             uint32_t& weights_done);

// Parameters of one layer held by one rank (tensor- and expert-parallel shards), split into dense
// (reduced over dp x cp) and expert (reduced over edp x cp) elements.
struct LayerParams {
  double dense = 0;
  double expert = 0;
};
LayerParams rank_layer_params(const TrainingSpec& spec);

}  // namespace weft::detail
