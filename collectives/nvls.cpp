#include "collectives/nvls.h"

#include <algorithm>
#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {
namespace {

// Groups: [0, n) reduce into rank g (all sources, destination g); [n, 2n) multicast from rank g.
void add_groups(Schedule& s, uint32_t ranks) {
  std::vector<uint32_t> all(ranks);
  for (uint32_t r = 0; r < ranks; ++r) all[r] = r;
  for (uint32_t g = 0; g < ranks; ++g) s.groups.push_back({all, {g}});
  for (uint32_t g = 0; g < ranks; ++g) s.groups.push_back({{g}, all});
}

}  // namespace

Schedule nvls_schedule(CollectiveOp op, uint32_t ranks, Bytes size, const NvlsOptions& o) {
  bool reduce = op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter;
  bool multicast = op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather;
  if (!reduce && !multicast) {
    throw ConfigError(fmt::format("NVLS runs all_reduce, reduce_scatter and all_gather, not {} (use ring)", to_string(op)));
  }
  if (ranks < 2) throw ConfigError("NVLS needs at least 2 ranks");
  if (o.channels < 1 || o.chunk.count() == 0) throw ConfigError("NVLS: channels and chunk must be positive");
  Schedule s;
  s.name = fmt::format("{}/nvls", to_string(op));
  s.ranks = ranks;
  s.size = size;
  s.max_in_flight = std::max<uint32_t>(1, o.in_flight);
  add_groups(s, ranks);
  // Every rank's share of a channel, cut in chunks: loop k handles chunk k of every rank at once.
  uint64_t per_rank = (size.count() + uint64_t{ranks} * o.channels - 1) / (uint64_t{ranks} * o.channels);
  uint64_t loops = std::max<uint64_t>(1, (per_rank + o.chunk.count() - 1) / o.chunk.count());
  uint64_t chunk = (per_rank + loops - 1) / loops;  // equal chunks, the NCCL loop rounded up
  for (uint32_t c = 0; c < o.channels; ++c) {
    for (uint32_t g = 0; g < ranks; ++g) {
      Stream stream{g, c, {}};
      for (uint64_t k = 0; k < loops; ++k) {
        if (reduce) append_run(stream, {1, StepKind::group, g, Bytes(chunk)});
        if (multicast) append_run(stream, {1, StepKind::group, ranks + g, Bytes(chunk)});
      }
      s.streams.push_back(std::move(stream));
    }
  }
  return s;
}

}  // namespace weft
