// NVLS (NVLink SHARP, NCCL >= 2.17): collectives through NVSwitch generation 3+ that reduce in the
// switch (multimem.ld_reduce) and multicast (multimem.st). Each rank owns one chunk per loop of
// each channel: it pulls that chunk reduced over all ranks from the switches, then multicasts it
// to all ranks. Per GPU this moves S(1 + 1/n) bytes each way for an all-reduce of S bytes, where a
// ring moves 2S(n-1)/n. The fabric must support group transfers (flow does). A rank's input is
// first copied into the switch-mapped buffers and the result out of them, by warps of their own
// (the scatter and gather phases of nvls_schedule and nvls_tree_all_reduce, with
// NvlsOptions::copy_rate).
#pragma once

#include <cstdint>

#include "collectives/collective_op.h"
#include "collectives/schedule.h"

namespace weft {

struct NvlsOptions {
  uint32_t channels = 16;   // NCCL's NVLS channels on a Hopper node ("16 nvls channels", nccl_model.md §5)
  Bytes chunk{128 * 1024};  // NCCL_NVLS_CHUNKSIZE, src/transport/nvls.cc (nccl_model.md §8)
  // How fast one channel's warps copy between the user's buffers and the switch-mapped ones (NVLS's
  // scatter and gather phases); 0 leaves those copies out.
  Bandwidth copy_rate;
};

// all_reduce (reduce then multicast), reduce_scatter (reduce only; size = the input of all ranks)
// and all_gather (multicast only; size = the gathered output). Other ops throw ConfigError.
Schedule nvls_schedule(CollectiveOp op, uint32_t ranks, Bytes size, const NvlsOptions& options = {});

// NVLSTree all-reduce across nodes (NCCL >= 2.18): in each node NVLS reduces every
// rank's shard in the switches; the ranks of one local index then all-reduce their shard across the
// nodes over NCCL's double binary tree (up to the root, back down, through their own NICs: rail to
// rail); NVLS multicasts the result in each node. Ranks are node-major (rank = node * gpus_per_node + local).
Schedule nvls_tree_all_reduce(uint32_t nodes, uint32_t gpus_per_node, Bytes size, const NvlsOptions& options = {});

}  // namespace weft
