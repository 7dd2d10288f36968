// SimGrid fabric: the same transfers, on the same links and paths, timed by SimGrid 3.32's CM02
// max-min model instead of ours — an independent cross-check of the `flow` fabric.
//
// Every topology node is a SimGrid host and every directed weft link one SimGrid link (SHARED:
// the two directions of a cable are separate weft links already). A transfer is a host-to-host
// SimGrid communication whose route is exactly the weft Path the Router picks for it (same links,
// same order). Configured as pure max-min (CM02, latency and bandwidth factors 1, weight-S 0, no TCP
// window bound, no cross-traffic), a transfer gets its max-min share of every link until its last
// byte is sent (SimGrid's sharing, not ours), and arrives one path latency later. SimGrid's links
// carry no latency: CM02 would charge it before the bytes, so a chain of k transfers on one queue
// pair would take (k-1) path latencies more than on a real link, whose next message follows the
// previous one's last byte, not its arrival (and more than `flow`, which models that).
//
// Queue pairs: the transfers one sender issues with the same entropy enter SimGrid one after the
// other, in order, as in the other fabrics; the next one starts when the previous one's last byte
// left. A sender's rate limit (Transfer::max_rate) is a FATPIPE link on the route, one per distinct
// limit (SimGrid 3.32 drops Comm::set_rate for host-to-host comms). Transfers between GPUs on
// NVSwitches are striped over every NVLink path, and groups (NVLS, SHARP) over their reducing
// switches, as in `flow`.
//
// SimGrid keeps its own clock (double seconds): run() hands the simulation to SimGrid and runs the
// weft engine inside it, from SimGrid kernel timers set at the engine's next event time and from
// SimGrid's completion signal, so that both clocks advance together (weft time = SimGrid time
// rounded to the nearest picosecond; exact to well below 1 ps for simulated times under ~100 s).
//
// SimGrid's engine is a process-wide singleton that cannot be created twice: one SimGridFabric per
// process. A second one throws ModelError.
#pragma once

#include <memory>

#include "sim/fabric.h"
#include "topologies/routing.h"

namespace weft {

class SimGridFabric final : public Fabric {
 public:
  // Builds the SimGrid platform from router.topology(). Throws ModelError when a SimGrid fabric was
  // already created in this process, or a link has no bandwidth.
  SimGridFabric(Engine& engine, Router& router, Recorder& recorder);
  ~SimGridFabric() override;
  SimGridFabric(const SimGridFabric&) = delete;
  SimGridFabric& operator=(const SimGridFabric&) = delete;

  std::string_view name() const override { return "simgrid"; }
  TransferId start(const Transfer& transfer, OnTransferDone on_done) override;
  TransferId start_group(const GroupTransfer& group, OnTransferDone on_done) override;
  FabricStats stats() const override;
  // Runs SimGrid and `engine` (the engine given to the constructor) together until neither has
  // anything left to do.
  void run(Engine& engine) override;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// True once a SimGridFabric was created in this process: a second one would throw (tests skip).
bool simgrid_fabric_used();

}  // namespace weft
