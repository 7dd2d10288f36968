// A communicator: the GPUs its ranks run on. NCCL sees a communicator's nodes and GPUs per node, not
// the whole cluster's, and orders its rings and trees node by node; weft builds schedules over those
// node-major positions and maps them back to the communicator's own rank order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "collectives/nccl_model.h"
#include "topologies/clusters.h"
#include "topologies/topology.h"

namespace weft {

struct CommunicatorLayout {
  // by_position[p] = the communicator rank at node-major position p (nodes in order of their first
  // rank, then rank order inside a node). A node is a host, or a whole NVLink domain that spans
  // several hosts (an NVL72 rack), as NCCL counts nodes.
  std::vector<uint32_t> by_position;
  std::vector<uint32_t> gpu_of_position;  // index into Topology::gpus()
  uint32_t nodes = 1;                     // distinct nodes
  uint32_t per_node = 1;                  // ranks on each node (when uniform)
  bool uniform = true;                    // every node holds per_node ranks
};

// `gpus[r]` = the GPU (index into topology.gpus()) of communicator rank r. Throws ConfigError for an
// empty communicator, a GPU out of range or named twice.
CommunicatorLayout layout_of(const Topology& topology, std::span<const uint32_t> gpus);

// What NCCL's topology code hands its tuner for this communicator: the cluster's description
// (describe_for_tuner) with the communicator's nodes and GPUs per node. A communicator with an uneven
// number of ranks per host is described as one rank per node (NCCL then runs its rings across the
// network part of the way; weft keeps the schedule shapes that assume even nodes). Two GPUs of a PCIe
// host joined by an NVLink bridge talk over NVLink.
TunerInput describe_communicator(const Topology& topology, const ClusterSpec& spec, const CommunicatorLayout& layout,
                                 CollectiveOp op, Bytes size);

// GPUs at the given positions joined directly by NVLink cables (cube mesh, bridges): adjacency by position.
std::vector<std::vector<bool>> nvlink_neighbours(const Topology& topology, std::span<const uint32_t> gpus);

}  // namespace weft
