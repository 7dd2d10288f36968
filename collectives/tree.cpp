#include "collectives/tree.h"

#include <fmt/format.h>
#include <algorithm>

#include "collectives/algorithm_util.h"
#include "collectives/ring.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

TreeLinks empty_links(uint32_t n) {
  TreeLinks t;
  t.parent.assign(n, -1);
  t.children.resize(n);
  return t;
}

void link(TreeLinks& t, uint32_t parent, uint32_t child) {
  t.parent[child] = static_cast<int32_t>(parent);
  t.children[parent].push_back(child);
}

// Relabels every rank r of `t` as map(r).
template <typename Map>
TreeLinks relabel(const TreeLinks& t, Map map) {
  TreeLinks out = empty_links(static_cast<uint32_t>(t.parent.size()));
  out.root = map(t.root);
  for (uint32_t r = 0; r < t.children.size(); ++r) {
    for (uint32_t child : t.children[r]) link(out, map(r), map(child));
  }
  return out;
}

// The node-level tree `nodes` expanded to ranks: node k's ranks k·p .. k·p+p-1 form a chain below
// its first rank, which takes the node's place in the tree.
TreeLinks expand_nodes(const TreeLinks& nodes, uint32_t p) {
  auto n_nodes = static_cast<uint32_t>(nodes.parent.size());
  TreeLinks t = empty_links(n_nodes * p);
  t.root = nodes.root * p;
  for (uint32_t k = 0; k < n_nodes; ++k) {
    for (uint32_t i = 0; i + 1 < p; ++i) link(t, k * p + i, k * p + i + 1);
    for (uint32_t child : nodes.children[k]) link(t, k * p, child * p);
  }
  return t;
}

// Builds one channel's streams over `tree`. Stream indices are fixed before any run is written, so a
// step can name the stream it waits for whatever the order the ranks come in.
class TreeBuilder {
 public:
  TreeBuilder(Schedule& s, const TreeLinks& tree, uint32_t channel, uint64_t bytes, uint64_t chunk)
      : s_(s),
        tree_(tree),
        channel_(channel),
        bytes_(bytes),
        chunk_(chunk),
        up_(tree.parent.size(), -1),
        down_into_(tree.parent.size(), -1) {}

  void build() {
    uint32_t n = static_cast<uint32_t>(tree_.parent.size());
    for (uint32_t r = 0; r < n; ++r) {
      if (tree_.parent[r] >= 0) up_[r] = add_stream(r);
    }
    for (uint32_t r = 0; r < n; ++r) {
      for (uint32_t child : tree_.children[r]) down_into_[child] = add_stream(r);
    }
    for (uint32_t r = 0; r < n; ++r) {
      StepRun reduced = join_children(r);  // chunk c of the partial sum below r is here
      if (up_[r] >= 0) send(up_[r], static_cast<uint32_t>(tree_.parent[r]), reduced);
      StepRun result = r == tree_.root ? reduced : detail::waits_for(down_into_[r], -1);  // the final chunk c
      for (uint32_t child : tree_.children[r]) send(down_into_[child], child, result);
    }
  }

 private:
  int32_t add_stream(uint32_t rank) {
    s_.streams.push_back({rank, channel_, {}});
    return static_cast<int32_t>(s_.streams.size() - 1);
  }

  Stream& stream(int32_t index) { return s_.streams[static_cast<size_t>(index)]; }

  void send(int32_t index, uint32_t peer, const StepRun& waits) {
    detail::append_chunked(stream(index), peer, bytes_, chunk_, waits);
  }

  // Chunk c of every child's up stream (a node's first rank has up to three: its chain and two tree
  // children).
  StepRun join_children(uint32_t r) {
    std::vector<int32_t> inputs;
    for (uint32_t child : tree_.children[r]) inputs.push_back(up_[child]);
    return detail::join_streams(s_, r, channel_, std::move(inputs), detail::chunk_count(bytes_, chunk_));
  }

  Schedule& s_;
  const TreeLinks& tree_;
  uint32_t channel_;
  uint64_t bytes_;
  uint64_t chunk_;
  std::vector<int32_t> up_;         // rank -> its stream to the parent
  std::vector<int32_t> down_into_;  // rank -> the parent's stream to it
};

}  // namespace

// ncclGetBtree: the lowest set bit of r gives its level; the parent clears it and sets the next one
// (or only clears it when that is out of range), the children are r -/+ half of it (the second
// shrinks until it is in range). Built from the children, so every parent link has its child link.
TreeLinks binary_tree(uint32_t n) {
  TreeLinks t = empty_links(n);
  if (n <= 1) return t;
  link(t, 0, uint32_t{1} << (detail::ceil_log2(n) - 1));
  for (uint32_t r = 1; r < n; ++r) {
    uint32_t low = (r & (~r + 1)) >> 1;
    if (low == 0) continue;  // odd ranks are leaves
    link(t, r, r - low);
    while (low > 0 && r + low >= n) low >>= 1;
    if (low > 0) link(t, r, r + low);
  }
  return t;
}

std::array<TreeLinks, 2> double_binary_tree(uint32_t n) {
  TreeLinks first = binary_tree(n);
  if (n % 2 == 1) return {first, relabel(first, [n](uint32_t r) { return (r + 1) % n; })};
  return {first, relabel(first, [n](uint32_t r) { return n - 1 - r; })};
}

std::array<TreeLinks, 2> tree_links(uint32_t ranks, const TreeOptions& o) {
  uint32_t p = o.ranks_per_node;
  if (p <= 1) return double_binary_tree(ranks);
  if (ranks % p != 0) throw ConfigError(fmt::format("tree: {} ranks do not fill nodes of {} ranks", ranks, p));
  std::array<TreeLinks, 2> nodes = double_binary_tree(ranks / p);
  return {expand_nodes(nodes[0], p), expand_nodes(nodes[1], p)};
}

uint32_t tree_depth(uint32_t n) { return n <= 1 ? 0 : detail::ceil_log2(n); }

uint32_t depth_of(const TreeLinks& tree) {
  uint32_t depth = 0;
  for (uint32_t r = 0; r < tree.parent.size(); ++r) {
    uint32_t d = 0;
    for (int32_t up = tree.parent[r]; up >= 0; up = tree.parent[static_cast<size_t>(up)]) ++d;
    depth = std::max(depth, d);
  }
  return depth;
}

Schedule tree_all_reduce(uint32_t ranks, Bytes size, const TreeOptions& o) {
  Schedule s = detail::empty_schedule("all_reduce/tree", ranks, size, kNcclSteps);
  if (o.channels == 0) throw ConfigError("tree: needs at least one channel");
  std::array<TreeLinks, 2> trees = tree_links(ranks, o);
  if (ranks == 1) return s;
  uint64_t chunk = o.chunk.count() > 0 ? o.chunk.count() : kSimpleStepBytes;
  for (uint32_t c = 0; c < o.channels; ++c) {
    uint64_t bytes = detail::share(size.count(), o.channels, c);
    if (bytes > 0) TreeBuilder(s, trees[c % 2], c, bytes, chunk).build();
  }
  return s;
}

}  // namespace weft
