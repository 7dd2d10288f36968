#include "collectives/collnet.h"

#include <fmt/format.h>
#include <algorithm>
#include <string_view>
#include <vector>

#include "collectives/algorithm_util.h"
#include "collectives/ring.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

constexpr uint64_t kChainChunk = 256 * 1024;  // CollNet Chain's starting chunk (§8)

struct Layout {
  uint32_t nodes = 0;
  uint32_t gpus = 0;   // per node
  uint32_t heads = 0;  // per node
  uint64_t chunk = 0;  // bytes per step
  uint32_t head_local(uint32_t k) const { return k * gpus / heads; }
  uint32_t rank(uint32_t node, uint32_t local) const { return node * gpus + local; }
};

Layout layout_of(std::string_view name, uint32_t nodes, uint32_t gpus, const CollNetOptions& o, uint64_t chunk) {
  if (nodes < 2) {
    throw ConfigError(
        fmt::format("{}: needs at least 2 nodes (on one node there is no network to reduce in; use "
                    "ring, tree or NVLS)",
                    name));
  }
  if (gpus < 1 || o.channels < 1)
    throw ConfigError(fmt::format("{}: needs at least one GPU per node and one channel", name));
  const uint32_t heads = o.heads == 0 ? gpus : o.heads;
  if (heads > gpus) {
    throw ConfigError(
        fmt::format("{}: {} heads but only {} GPUs per node (at most one head per GPU)", name, heads, gpus));
  }
  return {nodes, gpus, heads, o.chunk.count() > 0 ? o.chunk.count() : chunk};
}

// Group k: head k of every node, reducing into and multicasting to the same heads.
Schedule empty_collnet(std::string_view name, const Layout& l, Bytes size, const CollNetOptions& o) {
  Schedule s = detail::empty_schedule(name, l.nodes * l.gpus, size, std::max<uint32_t>(1, o.in_flight));
  for (uint32_t k = 0; k < l.heads; ++k) {
    RankGroup group;
    for (uint32_t m = 0; m < l.nodes; ++m) group.srcs.push_back(l.rank(m, l.head_local(k)));
    group.dsts = group.srcs;
    s.groups.push_back(std::move(group));
  }
  return s;
}

int32_t add_stream(Schedule& s, uint32_t rank, uint32_t channel) {
  s.streams.push_back({rank, channel, {}});
  return static_cast<int32_t>(s.streams.size() - 1);
}

StepRun waits(int32_t a, int32_t b) {
  StepRun run;
  run.wait_stream = a;
  run.also_wait_stream = b;
  return run;
}

// The network step of `bytes` in chunks: chunk c waits for chunk c of the streams in `w`.
void append_group(Stream& stream, uint32_t group, uint64_t bytes, uint64_t chunk, StepRun w) {
  w.kind = StepKind::group;
  w.peer = group;
  w.count = static_cast<uint32_t>(bytes / chunk);
  w.bytes = Bytes(chunk);
  append_run(stream, w);
  w.count = bytes % chunk > 0 ? 1 : 0;
  w.bytes = Bytes(bytes % chunk);
  append_run(stream, w);
}

// Joins the streams of `inputs` (same chunking) down to at most two, through streams of zero-time
// local steps on `rank` (a reduction's bookkeeping, as tree.cpp's joins); returns the waits of the
// step that needs them all.
StepRun join(Schedule& s, std::vector<int32_t> inputs, uint32_t rank, uint32_t channel, uint64_t steps) {
  while (inputs.size() > 2) {
    int32_t j = add_stream(s, rank, channel);
    StepRun run = waits(inputs[0], inputs[1]);
    run.kind = StepKind::local;
    run.count = static_cast<uint32_t>(steps);
    append_run(s.streams[static_cast<size_t>(j)], run);
    inputs.erase(inputs.begin(), inputs.begin() + 2);
    inputs.push_back(j);
  }
  return waits(inputs.size() > 0 ? inputs[0] : -1, inputs.size() > 1 ? inputs[1] : -1);
}

// One head position's shard of one channel: on every node, each other GPU sends its copy of the shard
// to the node's head k; once every copy of chunk c reached the heads of all nodes, one group step
// reduces chunk c across the nodes in the switches and returns it to every head (issued once, by
// node 0's head: a group step moves the bytes of all its members); each head then sends it on to the
// other GPUs of its node.
void direct_shard(Schedule& s, const Layout& l, uint32_t channel, uint32_t k, uint64_t shard) {
  const uint32_t head_local = l.head_local(k);
  const uint64_t steps = detail::chunk_count(shard, l.chunk);
  std::vector<int32_t> inputs;
  for (uint32_t m = 0; m < l.nodes; ++m) {
    for (uint32_t i = 0; i < l.gpus; ++i) {
      if (i == head_local) continue;
      inputs.push_back(add_stream(s, l.rank(m, i), channel));
      detail::append_chunked(s.streams.back(), l.rank(m, head_local), shard, l.chunk);
    }
  }
  StepRun reduced = join(s, inputs, l.rank(0, head_local), channel, steps);
  int32_t net = add_stream(s, l.rank(0, head_local), channel);
  append_group(s.streams.back(), k, shard, l.chunk, reduced);
  for (uint32_t m = 0; m < l.nodes; ++m) {
    for (uint32_t i = 0; i < l.gpus; ++i) {
      if (i == head_local) continue;
      add_stream(s, l.rank(m, head_local), channel);
      detail::append_chunked(s.streams.back(), l.rank(m, i), shard, l.chunk, waits(net, -1));
    }
  }
}

// One channel of the chain: chain position p of node m is local GPU (head + p) mod g. Chunk c goes up
// p -> p-1 once it came from p+1; once it reached the head of every node, one group step (issued by
// node 0's head) reduces it across nodes; then it comes down p -> p+1 on every node.
void chain_channel(Schedule& s, const Layout& l, uint32_t channel, uint64_t bytes) {
  const uint32_t k = channel % l.heads, g = l.gpus;
  auto at = [&](uint32_t m, uint32_t p) { return l.rank(m, (l.head_local(k) + p) % g); };
  std::vector<int32_t> tops;  // per node, the stream that brings chunk c to the head
  for (uint32_t m = 0; m < l.nodes; ++m) {
    int32_t below = -1;
    for (uint32_t p = g - 1; p >= 1; --p) {
      int32_t up = add_stream(s, at(m, p), channel);
      detail::append_chunked(s.streams.back(), at(m, p - 1), bytes, l.chunk, waits(below, -1));
      below = up;
    }
    if (below >= 0) tops.push_back(below);
  }
  StepRun reduced = join(s, tops, at(0, 0), channel, detail::chunk_count(bytes, l.chunk));
  const int32_t net = add_stream(s, at(0, 0), channel);
  append_group(s.streams.back(), k, bytes, l.chunk, reduced);
  for (uint32_t m = 0; m < l.nodes; ++m) {
    int32_t previous = net;
    for (uint32_t p = 0; p + 1 < g; ++p) {
      int32_t down = add_stream(s, at(m, p), channel);
      detail::append_chunked(s.streams.back(), at(m, p + 1), bytes, l.chunk, waits(previous, -1));
      previous = down;
    }
  }
}

}  // namespace

Schedule collnet_direct_all_reduce(uint32_t nodes, uint32_t gpus_per_node, Bytes size, const CollNetOptions& o) {
  const Layout l = layout_of("CollNet Direct", nodes, gpus_per_node, o, kSimpleStepBytes);
  Schedule s = empty_collnet("all_reduce/collnet_direct", l, size, o);
  for (uint32_t c = 0; c < o.channels; ++c) {
    const uint64_t bytes = detail::share(size.count(), o.channels, c);
    for (uint32_t k = 0; k < l.heads; ++k) {
      const uint64_t shard = detail::share(bytes, l.heads, k);
      if (shard > 0) direct_shard(s, l, c, k, shard);
    }
  }
  return s;
}

Schedule collnet_chain_all_reduce(uint32_t nodes, uint32_t gpus_per_node, Bytes size, const CollNetOptions& o) {
  const Layout l = layout_of("CollNet Chain", nodes, gpus_per_node, o, kChainChunk);
  Schedule s = empty_collnet("all_reduce/collnet_chain", l, size, o);
  for (uint32_t c = 0; c < o.channels; ++c) {
    const uint64_t bytes = detail::share(size.count(), o.channels, c);
    if (bytes > 0) chain_channel(s, l, c, bytes);
  }
  return s;
}

}  // namespace weft
