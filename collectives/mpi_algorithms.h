// MPI-style collectives (as in MPICH and Open MPI) for users who do not run NCCL: pure functions
// returning a Schedule. They exchange whole messages in rounds, MPI_Sendrecv style: one stream per
// rank, one send per round; a rank's round k+1 send waits for its round-k send to be done
// (max_in_flight 1), for the data it received in round k (the sender's round-k step) and, as large
// messages go by rendezvous, for its receiver to be done sending its own round k (the receive is
// posted). An exchange is the two partners' sends, one on each rank's stream.
#pragma once

#include <cstdint>

#include "collectives/schedule.h"

namespace weft {

// log2(n) rounds; in round k every rank exchanges the whole buffer with rank XOR 2^k and reduces.
// Other n (MPICH's MPIR_Allreduce_intra_recursive_doubling): with p the largest power of two below
// n and rem = n - p, each even rank r < 2·rem first sends its buffer to r+1 and sits out; the
// remaining p ranks run recursive doubling; then each odd r < 2·rem sends the result back to r-1.
// Per rank: log2(p)·S, plus S for the odd ranks below 2·rem; S only for the even ones.
Schedule recursive_doubling_all_reduce(uint32_t ranks, Bytes size);

// Rabenseifner (MPICH's reduce_scatter_allgather): a reduce-scatter by recursive halving (partners
// r XOR 1, 2, 4, ..., sending S/2, S/4, ..., S/n) and an all-gather by recursive doubling (partners
// r XOR n/2, ..., 1, sending S/n, ..., S/2): 2(n-1)/n·S per rank, as a ring, in 2·log2(n) rounds.
// Powers of two only: ConfigError otherwise (recursive doubling folds other counts).
Schedule rabenseifner_all_reduce(uint32_t ranks, Bytes size);

// Bruck all-to-all (Bruck et al., IEEE TPDS 1997): ceil(log2 n) rounds; in round k rank r sends to
// r + 2^k the blocks (of S/n) whose index, relative to r, has bit k set (S/2 per round when n is a
// power of two), having rotated them locally; per rank Σ_{i<n} popcount(i) · S/n.
Schedule bruck_all_to_all(uint32_t ranks, Bytes size);

}  // namespace weft
