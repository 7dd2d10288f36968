#include "collectives/nvlink_rings.h"

#include <algorithm>

namespace weft {
namespace {

using Matrix = std::vector<std::vector<uint32_t>>;
using Rates = std::vector<std::vector<double>>;

// NVLink bit/s from the GPU at position i to the one at position j (an NV2 cable carries two links).
Rates nvlink_links(const Topology& t, std::span<const uint32_t> gpus) {
  const size_t n = gpus.size();
  std::vector<int32_t> position(t.gpus().size(), -1);
  for (size_t p = 0; p < n; ++p) position[gpus[p]] = static_cast<int32_t>(p);
  Rates links(n, std::vector<double>(n, 0.0));
  for (LinkId l = 0; l < t.link_count(); ++l) {
    if (t.link(l).kind != LinkKind::nvlink) continue;
    const NodeProps& a = t.node(t.link_source(l));
    const NodeProps& b = t.node(t.link_target(l));
    if (a.kind != NodeKind::gpu || b.kind != NodeKind::gpu) continue;
    const int32_t i = position[a.gpu_index], j = position[b.gpu_index];
    if (i >= 0 && j >= 0) links[i][j] += static_cast<double>(t.link(l).rate.bps());
  }
  return links;
}

// Every Hamiltonian cycle from position 0 over the cables, one of each mirror pair, up to `limit`.
std::vector<std::vector<uint32_t>> cycles(const Rates& links, size_t limit) {
  const size_t n = links.size();
  std::vector<std::vector<uint32_t>> found;
  std::vector<uint32_t> path{0};
  std::vector<bool> used(n, false);
  used[0] = true;
  auto search = [&](auto&& self) -> void {
    if (found.size() >= limit) return;
    if (path.size() == n) {
      if (links[path.back()][0] > 0 && path[1] < path.back()) found.push_back(path);
      return;
    }
    for (uint32_t next = 0; next < n; ++next) {
      if (used[next] || links[path.back()][next] == 0) continue;
      used[next] = true;
      path.push_back(next);
      self(self);
      path.pop_back();
      used[next] = false;
    }
  };
  if (n > 2) search(search);
  return found;
}

// How loaded the busiest cable of `ring` would be with it added: rings per unit of rate, and the sum as
// a tie-break.
std::pair<double, double> load_with(const std::vector<uint32_t>& ring, const Rates& links, const Matrix& rings_on) {
  double worst = 0, sum = 0;
  for (size_t k = 0; k < ring.size(); ++k) {
    const uint32_t a = ring[k], b = ring[(k + 1) % ring.size()];
    const double load = (rings_on[a][b] + 1.0) / links[a][b];
    worst = std::max(worst, load);
    sum += load;
  }
  return {worst, sum};
}

}  // namespace

std::vector<std::vector<uint32_t>> nvlink_rings(const Topology& topology, std::span<const uint32_t> gpus,
                                                uint32_t count) {
  const Rates links = nvlink_links(topology, gpus);
  const std::vector<std::vector<uint32_t>> all = cycles(links, 4096);  // 8 GPUs of a cube mesh: fewer
  std::vector<std::vector<uint32_t>> chosen;
  if (all.empty()) return chosen;
  Matrix rings_on(links.size(), std::vector<uint32_t>(links.size(), 0));  // each ring runs both ways
  while (chosen.size() < count) {
    const auto best = std::min_element(all.begin(), all.end(), [&](const auto& x, const auto& y) {
      return load_with(x, links, rings_on) < load_with(y, links, rings_on);
    });
    for (size_t k = 0; k < best->size(); ++k) {
      const uint32_t a = (*best)[k], b = (*best)[(k + 1) % best->size()];
      ++rings_on[a][b];
      ++rings_on[b][a];
    }
    chosen.push_back(*best);
  }
  return chosen;
}

}  // namespace weft
