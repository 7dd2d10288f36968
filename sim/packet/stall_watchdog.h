// The packet fabric's stall watchdog. A PFC deadlock keeps pause refreshes going for ever, so the
// run would never end: every deadlock_timeout while transfers are open, the watchdog looks whether
// any packet started on a link since the last look; if packets wait and none moved, it names the
// paused ports that wait on each other (or, without a cycle, what is stuck) and stops the run.
#pragma once

#include <string>
#include <vector>

#include "sim/packet/egress.h"
#include "sim/packet/fabric_context.h"
#include "sim/packet/pfc_state.h"

namespace weft::packet {

class StallWatchdog {
 public:
  StallWatchdog(const FabricContext& context, const Egress& egress, const PfcState& pfc);

  // Schedules the next look unless one is pending.
  void arm();
  // Why the run cannot finish: a PFC cycle, else the ports that still hold packets.
  std::string describe_stall() const;

 private:
  void look();
  bool stuck(const EgressPort& port) const;
  std::vector<LinkId> find_cycle() const;
  std::string name(LinkId link) const;

  Engine& engine_;
  const PacketConfig& config_;
  const Topology& topology_;
  FabricStats& stats_;
  const PacketPool& packets_;
  const Egress& egress_;
  const PfcState& pfc_;
  bool armed_ = false;
};

}  // namespace weft::packet
