// Group transfers of the packet fabric: striping, the sources' shares and the switch's copies
// (see group_stripe.h).
#include "sim/packet/group_stripe.h"

#include "sim/core/errors.h"
#include "sim/group_paths.h"
#include "sim/packet/receiver.h"
#include "sim/packet/sender.h"
#include "sim/stripes.h"

namespace weft::packet {

GroupStripes::GroupStripes(const FabricContext& c, Egress& egress, Sender& sender, Receiver& receiver)
    : engine_(c.engine),
      router_(c.router),
      stats_(c.stats),
      packets_(c.packets),
      flows_(c.flows),
      egress_(egress),
      sender_(sender),
      receiver_(receiver) {}

TransferId GroupStripes::start(const GroupTransfer& group, OnTransferDone on_done) {
  // Inside a node the NVSwitches next to the GPUs; across hosts the SHARP roots (group_switches).
  // There each source's packets ride the router's path to the root, so, unlike the flow model's
  // union, a leaf below the root forwards one copy per source instead of aggregating them.
  // A small group uses fewer switches, one per NVLink packet (sim/stripes.h).
  std::vector<NodeIndex> switches = group_switches(router_.topology(), group);
  const size_t n = switches.size();
  const size_t used = stripes_used(group.bytes.count(), n);
  uint32_t g = static_cast<uint32_t>(groups_.size());
  groups_.push_back({static_cast<uint32_t>(used * group.dsts.size()), std::move(on_done)});
  TransferId first = flows_.next_id();
  uint64_t share = group.bytes.count() / used;
  for (size_t i = 0; i < used; ++i) {
    const size_t k = stripe_path(group.entropy, n, used, i);
    Bytes bytes(i + 1 == used ? group.bytes.count() - share * i : share);
    auto s = static_cast<uint32_t>(stripes_.size());
    stripes_.push_back({switches[k], static_cast<uint32_t>(group.srcs.size()), {}, {}, g});
    uint32_t up_flow = 0;
    for (NodeIndex src : group.srcs) {  // each source's share to the switch, in its own queue pair
      Transfer up{src, switches[k], bytes, 0, group_queue_pair(group, k), group.tag};
      up.max_rate = group.max_rate / used;
      up_flow = sender_.start(router_.route(src, switches[k], up.entropy), up, [] {});
      Flow& flow = flows_[up_flow];
      flow.stripe = static_cast<int32_t>(s);  // set before any of its packets can arrive (a later event)
      if (flow.reliable) throw ModelError("packet fabric: group transfers need lossless links (credits or PFC)");
      if (stripes_[s].arrived.empty()) stripes_[s].arrived.assign(flow.packets, 0);
    }
    for (NodeIndex dst : group.dsts) stripes_[s].down.push_back(start_down_flow(s, dst, flows_[up_flow], group));
  }
  return first;
}

// The switch's flow to one destination: packet k down carries what packet k up did.
uint32_t GroupStripes::start_down_flow(uint32_t s, NodeIndex dst, const Flow& up, const GroupTransfer& group) {
  uint32_t f = flows_.add();
  Flow& flow = flows_[f];
  flow.transfer = {stripes_[s].via, dst, up.transfer.bytes, 0, group.entropy, group.tag};
  flow.path = &router_.route(stripes_[s].via, dst, group.entropy);
  flow.start = engine_.now();
  flow.send.done = true;
  flow.segment = up.segment;
  flow.packets = up.packets;
  uint32_t g = stripes_[s].group;
  flow.on_done = [this, g] {
    GroupState& state = groups_[g];
    if (--state.pending > 0) return;
    OnTransferDone done = std::move(state.on_done);
    done();
  };
  ++stats_.transfers_started;
  if (flow.packets == 0) engine_.schedule_at(engine_.now() + flow.path->latency, [this, f] { receiver_.finish(f); });
  return f;
}

void GroupStripes::arrival(uint32_t s, const Packet& up) {
  Stripe& stripe = stripes_[s];
  if (++stripe.arrived[up.seq] < stripe.sources) return;
  for (uint32_t f : stripe.down) {  // reduced (or, with one source, as is): one copy per destination
    uint32_t p = packets_.acquire();
    Packet& pkt = packets_[p];
    pkt.path = flows_[f].path;
    pkt.flow = f;
    pkt.flow_id = flows_[f].id;
    pkt.seq = up.seq;
    pkt.payload = up.payload;
    pkt.priority = up.priority;
    pkt.kind = Kind::data;
    egress_.enqueue(pkt.path->links[0], p);
  }
}

}  // namespace weft::packet
