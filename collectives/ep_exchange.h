// Mixture-of-experts dispatch and combine as DeepEP runs them (github.com/deepseek-ai/DeepEP): every rank
// sends each of its tokens to the ranks that hold the token's top-k experts, and combine sends the
// expert outputs back the same way. Not NCCL collectives: DeepEP's own kernels move the tokens.
//
// Routing is DeepEP's test's (tests/legacy/test_internode.py, test_low_latency.py): scores uniform at
// random, so every expert is equally likely; with node-limited routing a token first picks
// `topk_groups` of the nodes (the ones with the highest expert score), then its top-k experts among
// theirs. The exchange carries the expected bytes of that routing (not one draw): for a token,
//   P(a given node is picked)  = g/N · (1 − C(M − E/N, k) / C(M, k)),
//   P(a given rank is picked)  = g/N · (1 − C(M − E/R, k) / C(M, k)),
// with E experts, R ranks on N nodes, g groups (all N without node limit) and M = g·E/N experts a
// token may choose from.
//
// Two kernels:
// - normal (throughput): one node sends each token once to every rank it picks over NVLink. Across
//   nodes a token goes once over RDMA to each picked node, to the GPU with the sender's local index,
//   which forwards it over NVLink to the picked ranks of its node. Both legs run side by side (DeepEP
//   pipelines them in chunks), so every NVLink pair of a node carries N·T·P(rank) tokens and every
//   GPU sends T·P(node) tokens to the same-index GPU of each other node.
// - low_latency: each token goes to each picked expert separately (no merging per rank), straight from
//   the sending GPU: T·k/R tokens to every rank, over NVLink within the node and RDMA across.
// Combine moves the same token counts the other way, so it is the same exchange with combine's bytes.
#pragma once

#include <cstdint>
#include <string>

#include "collectives/schedule.h"
#include "sim/simulation.h"

namespace weft {

enum class EpKernel : uint8_t { normal, low_latency };
enum class EpPhase : uint8_t { dispatch, combine };

struct EpRouting {
  uint32_t tokens = 4096;    // per rank
  uint32_t hidden = 7168;    // elements per token
  uint32_t experts = 256;    // routed experts over all ranks
  uint32_t topk = 8;         // experts per token
  uint32_t topk_groups = 0;  // nodes a token may use; 0 = no node limit
};

// Bytes one token occupies on the wire, as DeepEP's tests count them: normal dispatch in FP8 with one
// fp32 scale per 128 elements, hidden · (1 + 4/128); low-latency dispatch adds 16 bytes of metadata;
// combine in BF16, 2 · hidden.
double ep_token_bytes(EpKernel kernel, EpPhase phase, uint32_t hidden);

// P(a given node / a given rank is among a token's picks) under the routing above.
double ep_node_probability(const EpRouting& routing, uint32_t nodes);
double ep_rank_probability(const EpRouting& routing, uint32_t ranks, uint32_t nodes);

struct EpExchange {
  Schedule schedule;  // one stream per (sender, receiver) pair that carries bytes, all at once
  // The bytes DeepEP's benchmark divides by the kernel's time, per rank: the NVLink receive bytes on
  // one node, the RDMA send bytes (picked nodes, the own one included) across nodes (normal kernel),
  // every selection's bytes (low-latency kernel).
  double counted_bytes = 0;
  std::string counted_as;  // "NVLink", "RDMA"
};

// Ranks are numbered node-major (rank = node · gpus_per_node + local). Throws ConfigError for a shape
// the routing cannot have (experts not divisible by ranks, k above the experts a token may use, ...).
EpExchange ep_exchange(EpKernel kernel, EpPhase phase, const EpRouting& routing, uint32_t ranks,
                       uint32_t gpus_per_node);

// The simulation an exchange runs on: DeepEP's kernels post RDMA from the GPU's own NIC (NVSHMEM),
// never through NCCL's PXN relay, so PXN is off whatever NCCL's default.
SimulationSetup ep_simulation_setup(std::string fabric, uint64_t seed = 1);

}  // namespace weft
