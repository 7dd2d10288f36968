#include "workloads/traces/trace_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <unordered_map>

#include "sim/core/errors.h"
#include "workloads/traces/trace_conventions.h"

namespace weft {

std::string short_label(std::string_view name) {
  const size_t paren = name.find('(');
  if (paren != std::string_view::npos && paren > 0) name = name.substr(0, paren);
  return std::string(name.substr(0, 80));
}

TraceGraphBuilder::TraceGraphBuilder(Workload& workload, uint32_t ranks, GraphOptions options)
    : workload_(workload), ranks_(ranks), options_(options) {
  workload_.programs.assign(ranks, Program{});
  workload_.gpu_of_rank.resize(ranks);
  std::iota(workload_.gpu_of_rank.begin(), workload_.gpu_of_rank.end(), 0u);
  node_ids_.assign(ranks, {});
}

void TraceGraphBuilder::define_group(const std::string& key, std::vector<uint32_t> ranks, const std::string& source) {
  for (uint32_t r : ranks) {
    if (r >= ranks_) {
      throw ConfigError(
          fmt::format("{}: process group '{}' names rank {}, but the trace has {} ranks", source, key, r, ranks_));
    }
  }
  if (ranks.empty()) {  // PyTorch writes an empty list for the default group: all ranks
    ranks.resize(ranks_);
    std::iota(ranks.begin(), ranks.end(), 0u);
  }
  groups_[key] = std::move(ranks);
}

uint32_t TraceGraphBuilder::communicator_for(const std::string& key, const std::string& where) {
  if (auto it = communicator_of_.find(key); it != communicator_of_.end()) return it->second;
  Communicator c;
  if (auto g = groups_.find(key); g != groups_.end()) {
    c.ranks = g->second;
  } else if (!key.empty() && !groups_.empty()) {
    throw ConfigError(
        fmt::format("{}: process group '{}' is not defined (no such key in the comm-group file or "
                    "trace metadata)",
                    where, key));
  } else {
    c.ranks.resize(ranks_);
    std::iota(c.ranks.begin(), c.ranks.end(), 0u);
  }
  // The whole world is the data-parallel group of a DDP / FSDP trace; anything smaller is unknown.
  c.group = c.ranks.size() == ranks_ ? CommGroup::dp : CommGroup::other;
  const uint32_t index = workload_.add_communicator(std::move(c));
  communicator_of_.emplace(key, index);
  return index;
}

// Kahn's algorithm, ready nodes taken in file order (a min-heap on position): deterministic, and the
// identity for traces already in dependency order. Self-dependencies (seen in converted PyTorch ETs,
// where ctrl_deps names the op itself) and ids not in the file (the root thread) are ignored.
std::vector<uint32_t> TraceGraphBuilder::topological_order(const RankTrace& trace) const {
  const auto n = static_cast<uint32_t>(trace.nodes.size());
  std::unordered_map<uint64_t, uint32_t> position;
  position.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (!position.emplace(trace.nodes[i].id, i).second) {
      throw ConfigError(fmt::format("trace file '{}': node id {} appears twice", trace.file, trace.nodes[i].id));
    }
  }
  std::vector<uint32_t> waiting(n, 0);
  std::vector<std::vector<uint32_t>> after(n);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint64_t d : trace.nodes[i].deps) {
      auto it = position.find(d);
      if (it == position.end() || it->second == i) continue;
      after[it->second].push_back(i);
      ++waiting[i];
    }
  }
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (uint32_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  std::vector<uint32_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const uint32_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (uint32_t j : after[i]) {
      if (--waiting[j] == 0) ready.push(j);
    }
  }
  if (order.size() != n) {
    const auto stuck = static_cast<size_t>(
        std::find_if(waiting.begin(), waiting.end(), [](uint32_t w) { return w > 0; }) - waiting.begin());
    throw ConfigError(
        fmt::format("trace file '{}': dependency cycle through node id {} ('{}'): {} of {} nodes "
                    "cannot be ordered",
                    trace.file, trace.nodes[stuck].id, trace.nodes[stuck].name, n - order.size(), n));
  }
  return order;
}

namespace {

// Weft stream of each node: explicit, else 0 for compute, then one stream per communication key in
// order of first use, then the host stream.
std::vector<int> assign_streams(const RankTrace& trace, const std::vector<uint32_t>& order) {
  std::map<std::string, int> comm_streams;
  auto key_of = [](const TraceNode& n) -> std::string {
    switch (n.kind) {
      case TraceNodeKind::collective:
        return "c:" + n.group;
      case TraceNodeKind::send:
        return "s";
      case TraceNodeKind::recv:
        return "r";
      default:
        return {};
    }
  };
  for (uint32_t i : order) {
    const std::string key = key_of(trace.nodes[i]);
    if (!key.empty() && trace.nodes[i].stream < 0 && !comm_streams.contains(key)) {
      comm_streams.emplace(key, static_cast<int>(comm_streams.size()) + 1);
    }
  }
  const int host = static_cast<int>(comm_streams.size()) + 1;
  std::vector<int> stream(trace.nodes.size(), 0);
  for (uint32_t i : order) {
    const TraceNode& n = trace.nodes[i];
    if (n.stream >= 0)
      stream[i] = n.stream;
    else if (n.kind == TraceNodeKind::host_compute)
      stream[i] = host;
    else if (auto it = comm_streams.find(key_of(n)); it != comm_streams.end())
      stream[i] = it->second;
  }
  return stream;
}

// A rank's compute in a trace: at most 10^6 s (11.6 days; 10^18 ps, an int64 holds 9.2 x 10^18), so
// any replay's clock stays exact. A trace that says more is corrupt.
constexpr Time kMaxRankCompute = Time::ps(1'000'000'000'000'000'000);

Time scaled(Time t, double scale) {
  if (scale == 1.0) return t;
  return Time::ps(std::llround(static_cast<double>(t.ps()) * scale));
}

// The ops each node's successors wait for, through dropped nodes: a node's own op once emitted, else
// (dropped, or an eager send) its own predecessors.
class ExposedOps {
 public:
  ExposedOps(const RankTrace& trace, const std::vector<uint32_t>& order)
      : exposed_(trace.nodes.size()), rank_in_order_(trace.nodes.size()) {
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) position_.emplace(trace.nodes[i].id, i);
    for (uint32_t k = 0; k < order.size(); ++k) rank_in_order_[order[k]] = k;
  }

  // The ops node i (at `order` rank) waits for, sorted, each once. A control dependency on a node
  // ordered after it (a parent op) is dropped: it would be a cycle.
  std::vector<uint32_t> deps_of(uint32_t i, const TraceNode& n) const {
    std::vector<uint32_t> deps;
    auto take = [&](uint64_t d, bool control) {
      auto it = position_.find(d);
      if (it == position_.end() || it->second == i) return;
      if (control && rank_in_order_[it->second] > rank_in_order_[i]) return;
      deps.insert(deps.end(), exposed_[it->second].begin(), exposed_[it->second].end());
    };
    for (uint64_t d : n.deps) take(d, false);
    for (uint64_t d : n.ctrl_deps) take(d, true);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    return deps;
  }
  void expose(uint32_t i, std::vector<uint32_t> ops) { exposed_[i] = std::move(ops); }

 private:
  std::unordered_map<uint64_t, uint32_t> position_;  // node id -> index in the trace
  std::vector<std::vector<uint32_t>> exposed_;
  std::vector<uint32_t> rank_in_order_;
};

// `busy`: the rank's compute so far, kept far from Time's int64 limit (simulated clocks add it up).
void set_compute(Op& op, const TraceNode& n, double compute_scale, Time& busy, const std::string& where) {
  op.kind = OpKind::compute;
  op.duration = n.fixed_duration ? n.duration : scaled(n.duration, compute_scale);
  if (op.duration < Time() || op.duration > kMaxRankCompute - busy) {
    throw ConfigError(where + fmt::format(": durations add up to more than {} days of compute on one rank",
                                          kMaxRankCompute.seconds() / 86400));
  }
  busy += op.duration;
  op.flops = n.flops;
}

void set_point_to_point(Op& op, const TraceNode& n, uint32_t rank, uint32_t ranks, const std::string& where) {
  op.kind = n.kind == TraceNodeKind::send ? OpKind::send : OpKind::recv;
  if (n.peer >= ranks || n.peer == rank) {
    throw ConfigError(fmt::format("{}: peer rank {} is not another rank of the {}-rank trace", where, n.peer, ranks));
  }
  op.peer = n.peer;
  op.tag = n.tag;
  op.group = CommGroup::other;
  op.bytes = Bytes(n.size);
}

}  // namespace

void TraceGraphBuilder::add_rank(uint32_t rank, const RankTrace& trace) {
  WEFT_ASSERT(rank < ranks_);
  const std::vector<uint32_t> order = topological_order(trace);
  const std::vector<int> stream = assign_streams(trace, order);
  Program& program = workload_.programs[rank];
  ExposedOps exposed(trace, order);
  Time busy;
  for (uint32_t i : order) {
    const TraceNode& n = trace.nodes[i];
    std::vector<uint32_t> deps = exposed.deps_of(i, n);
    const bool drop =
        n.kind == TraceNodeKind::skip || (n.kind == TraceNodeKind::host_compute && !options_.keep_cpu_compute);
    if (drop) {
      exposed.expose(i, std::move(deps));
      continue;
    }
    const std::string where = fmt::format("trace file '{}': node id {} ('{}')", trace.file, n.id, n.name);
    if (stream[i] > 255) throw ConfigError(where + ": more than 256 streams on one rank");
    Op op;
    op.stream = static_cast<uint8_t>(stream[i]);
    op.label = workload_.label(short_label(n.name));
    switch (n.kind) {
      case TraceNodeKind::compute:
      case TraceNodeKind::host_compute:
        set_compute(op, n, options_.compute_scale, busy, where);
        break;
      case TraceNodeKind::collective: {
        op.kind = OpKind::collective;
        op.collective = n.collective;
        op.comm = communicator_for(n.group, where);
        const Communicator& c = workload_.communicators[op.comm];
        op.group = c.group;
        const auto size = static_cast<uint32_t>(c.ranks.size());
        op.bytes = n.size_is_chakra_input ? nccl_bytes_from_chakra(n.collective, n.size, size) : Bytes(n.size);
        break;
      }
      case TraceNodeKind::send:
      case TraceNodeKind::recv:
        set_point_to_point(op, n, rank, ranks_, where);
        break;
      case TraceNodeKind::skip:
        break;
    }
    const uint32_t index = program.add(op, deps);
    node_ids_[rank].push_back(n.id);
    if (n.kind == TraceNodeKind::send && options_.eager_sends)
      exposed.expose(i, std::move(deps));
    else
      exposed.expose(i, {index});
  }
}

}  // namespace weft
