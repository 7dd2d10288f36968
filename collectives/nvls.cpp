#include "collectives/nvls.h"

#include <fmt/format.h>
#include <algorithm>

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
    throw ConfigError(
        fmt::format("NVLS runs all_reduce, reduce_scatter and all_gather, not {} (use ring)", to_string(op)));
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

Schedule nvls_tree_all_reduce(uint32_t nodes, uint32_t gpus_per_node, Bytes size, const NvlsOptions& o) {
  if (nodes < 2 || gpus_per_node < 2) throw ConfigError("NVLSTree needs at least 2 nodes of at least 2 GPUs");
  if (o.channels < 1 || o.chunk.count() == 0) throw ConfigError("NVLS: channels and chunk must be positive");
  const uint32_t g = gpus_per_node, ranks = nodes * g;
  Schedule s;
  s.name = "all_reduce/nvls_tree";
  s.ranks = ranks;
  s.size = size;
  s.max_in_flight = std::max<uint32_t>(1, o.in_flight);
  // Groups: [0, ranks) reduce into rank r from its node; [ranks, 2 ranks) multicast from r to its node.
  for (uint32_t r = 0; r < ranks; ++r) {
    std::vector<uint32_t> node;
    for (uint32_t l = 0; l < g; ++l) node.push_back(r / g * g + l);
    s.groups.push_back({node, {r}});
  }
  for (uint32_t r = 0; r < ranks; ++r) {
    std::vector<uint32_t> node;
    for (uint32_t l = 0; l < g; ++l) node.push_back(r / g * g + l);
    s.groups.push_back({{r}, node});
  }
  uint64_t shard = (size.count() + uint64_t{g} * o.channels - 1) / (uint64_t{g} * o.channels);
  uint64_t loops = std::max<uint64_t>(1, (shard + o.chunk.count() - 1) / o.chunk.count());
  uint64_t chunk = (shard + loops - 1) / loops;
  uint64_t piece = (chunk + nodes - 1) / nodes;  // a ring over the nodes moves chunk / nodes per step
  auto stream_of = [&](uint32_t channel, uint32_t rank) { return static_cast<int32_t>(channel * ranks + rank); };
  for (uint32_t c = 0; c < o.channels; ++c) {
    for (uint32_t r = 0; r < ranks; ++r) {
      Stream stream{r, c, {}};
      stream.runs.reserve(loops * 4);
      const uint32_t node = r / g, local = r % g;
      const uint32_t next = (node + 1) % nodes * g + local, previous = (node + nodes - 1) % nodes * g + local;
      // Per chunk, pipelined across chunks by the in-flight window: reduce in the node, ring over the
      // nodes (step j forwards what step j - 1 of the previous node brought; the first waits for this
      // rank's reduction), multicast in the node once the chunk came back.
      for (uint64_t k = 0; k < loops; ++k) {
        append_run(stream, {1, StepKind::group, r, Bytes(chunk)});
        StepRun first{1, StepKind::send, next, Bytes(piece)};
        first.wait_stream = stream_of(c, r);
        first.wait_offset = -1;
        append_run(stream, first);
        StepRun rest{2 * (nodes - 1) - 1, StepKind::send, next, Bytes(piece)};  // alike: one run
        rest.wait_stream = stream_of(c, previous);
        rest.wait_offset = -1;
        append_run(stream, rest);
        StepRun multicast{1, StepKind::group, ranks + r, Bytes(chunk)};
        multicast.wait_stream = stream_of(c, r);
        multicast.wait_offset = -1;
        append_run(stream, multicast);
      }
      s.streams.push_back(std::move(stream));
    }
  }
  return s;
}

}  // namespace weft
