// The packet fabric's facade: builds the parts and the links, and answers the Fabric interface
// (see packet_fabric.h).
#include "sim/packet/packet_fabric.h"

#include "sim/core/errors.h"

namespace weft {

PacketFabric::PacketFabric(Engine& engine, Router& router, Recorder& recorder, packet::PacketConfig config,
                           bool check_invariants)
    : engine_(engine),
      router_(router),
      recorder_(recorder),
      config_(checked(config)),
      check_(check_invariants),
      rng_(router.options().seed, "packet-fabric"),
      context_{engine_, config_, router_, recorder_, rng_, stats_, packets_, flows_, check_},
      pfc_(engine_, config_.pfc, stats_, router.topology().link_count(), egress_),
      credits_(engine_, config_.credits, router.topology().link_count(), egress_),
      buffer_(config_, router.topology(), pfc_),
      egress_(context_, pfc_, credits_, buffer_, sender_, receiver_),
      queue_pairs_(router.topology().link_count()),
      sender_(context_, egress_, queue_pairs_, feedback_, receiver_, watchdog_, sampler_),
      feedback_(context_, sender_),
      receiver_(context_, egress_, feedback_, groups_),
      groups_(context_, egress_, sender_, receiver_),
      watchdog_(context_, egress_, pfc_),
      sampler_(context_, egress_) {
  build_links();
}

PacketFabric::~PacketFabric() = default;

packet::PacketConfig PacketFabric::checked(const packet::PacketConfig& config) {
  packet::validate(config);
  return config;
}

packet::Control PacketFabric::control_of(LinkKind kind) const {
  if (kind != LinkKind::ethernet) return packet::Control::credit;  // InfiniBand VLs, NVLink, PCIe, generic
  return config_.pfc.enabled ? packet::Control::pfc : packet::Control::lossy;
}

// Each link's port, then its PFC headroom or its credits, link by link (the first bad link is the
// one reported); then whether static PFC thresholds fit the switch buffers.
void PacketFabric::build_links() {
  const Topology& t = router_.topology();
  for (LinkId l = 0; l < t.link_count(); ++l) {
    packet::EgressPort& port = egress_.set_up(l, control_of(t.link(l).kind));
    if (port.control == packet::Control::pfc) pfc_.set_headroom(l, pfc_.headroom_for(port));
    if (port.control == packet::Control::credit) credits_.set_up(port);
  }
  buffer_.check_static_pfc_fits(egress_.ports());
}

// A transfer between GPUs on NVSwitches interleaves over every NVLink path, as in flow (sim/stripes.h).
TransferId PacketFabric::start(const Transfer& transfer, OnTransferDone on_done) {
  return joins_.start(router_, transfer, std::move(on_done),
                      [this](const Path& path, const Transfer& t, OnTransferDone done) {
                        return flows_[sender_.start(path, t, std::move(done))].id;
                      });
}

TransferId PacketFabric::start_group(const GroupTransfer& group, OnTransferDone on_done) {
  return groups_.start(group, std::move(on_done));
}

FabricStats PacketFabric::stats() const { return stats_; }

uint64_t PacketFabric::queued_bytes(LinkId link) const { return egress_.port(link).queued_total(); }

std::vector<LinkStats> PacketFabric::link_stats() const {
  std::vector<LinkStats> out;
  for (const packet::EgressPort& p : egress_.ports()) {
    if (p.counters.packets == 0) continue;
    out.push_back(p.counters);
    out.back().link = p.link;
    out.back().pauses = pfc_.pauses(p.link);
    out.back().paused = pfc_.paused(p.link);
  }
  return out;
}

void PacketFabric::run(Engine& engine) {
  engine.run();
  if (stats_.transfers_done < stats_.transfers_started) throw ModelError(watchdog_.describe_stall());
  if (!check_) return;
  for (const packet::EgressPort& p : egress_.ports()) {
    WEFT_ASSERT(!p.busy);
    for (int pr = 0; pr < packet::kPriorities; ++pr) {
      WEFT_ASSERT(p.queue[pr].empty() && pfc_.ingress(p.link, static_cast<uint8_t>(pr)) == 0);
    }
  }
  for (NodeIndex n = 0; n < router_.topology().node_count(); ++n) WEFT_ASSERT(buffer_.used(n) == 0);
  WEFT_ASSERT(packets_.in_network() == 0);
}

}  // namespace weft
