// Where each rank of a parallel plan sits and which communicators it joins. Ranks are numbered by
// coordinates in a configurable order, fastest-varying first; Megatron's default is tp-cp-ep-dp-pp
// (workloads.md §3.5), so a tensor-parallel group fills consecutive GPUs, i.e. one node. Expert
// parallelism is carved out of data parallelism as in Megatron-Core: the dp ranks of a model
// replica split into ep expert groups of dp/ep ranks that hold the same experts (expert-data).
// Global rank r runs on GPU r of the topology (GPUs are numbered node by node).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/program.h"

namespace weft {

struct ParallelSizes {
  uint32_t tp = 1, cp = 1, ep = 1, dp = 1, pp = 1;  // dp counts every data-parallel rank (ep divides it)
  uint32_t world() const { return tp * cp * dp * pp; }
};

// Dimension indices in coordinates: tp, cp, ep, edp (expert-data: dp / ep), pp.
enum Dim : uint8_t { kTp, kCp, kEp, kEdp, kPp, kDims };

struct RankLayout {
  ParallelSizes sizes;
  std::array<uint8_t, kDims> order{kTp, kCp, kEp, kEdp, kPp};  // fastest-varying first
  std::array<uint32_t, kDims> extent{};
  std::array<uint32_t, kDims> stride{};

  uint32_t rank_of(const std::array<uint32_t, kDims>& coords) const;
  std::array<uint32_t, kDims> coords_of(uint32_t rank) const;
  // Global ranks that differ from `rank` only along `dims`, in rank order of those coordinates.
  std::vector<uint32_t> group_of(uint32_t rank, std::initializer_list<Dim> dims) const;
};

// `order` as Megatron writes it ("tp-cp-ep-dp-pp", any permutation of those five). ConfigError for
// sizes of zero, ep not dividing dp, or a bad order string.
RankLayout make_layout(const ParallelSizes& sizes, const std::string& order = "tp-cp-ep-dp-pp");

// The communicators of each parallel dimension, one per group, added to the workload; for rank r,
// comm[dim][r] is the index of its communicator (dims: tp, cp, ep, dp = dense-gradient group over dp
// and cp, edp = expert-gradient group over edp and cp). Dimensions of size one get none (-1).
struct PlanCommunicators {
  std::vector<int32_t> tp, cp, ep, dp, edp;
  // The first and the last pipeline stage of one (tp, cp, ep, dp) position (pp > 1): Megatron's
  // embedding group, which sums the gradients of tied input and output embeddings.
  std::vector<int32_t> embedding;
};
// `embedding`: also the embedding groups (tied embeddings split over pipeline stages).
PlanCommunicators add_communicators(const RankLayout& layout, Workload& workload, bool embedding = false);

}  // namespace weft
