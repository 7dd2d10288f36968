#include "collectives/nvls.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>

#include "collectives/algorithm_util.h"
#include "collectives/ring.h"
#include "collectives/tree.h"
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

// Without registered user buffers (nccl-tests registers none) NCCL's NVLS kernels run a warp group
// per phase (src/device/all_reduce.h, reduce_scatter.h, all_gather.h, RunWorkColl<..., NVLS, SIMPLE>):
// scatter warps copy the rank's input of the loop (one chunk per head) into the switch-mapped buffer
// (the NVLS connection's buffers are the unicast mapping of local memory, src/transport/nvls.cc);
// reduce warps pull a chunk reduced by the switches (multimem.ld_reduce) and multicast it
// (multimem.st), element by element, so that a chunk's reduction and multicast run together and the
// next chunk starts after both; gather warps copy the multicast chunks of every head out to the
// output. All-gather multicasts from the input and gathers; reduce-scatter scatters and reduces into
// the output. Each phase is a stream per rank and channel, working its loops in order; a scatter runs
// at most NCCL_STEPS loops ahead of the reduction (the connection's FIFO slots).
namespace {

enum NvlsPhase : uint32_t { kScatter, kReduce, kMulticast, kGather, kPhases };

struct NvlsLoops {
  uint64_t count = 0, chunk = 0;
  Time copy;  // one loop's scatter or gather copy of a channel (heads x chunk); zero: copies left out
};

// Every head's share of a channel, cut in chunks: loop k handles chunk k of every head at once.
NvlsLoops nvls_loops(Bytes size, uint32_t heads, const NvlsOptions& o) {
  const uint64_t per_head = (size.count() + uint64_t{heads} * o.channels - 1) / (uint64_t{heads} * o.channels);
  const uint64_t loops = std::max<uint64_t>(1, (per_head + o.chunk.count() - 1) / o.chunk.count());
  const uint64_t chunk = (per_head + loops - 1) / loops;  // equal chunks, the NCCL loop rounded up
  const Time copy = o.copy_rate.bps() > 0 ? transmit_time(Bytes(chunk * heads), o.copy_rate) : Time();
  return {loops, chunk, copy};
}

}  // namespace

Schedule nvls_schedule(CollectiveOp op, uint32_t ranks, Bytes size, const NvlsOptions& o) {
  const bool reduce = op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter;
  const bool multicast = op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather;
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
  s.max_in_flight = 1;  // each stream is one warp group working its chunks in order
  add_groups(s, ranks);
  const NvlsLoops loops = nvls_loops(size, ranks, o);
  const bool copies = loops.copy > Time();
  const bool has[kPhases] = {reduce && copies, reduce, multicast, multicast && copies};
  // Stream of `phase` for (channel c, rank g); -1 when that phase does not run.
  uint32_t phases = 0;
  int32_t slot[kPhases];
  for (uint32_t p = 0; p < kPhases; ++p) slot[p] = has[p] ? static_cast<int32_t>(phases++) : -1;
  auto stream_of = [&](uint32_t c, uint32_t g, NvlsPhase p) {
    return slot[p] < 0 ? -1 : static_cast<int32_t>((c * ranks + g) * phases) + slot[p];
  };
  const auto count = static_cast<uint32_t>(loops.count);
  for (uint32_t c = 0; c < o.channels; ++c) {
    for (uint32_t g = 0; g < ranks; ++g) {
      auto at = [&](NvlsPhase p) { return stream_of(c, g, p); };
      auto add = [&](NvlsPhase p, StepRun run) {
        if (at(p) < 0) return;
        Stream stream{g, c, {}};
        append_run(stream, run);
        s.streams.push_back(std::move(stream));
      };
      add(kScatter, {count, StepKind::local, 0, Bytes(), loops.copy, at(kReduce), -static_cast<int32_t>(kNcclSteps)});
      add(kReduce, {count, StepKind::group, g, Bytes(loops.chunk), Time(), at(kScatter), 0, at(kMulticast), -1});
      add(kMulticast,
          {count, StepKind::group, ranks + g, Bytes(loops.chunk), Time(), at(kScatter), 0, at(kReduce), -1});
      add(kGather, {count, StepKind::local, 0, Bytes(), loops.copy, at(kMulticast), 0});
    }
  }
  return s;
}

// ---- NVLSTree: NVLS inside each node, NCCL's double binary tree across them ----

namespace {

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

// One channel's streams. NCCL's kernel gives each phase warps of its own (all_reduce.h, NVLS_TREE:
// reduce warps pull a chunk from the switches, add the tree children's and send it up; broadcast
// warps take the result from the parent, send it down and multicast it), so the phases of
// successive chunks overlap, held back only by the connections' FIFOs, NCCL_STEPS chunks deep. The
// ranks of one local index are the heads of one NVLS part; across the nodes they form the channel's
// tree of ncclGetDtree (src/graph/connect.cc: channel c takes tree c % 2). Every stream has one step
// per chunk, so a step waits for step k of the stream it names (offset 0).
class NvlsTreeChannel {
 public:
  NvlsTreeChannel(Schedule& s, const TreeLinks& nodes, uint32_t g, uint32_t channel, const NvlsLoops& loops)
      : s_(s), nodes_(nodes), g_(g), channel_(channel), loops_(loops.count), chunk_(loops.chunk), copy_(loops.copy) {}

  void build() {
    const auto ranks = static_cast<uint32_t>(nodes_.parent.size() * g_);
    reduce_.assign(ranks, -1);
    up_.assign(ranks, -1);
    down_into_.assign(ranks, -1);
    for (uint32_t r = 0; r < ranks; ++r) {
      reduce_[r] = add_stream(r);
      if (nodes_.parent[r / g_] >= 0) up_[r] = add_stream(r);
      for (uint32_t child : nodes_.children[r / g_]) down_into_[child * g_ + r % g_] = add_stream(r);
    }
    for (uint32_t r = 0; r < ranks; ++r) build_rank(r, ranks);
  }

 private:
  void build_rank(uint32_t r, uint32_t ranks) {
    const uint32_t node = r / g_, local = r % g_;
    const int32_t multicast = add_stream(r);
    const auto loops = static_cast<uint32_t>(loops_);
    // The scatter warps copy the node's g chunks of loop k in, one loop after another, at most
    // NCCL_STEPS loops ahead of the reduction (nvls_schedule); the gather warps copy them out.
    const int32_t scatter = copy_ > Time() ? add_stream(r) : -1;
    if (scatter >= 0) {
      append_run(stream(scatter), {loops, StepKind::local, 0, Bytes(), copy_, scatter, -1, reduce_[r],
                                   -static_cast<int32_t>(kNcclSteps)});
    }
    // Reduce chunk k once chunk k - NCCL_STEPS has been multicast: the FIFOs between are full.
    StepRun reduce{loops, StepKind::group, r, Bytes(chunk_)};
    reduce.wait_stream = multicast;
    reduce.wait_offset = -static_cast<int32_t>(kNcclSteps);
    reduce.also_wait_stream = scatter;
    append_run(stream(reduce_[r]), reduce);
    std::vector<int32_t> inputs{reduce_[r]};  // chunk k reduced in the node and below it in the tree
    for (uint32_t child : nodes_.children[node]) inputs.push_back(up_[child * g_ + local]);
    const StepRun below = detail::join_streams(s_, r, channel_, std::move(inputs), loops_);
    if (up_[r] >= 0) send(up_[r], static_cast<uint32_t>(nodes_.parent[node]) * g_ + local, below);
    const StepRun result = up_[r] >= 0 ? detail::waits_for(down_into_[r], -1) : below;  // the final chunk k
    for (uint32_t child : nodes_.children[node]) send(down_into_[child * g_ + local], child * g_ + local, result);
    StepRun out = result;
    out.count = static_cast<uint32_t>(loops_);
    out.kind = StepKind::group;
    out.peer = ranks + r;
    out.bytes = Bytes(chunk_);
    append_run(stream(multicast), out);
    if (copy_ > Time()) {
      const int32_t gather = add_stream(r);
      append_run(stream(gather), {loops, StepKind::local, 0, Bytes(), copy_, multicast, 0, gather, -1});
    }
  }

  int32_t add_stream(uint32_t rank) {
    s_.streams.push_back({rank, channel_, {}});
    return static_cast<int32_t>(s_.streams.size() - 1);
  }
  Stream& stream(int32_t index) { return s_.streams[static_cast<size_t>(index)]; }

  void send(int32_t index, uint32_t peer, StepRun run) {
    run.count = static_cast<uint32_t>(loops_);
    run.kind = StepKind::send;
    run.peer = peer;
    run.bytes = Bytes(chunk_);
    append_run(stream(index), run);
  }

  Schedule& s_;
  const TreeLinks& nodes_;
  uint32_t g_, channel_;
  uint64_t loops_, chunk_;
  Time copy_;                       // one loop's scatter or gather copy; zero: copies left out
  std::vector<int32_t> reduce_;     // rank -> its stream of in-switch reductions
  std::vector<int32_t> up_;         // rank -> its stream to the tree parent's head (-1 at the root)
  std::vector<int32_t> down_into_;  // rank -> the tree parent's stream to it
};

}  // namespace

Schedule nvls_tree_all_reduce(uint32_t nodes, uint32_t gpus_per_node, Bytes size, const NvlsOptions& o) {
  if (nodes < 2 || gpus_per_node < 2) throw ConfigError("NVLSTree needs at least 2 nodes of at least 2 GPUs");
  if (o.channels < 1 || o.chunk.count() == 0) throw ConfigError("NVLS: channels and chunk must be positive");
  const uint32_t g = gpus_per_node, ranks = nodes * g;
  Schedule s;
  s.name = "all_reduce/nvls_tree";
  s.ranks = ranks;
  s.size = size;
  s.max_in_flight = kNcclSteps;  // per stream: a connection's FIFO slots (ProtoSimple<1,1>: one per chunk)
  add_node_groups(s, ranks, g);
  const NvlsLoops loops = nvls_loops(size, g, o);  // the node's g GPUs are its NVLS heads
  const std::array<TreeLinks, 2> trees = double_binary_tree(nodes);
  for (uint32_t c = 0; c < o.channels; ++c) NvlsTreeChannel(s, trees[c % 2], g, c, loops).build();
  return s;
}

}  // namespace weft
