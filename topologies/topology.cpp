#include "topologies/topology.h"

#include "sim/core/errors.h"

namespace weft {

Topology::Topology(const Topology& other) : graph_(other.graph_), gpus_(other.gpus_) { index_links(); }

Topology::Topology(Topology&& other) noexcept : graph_(std::move(other.graph_)), gpus_(std::move(other.gpus_)) {
  index_links();
}

Topology& Topology::operator=(const Topology& other) {
  if (this != &other) {
    graph_ = other.graph_;
    gpus_ = other.gpus_;
    index_links();
  }
  return *this;
}

Topology& Topology::operator=(Topology&& other) noexcept {
  graph_ = std::move(other.graph_);
  gpus_ = std::move(other.gpus_);
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

void Topology::add_duplex_link(NodeIndex a, NodeIndex b, const LinkSpec& spec) {
  WEFT_ASSERT(a < node_count() && b < node_count() && a != b);
  for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    LinkProps props{spec.kind, spec.rate, spec.latency, spec.mtu, static_cast<LinkId>(links_.size())};
    auto [edge, added] = boost::add_edge(from, to, props, graph_);
    WEFT_ASSERT(added);
    links_.push_back(edge);
  }
}

}  // namespace weft
