// Point-to-point collectives as NCCL runs them: all-to-all as one group of sends to every peer, and a
// single send/recv. Pure functions returning a Schedule.
#pragma once

#include <cstdint>

#include "collectives/schedule.h"

namespace weft {

// NCCL_P2P_NET_CHUNKSIZE = 128 KiB (src/init.cc, NCCL 2.18+; NCCL_P2P_PCI_CHUNKSIZE is the same,
// NCCL_P2P_NVL_CHUNKSIZE 512 KiB); see shared/reference/nccl_model.md §8.
inline constexpr uint64_t kP2pChunkBytes = 128 * 1024;

// NCCL's chunk for one send of `bytes` with the Simple protocol (enqueue.cc): the p2p chunk, a quarter
// of it when the send is under one Simple step (512 KiB), half when under 8 steps.
uint64_t p2p_chunk_bytes(uint64_t bytes);

struct AllToAllOptions {
  Bytes chunk;  // bytes per step of one send; 0 = p2p_chunk_bytes(S/n)
  // Sends a rank has open at once. 0 = all n-1: NCCL posts every ncclSend/ncclRecv of the group
  // together and its proxy progresses them side by side, so the peers share the rank's NIC.
  // k < n-1 models a bounded fan-out: the send to peer r+j starts once the one to r+j-k completed.
  uint32_t peers_in_flight = 0;
};

// Pairwise all-to-all: rank r sends S/n to every (r+j) mod n, j = 1..n-1 (the order NCCL's p2p
// schedule pairs ranks, round j sending to r+j and receiving from r-j). `size` is nccl-tests' size:
// one rank's send buffer, S/n per peer. One stream per (rank, peer), channel j-1; each connection
// has NCCL_STEPS = 8 chunk slots (max_in_flight).
Schedule pairwise_all_to_all(uint32_t ranks, Bytes size, const AllToAllOptions& options = {});

struct SendRecvOptions {
  uint32_t source = 0;
  uint32_t destination = 1;
  Bytes chunk;  // 0 = p2p_chunk_bytes(S)
};

// One ncclSend/ncclRecv pair: `size` bytes from source to destination in p2p chunks, 8 in flight.
Schedule send_recv(uint32_t ranks, Bytes size, const SendRecvOptions& options = {});

}  // namespace weft
