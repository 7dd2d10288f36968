// CollNet: all-reduce with the inter-node part done by the network itself (NCCL's CollNet
// algorithms over the SHARP plugin, nccl-rdma-sharp-plugins): InfiniBand switches with SHARP
// streaming aggregation reduce the nodes' data on its way up an aggregation tree and multicast the
// result down, so each byte crosses each NIC once each way, whatever the node count. The network
// part is a group step (StepKind::group, one group per head position, srcs = dsts = that head on
// every node), which the fabrics stripe over the reducing network switches (sim/group_paths.h). A
// group step moves the bytes of all its members, so it is issued once per chunk, by node 0's head,
// after chunk c is ready on every node (zero-time local steps join the inputs, as tree.cpp does).
// Ranks are node-major (rank = node * gpus_per_node + local), as nvls_tree_all_reduce.
#pragma once

#include <cstdint>

#include "collectives/schedule.h"

namespace weft {

struct CollNetOptions {
  uint32_t channels = 16;  // NCCL's CollNet Direct tries ncSwitch = 16, 8, ... (nccl_model.md §8)
  // Bytes per pipelined step; 0 = the algorithm's NCCL default (§8): Direct one Simple step (512 KiB),
  // Chain min(256 KiB, stepSize x chunkSteps) = 256 KiB.
  Bytes chunk;
  // GPUs of a node that own a NIC and join the network step ("heads"); 0 = every GPU (one NIC per
  // GPU, as DGX A100/H100). Head k is local GPU k * gpus_per_node / heads.
  uint32_t heads = 0;
  uint32_t in_flight = 2;  // a chunk's network step overlaps the next chunk's node-local part
};

// CollNet Direct: head k owns 1/heads of each channel's buffer. Every other GPU of the node sends it
// its copy of that shard over NVLink (a reduce-scatter to the heads, side by side), head k reduces
// them, all-reduces the shard across nodes in the switches (group step), and sends the result to
// every other GPU of its node (all-gather). Per GPU: (g-1)/g·S out and in over NVLink each way when
// every GPU is a head, and S/heads over its NIC each way.
Schedule collnet_direct_all_reduce(uint32_t nodes, uint32_t gpus_per_node, Bytes size,
                                   const CollNetOptions& options = {});

// CollNet Chain: each channel has one head (head c % heads); the node's GPUs form a chain from it
// (local order from the head) that reduces chunk by chunk towards the head; the head all-reduces
// across nodes in the switches; the chain then broadcasts the result back. Per channel and node,
// each byte crosses each chain link once each way and the head's NIC once each way.
Schedule collnet_chain_all_reduce(uint32_t nodes, uint32_t gpus_per_node, Bytes size,
                                  const CollNetOptions& options = {});

}  // namespace weft
