#include "collectives/nvls.h"

#include <fmt/format.h>
#include <algorithm>

#include "sim/core/errors.h"

namespace weft {
namespace {

// NCCL_STEPS (src/include/device.h): the slots of a connection's FIFO. NVLSTree's Simple primitives take one
// slot per chunk (ProtoSimple<1, 1>: a slice per chunk, a step per slice).
constexpr int64_t kNvlsTreeFifoChunks = 8;

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
  s.max_in_flight = static_cast<uint32_t>(kNvlsTreeFifoChunks);  // per stream: a connection's FIFO slots
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
  // NCCL's kernel gives each phase warps of its own (all_reduce.h, NVLS_TREE: reduce warps pull a
  // chunk from the switches and send it to the network, broadcast warps take it back and multicast
  // it), so the phases of successive chunks overlap; only the FIFO of the connection between them,
  // NCCL_STEPS chunks deep, holds the reduction back. Per channel and rank: stream 0 reduces, stream
  // 1 carries the ring over the nodes, stream 2 multicasts.
  const auto net_steps = static_cast<int64_t>(2 * (nodes - 1));
  auto stream_of = [&](uint32_t phase, uint32_t channel, uint32_t rank) {
    return static_cast<int32_t>((phase * o.channels + channel) * ranks + rank);
  };
  auto offset = [](int64_t target, int64_t at) { return static_cast<int32_t>(target - at); };
  for (uint32_t phase = 0; phase < 3; ++phase) {
    for (uint32_t c = 0; c < o.channels; ++c) {
      for (uint32_t r = 0; r < ranks; ++r) {
        const uint32_t node = r / g, local = r % g;
        const uint32_t next = (node + 1) % nodes * g + local, previous = (node + nodes - 1) % nodes * g + local;
        Stream stream{r, c, {}};
        for (uint64_t k = 0; k < loops; ++k) {
          const auto loop = static_cast<int64_t>(k);
          if (phase == 0) {  // reduce chunk k once the network took chunk k - NCCL_STEPS
            StepRun reduce{1, StepKind::group, r, Bytes(chunk)};
            reduce.wait_stream = stream_of(1, c, r);
            reduce.wait_offset = offset((loop - kNvlsTreeFifoChunks) * net_steps, loop);
            append_run(stream, reduce);
          } else if (phase == 1) {  // the first step sends this rank's reduction, each later one forwards
            StepRun first{1, StepKind::send, next, Bytes(piece)};
            first.wait_stream = stream_of(0, c, r);
            first.wait_offset = offset(loop, loop * net_steps);
            append_run(stream, first);
            StepRun rest{static_cast<uint32_t>(net_steps - 1), StepKind::send, next, Bytes(piece)};
            rest.wait_stream = stream_of(1, c, previous);  // what step j - 1 of the previous node brought
            rest.wait_offset = -1;
            append_run(stream, rest);
          } else {  // multicast once this rank sent its last piece and the previous node's arrived
            StepRun multicast{1, StepKind::group, ranks + r, Bytes(chunk)};
            multicast.wait_stream = stream_of(1, c, r);
            multicast.wait_offset = offset((loop + 1) * net_steps - 1, loop);
            multicast.also_wait_stream = stream_of(1, c, previous);
            multicast.also_wait_offset = multicast.wait_offset;
            append_run(stream, multicast);
          }
        }
        s.streams.push_back(std::move(stream));
      }
    }
  }
  return s;
}

}  // namespace weft
