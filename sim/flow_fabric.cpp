#include "sim/flow_fabric.h"

#include <algorithm>

#include "sim/core/errors.h"

namespace weft {

FlowFabric::FlowFabric(Engine& engine, Router& router, Recorder& recorder, FlowFabricConfig config)
    : engine_(engine),
      router_(router),
      recorder_(recorder),
      config_(config),
      calendar_(engine, [this](const std::vector<uint64_t>& items) { on_due(items); }) {
  const Topology& topo = router.topology();
  links_.resize(topo.link_count());
  changes_.resize(topo.link_count());
  link_bytes_.assign(topo.link_count(), 0);
  for (LinkId l = 0; l < links_.size(); ++l) links_[l].capacity = topo.link(l).goodput().bps();
}

uint64_t FlowFabric::item(uint32_t flow, uint32_t version, Phase phase) {
  return (static_cast<uint64_t>(flow) << 32) | (static_cast<uint64_t>(version & 0x7FFFFFFF) << 1) |
         static_cast<uint64_t>(phase);
}

uint32_t FlowFabric::allocate_flow() {
  if (free_flows_.empty()) {
    flows_.emplace_back();
    hot_.emplace_back();
    return static_cast<uint32_t>(flows_.size() - 1);
  }
  uint32_t f = free_flows_.back();
  free_flows_.pop_back();
  return f;
}

// Striped transfers too small for every stripe start at the path their entropy names (sim/stripes.h).
bool FlowFabric::interchangeable(NodeIndex src, NodeIndex dst, uint64_t a, uint64_t b, Bytes smallest) {
  const PathSet* stripes_a = nullptr;
  const PathSet* stripes_b = nullptr;
  const Path& path_a = router_.route(src, dst, a, stripes_a);
  const Path& path_b = router_.route(src, dst, b, stripes_b);
  if (stripes_a != stripes_b) return false;
  if (stripes_a == nullptr) return &path_a == &path_b;  // striped, the path route() names is unused
  const size_t n = stripes_a->size();
  return stripes_used(smallest.count(), n) == n || a % n == b % n;
}

bool FlowFabric::interchangeable(const GroupTransfer& group, uint64_t a, uint64_t b, Bytes smallest) {
  // Only how many switches: groups_.stripes(group) would fix the cached union paths by this group's
  // entropy, before the first real group is started.
  const size_t n = group_switches(router_.topology(), group).size();
  return stripes_used(smallest.count(), n) == n || a % n == b % n;
}

bool FlowFabric::enter_quotient(std::span<const std::vector<Transfer>> orbits) {
  if (recorder_.wants(Hook::link_bytes) || quotient_.active() || !flows_.empty()) return false;
  if (!quotient_.build(router_, orbits)) return false;
  for (LinkId l = 0; l < links_.size(); ++l) links_[l].capacity *= quotient_.orbit_size(l);
  return true;
}

// A plain start is a connected one whose memo is thrown away: one way in, as PartJoin::start routes.
TransferId FlowFabric::start(const Transfer& transfer, OnTransferDone on_done) {
  ConnectionMemo once;
  return start_connected(transfer, std::move(on_done), once);
}

// A group is striped over the reducing switches next to it: one flow per stripe, each on the union
// of its links, in its own queue pair; the group is done when every stripe has arrived.
TransferId FlowFabric::start_group(const GroupTransfer& group, OnTransferDone on_done) {
  return joins_.start_group(groups_.stripes(group), group, std::move(on_done), starter());
}

TransferId FlowFabric::start_connected(const Transfer& transfer, OnTransferDone on_done, ConnectionMemo& memo) {
  if (!memo.holds(transfer)) {
    const PathSet* stripes = nullptr;
    const Path& path = router_.route(transfer.src, transfer.dst, transfer.entropy, stripes);
    if (stripes != nullptr) return joins_.start_striped(*stripes, transfer, std::move(on_done), starter());
    memo = {transfer.src, transfer.dst, transfer.entropy, &path, &queue_pairs_[{transfer.src, transfer.entropy}]};
  }
  return start_on(*static_cast<const Path*>(memo.route), transfer, std::move(on_done),
                  static_cast<QueuePair*>(memo.queue));
}

TransferId FlowFabric::start_on(const Path& routed, const Transfer& transfer, OnTransferDone on_done,
                                QueuePair* queue_pair) {
  const Path& path = quotient_.active() ? quotient_.canonical_path(routed, router_) : routed;
  uint32_t f = allocate_flow();
  Flow& flow = flows_[f];
  FlowHot& hot = hot_[f];
  flow.path = &path;
  hot.link_count = static_cast<uint32_t>(path.links.size());
  if (path.links.size() <= kCopiedLinks) std::ranges::copy(path.links, hot.links.begin());
  hot.remaining = static_cast<uint128>(transfer.bytes.bits()) * 1'000'000'000'000ULL;
  hot.rate = 0;
  hot.updated = engine_.now().ps();
  hot.max_rate = transfer.max_rate;
  hot.weight = transfer.copies;
  flow.transfer = transfer;
  flow.id = next_id_++;
  flow.start = engine_.now();
  flow.on_done = std::move(on_done);
  stats_.transfers_started += transfer.copies;
  if (path.links.empty() || hot.remaining == 0) {
    calendar_.add(engine_.now() + path.latency, item(f, hot.version, Phase::arrived));
    return flow.id;
  }
  QueuePair& qp = queue_pair != nullptr ? *queue_pair : queue_pairs_[{transfer.src, transfer.entropy}];
  flow.queue_pair = &qp;
  if (qp.busy) {
    flow.next_waiting = kNoFlow;
    (qp.first == kNoFlow ? qp.first : flows_[qp.last].next_waiting) = f;
    qp.last = f;
  } else {
    qp.busy = true;
    join_links(f);
  }
  return flow.id;
}

// Rides on the flow that joined the same path earlier in this instant when it is identical (bytes,
// limit; nothing sent yet, as it joined now), else goes on the links itself. The copies always share
// one rate (a pop fixes all of a flow's copies at one share: fill_component, as MaxMinSolver::solve),
// so one flow of weight w moves exactly as w flows would.
void FlowFabric::join_links(uint32_t f) {
  Flow& flow = flows_[f];
  int64_t now = engine_.now().ps();
  if (flow.path->id >= joined_.size()) joined_.resize(std::max<size_t>(flow.path->id + 1, 2 * joined_.size()));
  Joined& joined = joined_[flow.path->id];
  if (joined.at == now) {
    Flow& head = flows_[joined.flow];
    FlowHot& head_hot = hot_[joined.flow];
    if (head.path == flow.path && head.transfer.bytes == flow.transfer.bytes &&
        head.transfer.max_rate == flow.transfer.max_rate && head_hot.remaining == hot_[f].remaining) {
      head.followers.push_back(f);
      note_change(joined.flow, hot_[f].weight, /*joined=*/true);
      head_hot.weight += hot_[f].weight;
      reweighted_.push_back(joined.flow);
      // The weight changed: re-solve its component. A head that joined without a solve (it has its
      // rate) has none of its links dirty yet, and the rejoin rule reads every changed link.
      if (head_hot.rate == 0) {
        mark_dirty(flow.path->links.front());
      } else {
        for (LinkId l : flow.path->links) mark_dirty(l);
      }
      return;
    }
  }
  joined = {now, f};
  hot_[f].updated = now;
  flow.joined = now;
  if (!join_without_solve(f)) attach(f);
}

void FlowFabric::attach(uint32_t f, bool dirty) {
  Flow& flow = flows_[f];
  if (dirty) {
    note_change(f, hot_[f].weight, /*joined=*/true);
    arrivals_.push_back(f);
  }
  flow.slot_in_link.resize(flow.path->links.size());
  for (size_t i = 0; i < flow.path->links.size(); ++i) {
    LinkId l = flow.path->links[i];
    flow.slot_in_link[i] = static_cast<uint32_t>(links_[l].flows.size());
    links_[l].flows.push_back(f);
    links_[l].key_sum += SameFlowLinks::flow_key(f);
    if (dirty) mark_dirty(l);
  }
}

void FlowFabric::detach(uint32_t f, bool dirty) {
  const Flow& flow = flows_[f];
  if (dirty) {
    const FlowHot& hot = hot_[f];
    note_change(f, hot.weight, /*joined=*/false);
    departed_.push_back({flow.path, hot.max_rate, hot.rate, hot.fixed_by, hot.weight});
  }
  for (size_t i = 0; i < flow.path->links.size(); ++i) {
    LinkId l = flow.path->links[i];
    links_[l].key_sum -= SameFlowLinks::flow_key(f);
    std::vector<uint32_t>& on_link = links_[l].flows;
    uint32_t slot = flow.slot_in_link[i];
    uint32_t moved = on_link.back();
    on_link[slot] = moved;
    on_link.pop_back();
    if (moved != f) {  // tell the moved flow where it now sits on this link
      Flow& m = flows_[moved];
      auto at = std::find(m.path->links.begin(), m.path->links.end(), l) - m.path->links.begin();
      m.slot_in_link[static_cast<size_t>(at)] = slot;
    }
    if (dirty) mark_dirty(l);
  }
}

void FlowFabric::mark_dirty(LinkId l) {
  dirty_.push_back(l);
  if (!recompute_pending_) {
    recompute_pending_ = true;
    // Runs after everything already due now: all starts and finishes of this instant share one solve.
    engine_.schedule_at(engine_.now(), [this] { recompute(); });
  }
}

void FlowFabric::recompute() {
  recompute_pending_ = false;
  if (!rejoin_without_solve() && !repair()) {
    ++epoch_;
    for (LinkId l : dirty_) {
      if (links_[l].mark == epoch_) continue;
      gather_component(l);
      if (!component_flows_.empty()) solve_component();
    }
  }
  dirty_.clear();
  departed_.clear();
  arrivals_.clear();
  reweighted_.clear();
  ++instant_;
}

// A link with the same flows as one met before adds no flow: only the first of each set is scanned.
void FlowFabric::gather_component(LinkId seed) {
  component_links_.clear();
  component_flows_.clear();
  same_flows_.clear();
  auto enter = [this](LinkId l) {
    Link& link = links_[l];
    link.mark = epoch_;
    link.unfixed = 0;
    link.fixed_here = 0;
    component_links_.push_back(l);
    link.flow_set = same_flows_.enter(l, link.key_sum, static_cast<uint32_t>(link.flows.size()), link.capacity);
  };
  enter(seed);
  for (size_t next = 0; next < component_links_.size(); ++next) {
    const LinkId scanned = component_links_[next];
    if (same_flows_.first(links_[scanned].flow_set) != scanned) continue;
    const std::vector<uint32_t>& on_link = links_[scanned].flows;
    for (size_t i = 0; i < on_link.size(); ++i) {
      // The flows of a link lie all over hot_: ask for a later one's line while this one is read.
      if (i + kPrefetchAhead < on_link.size()) prefetch(on_link[i + kPrefetchAhead]);
      const uint32_t f = on_link[i];
      FlowHot& hot = hot_[f];
      if (hot.mark == epoch_) continue;
      hot.mark = epoch_;
      hot.solved = 0;
      component_flows_.push_back(f);
      for (LinkId other : links_of(f)) {
        if (links_[other].mark != epoch_) enter(other);
        links_[other].unfixed += hot.weight;
      }
    }
  }
}

void FlowFabric::solve_component() {
  ++stats_.rate_solves;
  stats_.flows_solved += component_flows_.size();
  if (component_flows_.size() == 1) {  // alone on its links: the bottleneck rate, no solver needed
    const Flow& flow = flows_[component_flows_.front()];
    const FlowHot& hot = hot_[component_flows_.front()];
    uint64_t rate = flow.path->bottleneck.bps();
    if (hot.weight > 1) {  // its copies share every link equally, as the solver would give them
      rate = UINT64_MAX;
      for (LinkId l : flow.path->links) rate = std::min(rate, std::max<uint64_t>(1, links_[l].capacity / hot.weight));
    }
    if (hot.max_rate > 0) rate = std::min(rate, hot.max_rate);
    const uint32_t by = alone_fixed_by(component_flows_.front(), rate);
    hot_[component_flows_.front()].fixed_by = by;
    if (by != kLimitKey) ++links_[by].fixed_here;
    rerate(component_flows_.front(), rate);
    return;
  }
  fill_component();
  // In the search's order: the calendar fires items of one instant in the order they were added.
  for (size_t i = 0; i < component_flows_.size(); ++i) {
    if (i + kPrefetchAhead < component_flows_.size()) prefetch(component_flows_[i + kPrefetchAhead]);
    rerate(component_flows_[i], hot_[component_flows_[i]].solved);
  }
  if (config_.check_invariants) check_component();
}

// Brings the flow's remaining bits up to now at its old rate, then, if the rate changed, moves its
// drain time. A flow whose rate stays keeps its calendar item, which remains exact.
void FlowFabric::rerate(uint32_t f, uint64_t rate) {
  FlowHot& flow = hot_[f];
  int64_t now = engine_.now().ps();
  uint128 sent = static_cast<uint128>(flow.rate) * static_cast<uint64_t>(now - flow.updated);
  flow.remaining -= std::min(sent, flow.remaining);
  flow.updated = now;
  if (rate == flow.rate) return;
  WEFT_ASSERT(rate > 0);
  flow.rate = rate;
  ++flow.version;
  ++stats_.flows_rerated;
  Time drain = Time::ps(static_cast<int64_t>(ceil_div(flow.remaining, rate)));
  calendar_.add(engine_.now() + drain, item(f, flow.version, Phase::drained));
}

void FlowFabric::on_due(const std::vector<uint64_t>& items) {
  for (uint64_t it : items) {
    auto f = static_cast<uint32_t>(it >> 32);
    auto version = static_cast<uint32_t>((it >> 1) & 0x7FFFFFFF);
    if ((hot_[f].version & 0x7FFFFFFF) != version) continue;  // superseded by a rate change
    if (static_cast<Phase>(it & 1) == Phase::drained) {
      drained(f);
    } else {
      arrived(f);
    }
  }
}

void FlowFabric::drained(uint32_t f) {
  if (!leave_without_solve(f)) detach(f);
  const Flow& head = flows_[f];
  for (LinkId l : head.path->links) link_bytes_[l] += head.transfer.bytes.count() * hot_[f].weight;
  if (recorder_.wants(Hook::link_bytes)) record(head, hot_[f].weight);
  leave(f);
  // Followers are never on the links and never in the calendar until they arrive; joining the
  // links below only appends to other flows' followers, so this list stays put.
  for (size_t i = 0; i < flows_[f].followers.size(); ++i) leave(flows_[f].followers[i]);
  flows_[f].followers.clear();
}

void FlowFabric::record(const Flow& head, uint32_t weight) {
  const auto payload = static_cast<double>(head.transfer.bytes.count()) * weight;
  for (LinkId l : head.path->links) {
    const LinkProps& link = router_.topology().link(l);
    const double headers = link.mtu ? static_cast<double>(link.header_bytes) / static_cast<double>(link.mtu) : 0.0;
    recorder_.on_link_bytes({l, Time::ps(head.joined), engine_.now(), payload * (1 + headers)});
  }
}

// One copy has drained: it arrives one path latency later, and its queue pair sends the next.
void FlowFabric::leave(uint32_t f) {
  Flow& flow = flows_[f];
  FlowHot& hot = hot_[f];
  hot.remaining = 0;
  hot.rate = 0;
  calendar_.add(engine_.now() + flow.path->latency, item(f, hot.version, Phase::arrived));
  QueuePair& qp = *flow.queue_pair;
  const uint32_t next = qp.first;
  if (next == kNoFlow) {
    qp.busy = false;  // kept (not erased): the same QP usually sends again soon
    return;
  }
  qp.first = flows_[next].next_waiting;
  join_links(next);
}

void FlowFabric::arrived(uint32_t f) {
  Flow& flow = flows_[f];
  count_delivered(stats_, recorder_, flow.id, flow.transfer, flow.start, engine_.now());
  OnTransferDone done = std::move(flow.on_done);
  ++hot_[f].version;  // any item still naming this flow is now stale
  free_flows_.push_back(f);
  done();
}

std::vector<LinkStats> FlowFabric::link_stats() const {
  const Topology& topo = router_.topology();
  std::vector<LinkStats> out;
  std::vector<uint64_t> bytes = link_bytes_;
  if (quotient_.active()) {  // a representative carried its whole orbit's bytes: share them out
    for (LinkId l = 0; l < bytes.size(); ++l) {
      if (quotient_.orbit(l).empty() || link_bytes_[l] == 0) continue;
      for (LinkId member : quotient_.orbit(l)) bytes[member] = link_bytes_[l] / quotient_.orbit_size(l);
    }
  }
  for (LinkId l = 0; l < bytes.size(); ++l) {
    if (bytes[l] == 0) continue;
    const LinkProps& link = topo.link(l);
    LinkStats stats;
    stats.link = l;
    stats.packets = static_cast<uint64_t>(ceil_div(bytes[l], std::max<uint64_t>(1, link.mtu)));
    stats.wire = Bytes(bytes[l] + stats.packets * link.header_bytes);
    out.push_back(stats);
  }
  return out;
}

uint64_t FlowFabric::link_load(LinkId l) const {
  uint64_t sum = 0;
  for (uint32_t f : links_[l].flows) sum += hot_[f].rate * hot_[f].weight;
  return sum;
}

}  // namespace weft
