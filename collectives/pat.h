// PAT, Parallel Aggregated Trees (NCCL 2.23+; S. Jeaugey, "PAT: a new algorithm for all-gather
// and reduce-scatter operations at scale", arXiv:2506.20252, 2025): all-gather and reduce-scatter in
// ceil(log2 n) network steps, which NCCL uses at one GPU per node (nccl_model.md §7). NCCL's kernel
// source is not public here; what follows is the paper's outline and our reading of it:
// - PAT is Bruck's all-gather with its dimensions reversed: the first step goes the farthest
//   (distance 2^(K-1), K = ceil(log2 n)) and carries one block, each later step halves the distance
//   and carries what the rank aggregated so far, so the largest message goes to the nearest rank
//   ("minimizes long-distance communication"). Each rank sends (n-1)/n·S in all, as a ring does.
// - Reduce-scatter is the mirror image: the same trees walked backwards, nearest and largest first.
// - The paper bounds the intermediate buffer (B_max): above it a step carries fewer aggregated ranks
//   per message. Here a large buffer runs in loops of one `chunk` per rank (NCCL's PAT chunk, §8), each
//   loop a full set of log-steps, so a message never exceeds chunk x n/2.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/collective_op.h"
#include "collectives/schedule.h"

namespace weft {

struct PatOptions {
  uint32_t channels = 1;  // independent instances, each with 1/channels of every rank's block
  // Bytes of each rank's block per loop and channel; 0 = pat_chunk() for the op, size and channels.
  Bytes chunk;
  // Steps one stream may have outstanding: 2 lets a loop's first step start while the previous
  // loop's last one drains (our choice: the paper's buffers are logarithmic, not this deep).
  uint32_t in_flight = 2;
};

// One step of the all-gather: every rank r sends `blocks` blocks (of S/n) to r + distance.
struct PatStep {
  uint32_t distance = 0;
  uint32_t blocks = 0;
};

// The all-gather's steps for n ranks, in order: distances 2^(K-1), ..., 2, 1. With n a power of two,
// step j carries 2^j blocks. Otherwise (our Bruck-like generalisation, as the paper says PAT "works on
// any number of ranks") each rank sends only the blocks its receiver does not hold yet: the offsets
// reached by sums of distinct powers of two below 2^K cover every residue mod n, so K steps still
// deliver all n-1 blocks exactly once (n = 5: 1, 2, 1 blocks; n = 6: 1, 1, 3).
std::vector<PatStep> pat_steps(uint32_t ranks);

// NCCL's PAT chunk (calcCollChunking, nccl_model.md §8): one Simple step (512 KiB; PAT has no
// CHUNKSTEPS), halved while chunk x channels x 32 (all-gather) or x 16 (reduce-scatter) exceeds the
// size, down to 64 KiB.
Bytes pat_chunk(CollectiveOp op, Bytes size, uint32_t channels);

// `size` follows nccl-tests: the gathered output (all-gather) or the scattered input (reduce-scatter),
// S = n blocks. ConfigError for other ops (PAT runs only these two, §7) or bad options.
Schedule pat_schedule(CollectiveOp op, uint32_t ranks, Bytes size, const PatOptions& options = {});

}  // namespace weft
