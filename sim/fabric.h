// The one interface every network model implements. A Fabric moves transfers over a Topology and
// schedules their completions on the shared Engine.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/core/engine.h"
#include "sim/core/inline_function.h"
#include "sim/core/recorder.h"
#include "sim/core/units.h"

namespace weft {

using TransferId = uint64_t;

struct Transfer {
  NodeIndex src = 0;
  NodeIndex dst = 0;
  Bytes bytes;
  uint8_t priority = 0;  // traffic class / virtual lane (packet models)
  uint64_t entropy = 0;  // flow hash input for ECMP (e.g. the queue pair)
  uint64_t tag = 0;      // opaque to the fabric; handed back to the Recorder
};

// Called once, when the transfer's last byte has arrived at dst (engine time = arrival time).
using OnTransferDone = InlineFunction<void(), 24>;

struct FabricStats {
  uint64_t transfers_started = 0;
  uint64_t transfers_done = 0;
  Bytes bytes_delivered;
  uint64_t rate_solves = 0;      // flow-level: max-min recomputations (one per touched component)
  uint64_t flows_rerated = 0;    // flow-level: flows whose rate was recomputed
};

class Fabric {
 public:
  virtual ~Fabric() = default;
  virtual std::string_view name() const = 0;
  virtual TransferId start(const Transfer& transfer, OnTransferDone on_done) = 0;
  virtual FabricStats stats() const = 0;
  // Runs the simulation to its end. Fabrics with a clock of their own (SimGrid) interleave it with
  // the engine's; the others just run the engine.
  virtual void run(Engine& engine) { engine.run(); }
};

}  // namespace weft
