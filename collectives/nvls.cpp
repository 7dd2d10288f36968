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

namespace {

// The shape of an NVLSTree all-reduce. NCCL's kernel gives each phase warps of its own (all_reduce.h,
// NVLS_TREE: reduce warps pull a chunk from the switches and send it to the network, broadcast warps
// take it back and multicast it), so the phases of successive chunks overlap; only the FIFO of the
// connection between them, NCCL_STEPS chunks deep, holds the reduction back. Per channel and rank:
// stream phase 0 reduces, phase 1 carries the ring over the nodes, phase 2 multicasts.
struct NvlsTree {
  uint32_t nodes, g, ranks, channels;
  uint64_t loops, chunk, piece;
  int64_t net_steps;  // the ring over the nodes: 2 (N - 1) steps per chunk

  int32_t stream(uint32_t phase, uint32_t channel, uint32_t rank) const {
    return static_cast<int32_t>((phase * channels + channel) * ranks + rank);
  }
  static int32_t offset(int64_t target, int64_t at) { return static_cast<int32_t>(target - at); }

  // Loop k of stream (phase, c, r).
  void append_loop(Stream& s, uint32_t phase, uint32_t c, uint32_t r, int64_t k) const {
    const uint32_t node = r / g, local = r % g;
    const uint32_t next = (node + 1) % nodes * g + local, previous = (node + nodes - 1) % nodes * g + local;
    if (phase == 0) {  // reduce chunk k once the network took chunk k - NCCL_STEPS
      StepRun reduce{1, StepKind::group, r, Bytes(chunk)};
      reduce.wait_stream = stream(1, c, r);
      reduce.wait_offset = offset((k - kNvlsTreeFifoChunks) * net_steps, k);
      append_run(s, reduce);
    } else if (phase == 1) {  // the first step sends this rank's reduction, each later one forwards
      StepRun first{1, StepKind::send, next, Bytes(piece)};
      first.wait_stream = stream(0, c, r);
      first.wait_offset = offset(k, k * net_steps);
      append_run(s, first);
      StepRun rest{static_cast<uint32_t>(net_steps - 1), StepKind::send, next, Bytes(piece)};
      rest.wait_stream = stream(1, c, previous);  // what step j - 1 of the previous node brought
      rest.wait_offset = -1;
      append_run(s, rest);
    } else {  // multicast once this rank sent its last piece and the previous node's arrived
      StepRun multicast{1, StepKind::group, ranks + r, Bytes(chunk)};
      multicast.wait_stream = stream(1, c, r);
      multicast.wait_offset = offset((k + 1) * net_steps - 1, k);
      multicast.also_wait_stream = stream(1, c, previous);
      multicast.also_wait_offset = multicast.wait_offset;
      append_run(s, multicast);
    }
  }
};

// Groups: [0, ranks) reduce into rank r from its node; [ranks, 2 ranks) multicast from r to its node.
void add_node_groups(Schedule& s, uint32_t ranks, uint32_t g) {
  auto node_of = [g](uint32_t r) {
    std::vector<uint32_t> node;
    for (uint32_t l = 0; l < g; ++l) node.push_back(r / g * g + l);
    return node;
  };
  for (uint32_t r = 0; r < ranks; ++r) s.groups.push_back({node_of(r), {r}});
  for (uint32_t r = 0; r < ranks; ++r) s.groups.push_back({{r}, node_of(r)});
}

}  // namespace

Schedule nvls_tree_all_reduce(uint32_t nodes, uint32_t gpus_per_node, Bytes size, const NvlsOptions& o) {
  if (nodes < 2 || gpus_per_node < 2) throw ConfigError("NVLSTree needs at least 2 nodes of at least 2 GPUs");
  if (o.channels < 1 || o.chunk.count() == 0) throw ConfigError("NVLS: channels and chunk must be positive");
  const uint32_t g = gpus_per_node, ranks = nodes * g;
  Schedule s;
  s.name = "all_reduce/nvls_tree";
  s.ranks = ranks;
  s.size = size;
  s.max_in_flight = static_cast<uint32_t>(kNvlsTreeFifoChunks);  // per stream: a connection's FIFO slots
  add_node_groups(s, ranks, g);
  const uint64_t shard = (size.count() + uint64_t{g} * o.channels - 1) / (uint64_t{g} * o.channels);
  const uint64_t loops = std::max<uint64_t>(1, (shard + o.chunk.count() - 1) / o.chunk.count());
  const uint64_t chunk = (shard + loops - 1) / loops;
  const uint64_t piece = (chunk + nodes - 1) / nodes;  // a ring over the nodes moves chunk / nodes per step
  const NvlsTree tree{nodes, g, ranks, o.channels, loops, chunk, piece, 2 * static_cast<int64_t>(nodes - 1)};
  for (uint32_t phase = 0; phase < 3; ++phase) {
    for (uint32_t c = 0; c < o.channels; ++c) {
      for (uint32_t r = 0; r < ranks; ++r) {
        Stream stream{r, c, {}};
        for (uint64_t k = 0; k < loops; ++k) tree.append_loop(stream, phase, c, r, static_cast<int64_t>(k));
        s.streams.push_back(std::move(stream));
      }
    }
  }
  return s;
}

}  // namespace weft
