// `weft collective` as one request, the same from the command line and from Python: the options as
// the user spelled them, checked and resolved into a sweep over a built topology. A catalogue
// system runs NCCL's pick per size; a generic topology runs ring algorithms on `channels` rings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectives/sweep.h"
#include "topologies/clusters.h"
#include "topologies/topology.h"

namespace weft {

struct CollectiveRequest {
  std::string op = "all_reduce";
  std::string min_bytes = "8";
  std::string max_bytes = "128M";
  uint64_t factor = 2;
  std::string fabric = "flow";
  uint64_t seed = 1;
  uint32_t gpus_per_thread = 1;  // nccl-tests -g: GPUs one host thread launches on
  bool pxn = false;              // NCCL's PXN (FabricOptions::pxn: off by default, see there)
  std::string routing = "ecmp";
  // A catalogue system (with nodes and KEY=VALUE sets), or else a generic topology.
  std::string system;
  int nodes = 0;  // 0 = the preset's
  std::vector<std::string> sets;
  std::string topology = "single-switch";
  uint32_t ranks = 8;
  std::string link_rate = "400Gbps";
  std::string latency = "1us";
  uint32_t channels = 0;  // 0: NCCL's tuner picks (catalogue) / one ring (generic)
  std::string chunk = "0";
  std::string algo, proto, nccl_version;  // catalogue only: NCCL_ALGO, NCCL_PROTO, the tuner's constants
  bool link_stats = false;                // keep the largest size's per-link statistics
  std::string calibration;                // PROFILE.network.yaml: measured series time their sizes
  // How errors spell an option: "--min-bytes" (command line) or "min_bytes" (Python).
  bool command_line = true;

  std::string option(std::string_view name) const;  // `name` as the user spelled it
};

struct PreparedCollective {
  SweepSpec spec;                     // spec.system is set by sweep_spec()
  std::optional<ClusterSpec> system;  // the catalogue system, when one was named
  Topology topology;

  SweepSpec sweep_spec() const;  // spec, pointing at `system`
};

// Checks every option (ConfigError naming it as the user spelled it) and builds the topology.
PreparedCollective prepare_collective(const CollectiveRequest& request);

// Sweeps the prepared collective; with request.calibration, the measured sizes take the fitted
// time (their note says "calibrated").
std::vector<SweepRow> run_collective(const CollectiveRequest& request, const PreparedCollective& prepared);

}  // namespace weft
