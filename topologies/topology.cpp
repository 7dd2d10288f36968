#include "topologies/topology.h"

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {

Bandwidth LinkSpec::goodput() const {
  if (header_bytes == 0) return rate;
  uint128 scaled = static_cast<uint128>(rate.bps()) * mtu / (mtu + header_bytes);
  return Bandwidth::bps(static_cast<uint64_t>(scaled));
}

Topology::Topology(const Topology& other)
    : name(other.name), description(other.description), graph_(other.graph_), gpus_(other.gpus_), nics_(other.nics_) {
  index_links();
}

Topology::Topology(Topology&& other) noexcept
    : name(std::move(other.name)),
      description(std::move(other.description)),
      graph_(std::move(other.graph_)),
      gpus_(std::move(other.gpus_)),
      nics_(std::move(other.nics_)) {
  index_links();
}

Topology& Topology::operator=(const Topology& other) {
  if (this != &other) *this = Topology(other);
  return *this;
}

Topology& Topology::operator=(Topology&& other) noexcept {
  name = std::move(other.name);
  description = std::move(other.description);
  graph_ = std::move(other.graph_);
  gpus_ = std::move(other.gpus_);
  nics_ = std::move(other.nics_);
  index_links();
  return *this;
}

void Topology::index_links() {
  links_.assign(boost::num_edges(graph_), {});
  for (auto [e, end] = boost::edges(graph_); e != end; ++e) links_[graph_[*e].id] = *e;
}

NodeIndex Topology::add_node(NodeProps props) {
  if (props.kind == NodeKind::gpu) props.gpu_index = static_cast<int32_t>(gpus_.size());
  auto v = static_cast<NodeIndex>(boost::add_vertex(std::move(props), graph_));
  if (graph_[v].kind == NodeKind::gpu) gpus_.push_back(v);
  return v;
}

void Topology::add_duplex_link(NodeIndex a, NodeIndex b, const LinkSpec& a_to_b, const LinkSpec& b_to_a) {
  WEFT_ASSERT(a < node_count() && b < node_count() && a != b);
  for (auto [from, to, spec] : {std::tuple{a, b, &a_to_b}, std::tuple{b, a, &b_to_a}}) {
    LinkProps props{*spec, static_cast<LinkId>(links_.size())};
    auto [edge, added] = boost::add_edge(from, to, props, graph_);
    WEFT_ASSERT(added);
    links_.push_back(edge);
  }
}

void Topology::attach_nic(NodeIndex gpu, NodeIndex nic) {
  WEFT_ASSERT(gpu < node_count() && nic < node_count());
  WEFT_ASSERT(node(gpu).kind == NodeKind::gpu && node(nic).kind == NodeKind::nic);
  if (nics_.size() <= gpu) nics_.resize(gpu + 1);
  nics_[gpu].push_back(nic);
}

const std::vector<NodeIndex>& Topology::nics_of(NodeIndex gpu) const {
  static const std::vector<NodeIndex> kNone;
  return gpu < nics_.size() ? nics_[gpu] : kNone;
}

// Links are laid in duplex pairs, so reachability from GPU 0 over out-edges is symmetric.
void Topology::require_connected() const {
  if (gpus_.empty()) throw ConfigError(fmt::format("topology '{}': has no GPUs", name));
  std::vector<bool> seen(node_count(), false);
  std::vector<NodeIndex> queue{gpus_[0]};
  seen[gpus_[0]] = true;
  for (size_t head = 0; head < queue.size(); ++head) {
    for (auto [e, end] = boost::out_edges(queue[head], graph_); e != end; ++e) {
      auto v = static_cast<NodeIndex>(boost::target(*e, graph_));
      if (!seen[v]) {
        seen[v] = true;
        queue.push_back(v);
      }
    }
  }
  for (NodeIndex g : gpus_) {
    if (!seen[g]) {
      throw ConfigError(fmt::format("topology '{}': GPU {} ({}) cannot reach GPU 0 ({}): no cable path joins them",
                                    name, graph_[g].gpu_index, graph_[g].name, graph_[gpus_[0]].name));
    }
  }
}

}  // namespace weft
