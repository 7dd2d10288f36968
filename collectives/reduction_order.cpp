#include "collectives/reduction_order.h"

#include <fmt/format.h>
#include <algorithm>

#include "collectives/tree.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
uint64_t align_up(uint64_t a, uint64_t b) { return ceil_div(a, b) * b; }

// The in-switch run under node i, flattened: its leaves in order.
void switch_operands(const SumTree& t, int32_t i, std::string& out) {
  const SumTree::Node& n = t.nodes[i];
  if (n.rank >= 0) {
    out += (out.empty() || out.back() == '(' ? "" : " + ") + std::to_string(n.rank);
    return;
  }
  switch_operands(t, n.left, out);
  switch_operands(t, n.right, out);
}

std::string text_of(const SumTree& t, int32_t i) {
  const SumTree::Node& n = t.nodes[i];
  if (n.rank >= 0) return std::to_string(n.rank);
  if (n.site == SumSite::nvswitch) {
    std::string out = "nvswitch(";
    switch_operands(t, i, out);
    return out + ")";
  }
  return fmt::format("({} + {})", text_of(t, n.left), text_of(t, n.right));
}

// Position p's value plus its children's sums, in child order (a tree of `links` over positions).
int32_t tree_sum(SumTree& t, const TreeLinks& links, uint32_t p, const std::vector<int32_t>& own) {
  int32_t acc = own[p];
  for (uint32_t child : links.children[p]) acc = t.add(acc, tree_sum(t, links, child, own), SumSite::gpu);
  return acc;
}

// Contiguous parts of [0, count), one per channel, 16-byte aligned (ncclCollCbdPart).
std::vector<std::pair<uint64_t, uint64_t>> channel_parts(uint64_t count, uint32_t channels, uint64_t align) {
  std::vector<std::pair<uint64_t, uint64_t>> parts;
  const uint64_t part = align_up(ceil_div(count, channels), align);
  for (uint64_t begin = 0; begin < count; begin += part) parts.emplace_back(begin, std::min(count, begin + part));
  return parts;
}

}  // namespace

int32_t SumTree::leaf(uint32_t rank) {
  nodes.push_back({static_cast<int32_t>(rank), -1, -1, SumSite::gpu});
  return static_cast<int32_t>(nodes.size() - 1);
}

int32_t SumTree::add(int32_t left, int32_t right, SumSite site) {
  nodes.push_back({-1, left, right, site});
  return static_cast<int32_t>(nodes.size() - 1);
}

std::string SumTree::text() const {
  return nodes.empty() ? "" : text_of(*this, static_cast<int32_t>(nodes.size() - 1));
}

ReductionOrder::ReductionOrder(const CollectivePlan& plan, const Topology& topology, std::span<const uint32_t> gpus,
                               uint64_t count, uint32_t element_bytes)
    : ranks_(static_cast<uint32_t>(gpus.size())), count_(count) {
  if (plan.input.op != CollectiveOp::all_reduce) {
    throw ConfigError(fmt::format("reduction order: {} is not an all-reduce", to_string(plan.input.op)));
  }
  if (count == 0 || element_bytes == 0) throw ConfigError("reduction order: an empty buffer sums nothing");
  switch (plan.simulated) {
    case Algorithm::ring:
      ring(plan, topology, gpus, element_bytes);
      break;
    case Algorithm::tree:
      tree(plan, topology, gpus, element_bytes);
      break;
    case Algorithm::nvls:
    case Algorithm::nvls_tree:
      nvls(plan, topology, gpus);
      break;
    default:
      throw ConfigError(fmt::format("reduction order: {} is not described yet (ring, tree, NVLS and NVLSTree are)",
                                    to_string(plan.simulated)));
  }
}

bool ReductionOrder::describes(const CollectivePlan& plan) {
  const Algorithm a = plan.simulated;
  return plan.input.op == CollectiveOp::all_reduce &&
         (a == Algorithm::ring || a == Algorithm::tree || a == Algorithm::nvls || a == Algorithm::nvls_tree);
}

const ReductionOrder::Segment& ReductionOrder::segment(uint64_t e) const {
  WEFT_ASSERT(e < count_);
  return *std::upper_bound(segments_.begin(), segments_.end(), e,
                           [](uint64_t x, const Segment& s) { return x < s.end; });
}

void ReductionOrder::ring(const CollectivePlan& plan, const Topology& topology, std::span<const uint32_t> gpus,
                          uint32_t element_bytes) {
  const uint32_t n = ranks_;
  const uint32_t channels = std::max<uint32_t>(1, plan.run.channels);
  const uint64_t align = std::max<uint64_t>(1, 16 / element_bytes);
  const uint64_t chunk = std::max<uint64_t>(align, ring_chunk_bytes(plan.run.protocol) / element_bytes);
  for (uint32_t c = 0; c < channels; ++c) {
    const std::vector<uint32_t> at = channel_ranks(plan, topology, gpus, c);
    for (uint32_t k = 0; k < n; ++k) {
      SumTree& t = trees_.emplace_back();
      int32_t acc = t.leaf(at[(k + 1) % n]);
      for (uint32_t j = 2; j <= n; ++j) acc = t.add(acc, t.leaf(at[(k + j) % n]), SumSite::gpu);
    }
  }
  uint64_t chunks = 0;
  const auto parts = channel_parts(count_, channels, align);
  for (uint32_t c = 0; c < parts.size(); ++c) {
    const auto [begin, end] = parts[c];
    for (uint64_t loop = begin; loop < end; loop += n * chunk) {
      const uint64_t left = end - loop;
      const uint64_t size = left < n * chunk ? align_up(ceil_div(left, n), align) : chunk;
      for (uint32_t k = 0; k < n && loop + k * size < end; ++k, ++chunks) {
        segments_.push_back({std::min(end, loop + (k + 1) * size), c * n + k});
      }
    }
  }
  summary_ = fmt::format("ring/{} x{}: {} chunks of up to {} elements; chunk k of a ring starts at position k+1",
                         to_string(plan.run.protocol), channels, chunks, chunk);
}

void ReductionOrder::tree(const CollectivePlan& plan, const Topology& topology, std::span<const uint32_t> gpus,
                          uint32_t element_bytes) {
  const TreeOptions options = tree_options(plan);
  const std::array<TreeLinks, 2> links = tree_links(ranks_, options);
  for (uint32_t c = 0; c < options.channels; ++c) {
    const std::vector<uint32_t> at = channel_ranks(plan, topology, gpus, c);
    SumTree& t = trees_.emplace_back();
    std::vector<int32_t> own(ranks_);
    for (uint32_t p = 0; p < ranks_; ++p) own[p] = t.leaf(at[p]);
    tree_sum(t, links[c % 2], links[c % 2].root, own);
  }
  const auto parts = channel_parts(count_, options.channels, std::max<uint64_t>(1, 16 / element_bytes));
  for (uint32_t c = 0; c < parts.size(); ++c) segments_.push_back({parts[c].second, c});
  summary_ = fmt::format("tree/{} x{}: each channel's part summed up its tree (channel c on tree c % 2)",
                         to_string(plan.run.protocol), options.channels);
}

void ReductionOrder::nvls(const CollectivePlan& plan, const Topology& topology, std::span<const uint32_t> gpus) {
  const std::vector<uint32_t> at = channel_ranks(plan, topology, gpus, 0);  // node-major
  const uint32_t nodes = plan.simulated == Algorithm::nvls_tree ? std::max<uint32_t>(1, plan.input.nodes) : 1;
  const uint32_t per_node = ranks_ / nodes;
  const uint32_t channels = nodes > 1 ? 2 : 1;  // the two trees between nodes
  const std::array<TreeLinks, 2> between = nodes > 1 ? double_binary_tree(nodes) : std::array<TreeLinks, 2>{};
  for (uint32_t c = 0; c < channels; ++c) {
    SumTree& t = trees_.emplace_back();
    std::vector<int32_t> node_sum(nodes);
    for (uint32_t i = 0; i < nodes; ++i) {
      const auto first = static_cast<std::ptrdiff_t>(i) * per_node;
      std::vector<uint32_t> members(at.begin() + first, at.begin() + first + per_node);
      std::sort(members.begin(), members.end());
      int32_t acc = t.leaf(members[0]);
      for (size_t j = 1; j < members.size(); ++j) acc = t.add(acc, t.leaf(members[j]), SumSite::nvswitch);
      node_sum[i] = acc;
    }
    if (nodes > 1) tree_sum(t, between[c], between[c].root, node_sum);
  }
  const auto parts = channel_parts(count_, channels, 1);
  for (uint32_t c = 0; c < parts.size(); ++c) segments_.push_back({parts[c].second, c});
  summary_ = nodes > 1 ? fmt::format(
                             "nvls_tree: each node's {} GPUs summed in its NVSwitch (fp32), the {} nodes' "
                             "sums up two trees (half the buffer each)",
                             per_node, nodes)
                       : fmt::format("nvls: the {} GPUs' values summed in the NVSwitch (fp32 accumulation)", ranks_);
}

}  // namespace weft
