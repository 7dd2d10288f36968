#include "collectives/mpi_algorithms.h"

#include <fmt/format.h>
#include <bit>

#include "collectives/algorithm_util.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

// One round's send of `bytes` to `peer`. It waits for step (index + offset) of stream `data` (the send
// that brought what this rank forwards or reduces) and of stream `ready` (the receiver's own send
// of that round: large MPI messages go by rendezvous, so a send starts only once the receiver has
// posted the matching receive, i.e. moved on from its previous round). -1: no such wait.
void append_round(Stream& stream, uint32_t peer, uint64_t bytes, int32_t data, int32_t ready, int32_t offset = -1) {
  StepRun run;
  run.peer = peer;
  run.bytes = Bytes(bytes);
  run.wait_stream = data;
  run.wait_offset = data < 0 ? 0 : offset;
  run.also_wait_stream = ready;
  run.also_wait_offset = ready < 0 ? 0 : offset;
  append_run(stream, run);
}

// The recursive-doubling ranks of n = p + rem: the odd ranks below 2·rem and every rank from 2·rem.
struct Fold {
  uint32_t rem;
  int32_t virtual_rank(uint32_t r) const {
    if (r < 2 * rem) return r % 2 == 1 ? static_cast<int32_t>(r / 2) : -1;
    return static_cast<int32_t>(r - rem);
  }
  uint32_t real_rank(uint32_t v) const { return v < rem ? 2 * v + 1 : v + rem; }
  // The fold send into odd rank r (step 0 of stream r-1), or -1.
  int32_t fold_into(uint32_t r) const { return r < 2 * rem ? static_cast<int32_t>(r - 1) : -1; }
};

}  // namespace

Schedule recursive_doubling_all_reduce(uint32_t ranks, Bytes size) {
  Schedule s = detail::empty_schedule("all_reduce/recursive_doubling", ranks, size, 1);
  if (ranks == 1) return s;
  uint32_t p = std::bit_floor(ranks);
  uint32_t rounds = std::countr_zero(p);
  Fold fold{ranks - p};
  uint64_t bytes = size.count();
  for (uint32_t r = 0; r < ranks; ++r) {
    Stream stream{r, 0, {}};
    int32_t v = fold.virtual_rank(r);
    if (v < 0) {
      append_round(stream, r + 1, bytes, -1, -1);  // fold into the odd neighbour, then only receive
      s.streams.push_back(std::move(stream));
      continue;
    }
    auto vr = static_cast<uint32_t>(v);
    int32_t previous = -1;
    for (uint32_t k = 0; k < rounds; ++k) {
      uint32_t partner = fold.real_rank(vr ^ (1u << k));
      if (k == 0) {
        // Round 0 waits for this rank's folded-in buffer and for the partner's (step 0 of r-1, p-1).
        append_round(stream, partner, bytes, fold.fold_into(r), fold.fold_into(partner), 0);
      } else {
        append_round(stream, partner, bytes, previous, static_cast<int32_t>(partner));
      }
      previous = static_cast<int32_t>(partner);
    }
    if (r < 2 * fold.rem) append_round(stream, r - 1, bytes, previous, -1);  // unfold: the result back
    s.streams.push_back(std::move(stream));
  }
  return s;
}

Schedule rabenseifner_all_reduce(uint32_t ranks, Bytes size) {
  if (!detail::is_power_of_two(ranks)) {
    throw ConfigError(
        fmt::format("rabenseifner: needs a power-of-two number of ranks, got {}; use recursive "
                    "doubling (which folds the extra ranks) or the ring all-reduce",
                    ranks));
  }
  Schedule s = detail::empty_schedule("all_reduce/rabenseifner", ranks, size, 1);
  uint32_t rounds = std::countr_zero(ranks);
  uint64_t block = detail::ceil_div(size.count(), ranks);  // S/n, rounded up to whole bytes
  for (uint32_t r = 0; r < ranks; ++r) {
    Stream stream{r, 0, {}};
    int32_t previous = -1;
    for (uint32_t k = 0; k < 2 * rounds; ++k) {
      bool halving = k < rounds;
      uint32_t j = halving ? k : k - rounds;
      uint32_t partner = r ^ (halving ? 1u << j : ranks >> (j + 1));
      uint64_t bytes = halving ? block * (ranks >> (j + 1)) : block << j;
      append_round(stream, partner, bytes, previous, previous < 0 ? -1 : static_cast<int32_t>(partner));
      previous = static_cast<int32_t>(partner);
    }
    s.streams.push_back(std::move(stream));
  }
  return s;
}

Schedule bruck_all_to_all(uint32_t ranks, Bytes size) {
  Schedule s = detail::empty_schedule("all_to_all/bruck", ranks, size, 1);
  uint32_t rounds = detail::ceil_log2(ranks);
  uint64_t block = detail::ceil_div(size.count(), ranks);
  for (uint32_t r = 0; r < ranks; ++r) {
    Stream stream{r, 0, {}};
    for (uint32_t k = 0; k < rounds; ++k) {
      uint32_t distance = 1u << k;
      // Block indices 0..n-1 with bit k set: n / 2^(k+1) full periods of 2^k, plus the part of the
      // last period above 2^k.
      uint32_t period = distance * 2;
      uint64_t blocks = ranks / period * distance + (ranks % period > distance ? ranks % period - distance : 0);
      // Round k forwards what came from r - 2^(k-1) in round k-1, to a receiver done with round k-1.
      uint32_t to = (r + distance) % ranks;
      int32_t previous = k == 0 ? -1 : static_cast<int32_t>((r + ranks - distance / 2) % ranks);
      append_round(stream, to, blocks * block, previous, k == 0 ? -1 : static_cast<int32_t>(to));
    }
    s.streams.push_back(std::move(stream));
  }
  return s;
}

}  // namespace weft
