#include "workloads/rank_layout.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "sim/core/errors.h"

namespace weft {

uint32_t RankLayout::rank_of(const std::array<uint32_t, kDims>& coords) const {
  uint32_t r = 0;
  for (size_t d = 0; d < kDims; ++d) r += coords[d] * stride[d];
  return r;
}

std::array<uint32_t, kDims> RankLayout::coords_of(uint32_t rank) const {
  std::array<uint32_t, kDims> c{};
  for (size_t d = 0; d < kDims; ++d) c[d] = rank / stride[d] % extent[d];
  return c;
}

std::vector<uint32_t> RankLayout::group_of(uint32_t rank, std::initializer_list<Dim> dims) const {
  auto base = coords_of(rank);
  for (Dim d : dims) base[d] = 0;
  std::vector<uint32_t> group{rank_of(base)};
  // Rank order: enumerate the listed dimensions in layout order, fastest first.
  for (uint8_t d : order) {
    if (std::find(dims.begin(), dims.end(), static_cast<Dim>(d)) == dims.end()) continue;
    std::vector<uint32_t> next;
    for (uint32_t i = 0; i < extent[d]; ++i) {
      for (uint32_t r : group) next.push_back(r + i * stride[d]);
    }
    group = std::move(next);
  }
  std::sort(group.begin(), group.end());
  return group;
}

RankLayout make_layout(const ParallelSizes& s, const std::string& order) {
  if (s.tp == 0 || s.cp == 0 || s.ep == 0 || s.dp == 0 || s.pp == 0) {
    throw ConfigError("parallel: tp, cp, ep, dp and pp must be at least 1");
  }
  if (s.dp % s.ep != 0) {
    throw ConfigError(
        fmt::format("parallel: ep ({}) must divide dp ({}): expert parallelism splits the data-parallel "
                    "ranks into groups holding different experts",
                    s.ep, s.dp));
  }
  RankLayout layout;
  layout.sizes = s;
  layout.extent = {s.tp, s.cp, s.ep, s.dp / s.ep, s.pp};
  const std::map<std::string, Dim> names{{"tp", kTp}, {"cp", kCp}, {"ep", kEp}, {"dp", kEdp}, {"pp", kPp}};
  std::vector<std::string> parts;
  for (size_t start = 0; start <= order.size();) {
    size_t dash = order.find('-', start);
    if (dash == std::string::npos) dash = order.size();
    parts.push_back(order.substr(start, dash - start));
    start = dash + 1;
  }
  std::array<bool, kDims> seen{};
  if (parts.size() != kDims) parts.clear();
  for (size_t i = 0; i < parts.size(); ++i) {
    auto it = names.find(parts[i]);
    if (it == names.end() || seen[it->second]) break;
    seen[it->second] = true;
    layout.order[i] = it->second;
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end()) {
    throw ConfigError(
        fmt::format("parallel.order '{}': expected the five dimensions tp, cp, ep, dp, pp joined by '-', "
                    "fastest-varying first (Megatron's default: tp-cp-ep-dp-pp)",
                    order));
  }
  uint32_t stride = 1;
  for (uint8_t d : layout.order) {
    layout.stride[d] = stride;
    stride *= layout.extent[d];
  }
  return layout;
}

namespace {

// One communicator per distinct group along `dims`, recorded for every member.
std::vector<int32_t> add_groups(const RankLayout& layout, std::initializer_list<Dim> dims, CommGroup kind,
                                Workload& w) {
  const uint32_t world = layout.sizes.world();
  std::vector<int32_t> comm_of(world, -1);
  for (uint32_t r = 0; r < world; ++r) {
    if (comm_of[r] >= 0) continue;
    std::vector<uint32_t> members = layout.group_of(r, dims);
    if (members.size() < 2) return std::vector<int32_t>(world, -1);
    const auto id = static_cast<int32_t>(w.add_communicator({members, kind}));
    for (uint32_t m : members) comm_of[m] = id;
  }
  return comm_of;
}

// Pairs {stage 0, stage p - 1} with the other coordinates equal; none when pp = 1.
std::vector<int32_t> add_embedding_groups(const RankLayout& layout, Workload& w) {
  const uint32_t world = layout.sizes.world(), stages = layout.extent[kPp];
  std::vector<int32_t> comm_of(world, -1);
  if (stages < 2) return comm_of;
  for (uint32_t r = 0; r < world; ++r) {
    auto coords = layout.coords_of(r);
    if (coords[kPp] != 0) continue;
    coords[kPp] = stages - 1;
    const uint32_t last = layout.rank_of(coords);
    const auto id = static_cast<int32_t>(w.add_communicator({{r, last}, CommGroup::pp}));
    comm_of[r] = comm_of[last] = id;
  }
  return comm_of;
}

}  // namespace

PlanCommunicators add_communicators(const RankLayout& layout, Workload& w, bool embedding) {
  PlanCommunicators c;
  c.tp = add_groups(layout, {kTp}, CommGroup::tp, w);
  c.cp = add_groups(layout, {kCp}, CommGroup::cp, w);
  c.ep = add_groups(layout, {kEp}, CommGroup::ep, w);
  c.dp = add_groups(layout, {kCp, kEp, kEdp}, CommGroup::dp, w);
  c.edp = layout.sizes.ep > 1 ? add_groups(layout, {kCp, kEdp}, CommGroup::dp, w) : c.dp;
  c.embedding = embedding ? add_embedding_groups(layout, w) : std::vector<int32_t>(layout.sizes.world(), -1);
  return c;
}

}  // namespace weft
