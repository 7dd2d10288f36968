#include "collectives/pat.h"

#include <fmt/format.h>
#include <algorithm>

#include "collectives/algorithm_util.h"
#include "collectives/ring.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

constexpr uint64_t kMinPatChunk = 64 * 1024;  // the floor of NCCL's PAT chunk (§8)

// One step of a loop as a rank sees it: it sends `blocks` blocks to rank r + to, and receives the
// step's data from rank r + from (offsets mod n).
struct Leg {
  uint32_t to = 0;
  uint32_t from = 0;
  uint32_t blocks = 0;
};

// All-gather: pat_steps() as they are, to r + d. Reduce-scatter: the same steps in reverse order and
// direction (to r - d), so every block's reduction tree is its all-gather tree walked backwards.
std::vector<Leg> legs_of(CollectiveOp op, uint32_t n) {
  std::vector<Leg> legs;
  for (const PatStep& step : pat_steps(n)) legs.push_back({step.distance, n - step.distance, step.blocks});
  if (op == CollectiveOp::reduce_scatter) {
    std::reverse(legs.begin(), legs.end());
    for (Leg& leg : legs) std::swap(leg.to, leg.from);
  }
  return legs;
}

// One stream's loops: in each, step j forwards (all-gather) or reduces further (reduce-scatter) what
// arrived in step j-1, so it waits for that step of the rank it came from. Streams are laid out
// channel-major (index c * n + r) and all have the same shape, so "that step" is index - 1.
Stream pat_stream(uint32_t rank, uint32_t channel, uint32_t n, const std::vector<Leg>& legs, uint64_t bytes,
                  uint64_t chunk) {
  Stream stream{rank, channel, {}};
  for (uint64_t done = 0; done < bytes; done += chunk) {
    uint64_t piece = std::min(chunk, bytes - done);
    for (size_t j = 0; j < legs.size(); ++j) {
      StepRun run;
      run.peer = (rank + legs[j].to) % n;
      run.bytes = Bytes(piece * legs[j].blocks);
      if (j > 0) {
        run.wait_stream = static_cast<int32_t>(channel * n + (rank + legs[j - 1].from) % n);
        run.wait_offset = -1;
      }
      append_run(stream, run);
    }
  }
  return stream;
}

}  // namespace

std::vector<PatStep> pat_steps(uint32_t ranks) {
  std::vector<PatStep> steps;
  if (ranks < 2) return steps;
  const uint32_t k = detail::ceil_log2(ranks);
  std::vector<bool> held(ranks, false);  // offsets o: a rank holds the block of rank r - o
  held[0] = true;
  for (uint32_t j = 0; j < k; ++j) {
    const uint32_t d = 1u << (k - 1 - j);
    std::vector<uint32_t> fresh;  // offsets the receiver (r + d) lacks, seen from it: o + d
    for (uint32_t o = 0; o < ranks; ++o) {
      if (held[o] && !held[(o + d) % ranks]) fresh.push_back((o + d) % ranks);
    }
    for (uint32_t o : fresh) held[o] = true;
    steps.push_back({d, static_cast<uint32_t>(fresh.size())});
  }
  return steps;
}

Bytes pat_chunk(CollectiveOp op, Bytes size, uint32_t channels) {
  const uint64_t factor = op == CollectiveOp::all_gather ? 32 : 16;
  uint64_t chunk = kSimpleStepBytes;
  while (chunk > kMinPatChunk && chunk * std::max<uint32_t>(1, channels) * factor > size.count()) chunk /= 2;
  return Bytes(chunk);
}

Schedule pat_schedule(CollectiveOp op, uint32_t ranks, Bytes size, const PatOptions& o) {
  if (op != CollectiveOp::all_gather && op != CollectiveOp::reduce_scatter) {
    throw ConfigError(fmt::format("PAT runs all_gather and reduce_scatter, not {} (use ring or tree)", to_string(op)));
  }
  if (o.channels == 0) throw ConfigError("PAT: needs at least one channel");
  Schedule s =
      detail::empty_schedule(fmt::format("{}/pat", to_string(op)), ranks, size, std::max<uint32_t>(1, o.in_flight));
  if (ranks == 1) return s;
  const std::vector<Leg> legs = legs_of(op, ranks);
  const uint64_t block = detail::ceil_div(size.count(), ranks);  // S/n, rounded up to whole bytes
  const uint64_t chunk = o.chunk.count() > 0 ? o.chunk.count() : pat_chunk(op, size, o.channels).count();
  for (uint32_t c = 0; c < o.channels; ++c) {
    const uint64_t bytes = detail::share(block, o.channels, c);
    for (uint32_t r = 0; r < ranks; ++r) s.streams.push_back(pat_stream(r, c, ranks, legs, bytes, chunk));
  }
  return s;
}

}  // namespace weft
