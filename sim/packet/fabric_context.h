// What every part of the packet fabric shares, owned by PacketFabric: the engine, the checked
// configuration, routing, the recorder, the fabric's one RNG stream (ECN marks and packet spraying
// draw from it in event order), the statistics, and the packet and flow tables. Parts copy the
// references they use, so the hot path reads them with one load.
#pragma once

#include "sim/core/engine.h"
#include "sim/core/recorder.h"
#include "sim/core/rng.h"
#include "sim/fabric.h"
#include "sim/packet/flow.h"
#include "sim/packet/packet.h"
#include "sim/packet/packet_config.h"
#include "topologies/routing.h"

namespace weft::packet {

struct FabricContext {
  Engine& engine;
  const PacketConfig& config;
  Router& router;
  Recorder& recorder;
  Rng& rng;
  FabricStats& stats;
  PacketPool& packets;
  FlowTable& flows;
  bool check;  // check invariants (a lossless drop throws InvariantError)
};

}  // namespace weft::packet
