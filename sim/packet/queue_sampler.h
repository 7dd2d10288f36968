// Queue-depth samples for the Recorder: every queue_sample_interval while transfers are open, the
// bytes of each non-empty egress queue (port and priority).
#pragma once

#include "sim/packet/egress.h"
#include "sim/packet/fabric_context.h"

namespace weft::packet {

class QueueSampler {
 public:
  QueueSampler(const FabricContext& context, const Egress& egress);

  // A transfer started: sample now, then every interval, unless sampling is off (interval 0, no
  // recorder listening) or already running.
  void start();

 private:
  void sample();

  Engine& engine_;
  const PacketConfig& config_;
  Recorder& recorder_;
  const FabricStats& stats_;
  const Egress& egress_;
  bool sampling_ = false;  // a sampling event is pending
};

}  // namespace weft::packet
