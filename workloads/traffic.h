// Traffic-pattern workloads: flows without a training model, for fabric studies (incast,
// permutation, all-to-all, or an explicit list), run on any fabric and summarised by flow
// completion time (FCT) and slowdown against the flow's ideal time alone on its path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/errors.h"
#include "sim/fabric.h"
#include "sim/fabric_registry.h"
#include "sim/simulation.h"
#include "topologies/topology.h"

namespace weft {

enum class TrafficKind : uint8_t { incast, permutation, all_to_all, flows };
std::string_view to_string(TrafficKind kind);

// One flow between two ranks (GPU ranks, as in collectives).
struct FlowSpec {
  uint32_t src = 0;
  uint32_t dst = 0;
  Bytes bytes;
  Time start;
  uint8_t priority = 0;  // traffic class 0..7
};

// `workload: {traffic: KIND, ...}` (scenarios/traffic_reader.h reads it); make_traffic() expands it
// to flows.
struct TrafficSpec {
  TrafficKind kind = TrafficKind::incast;
  std::vector<uint32_t> senders;  // incast, in start order
  uint32_t receiver = 0;          // incast
  Time stagger;                   // incast: between consecutive senders' starts
  Bytes bytes;                    // per flow (incast, permutation, all_to_all: per ordered pair)
  Time start;                     // generated forms: when the (first) flows start
  uint8_t priority = 0;           // generated forms
  std::optional<uint64_t> seed;   // permutation; unset = the scenario's seed
  std::vector<FlowSpec> flows;    // the `flows` form
  SourceLocation where;           // of `traffic:`
};

// Expands a spec to flows; a permutation draws from Rng(spec.seed or `seed`, "traffic.permutation").
std::vector<FlowSpec> make_traffic(const TrafficSpec& spec, uint32_t ranks, uint64_t seed);

struct FlowOutcome {
  FlowSpec flow;
  Time fct;             // start -> last byte arrived
  Time ideal;           // path latency + bytes / path bottleneck: alone on an idle fabric
  double slowdown = 0;  // fct / ideal
};

// Percentiles are nearest-rank: the p-th of n sorted values is the ceil(p * n / 100)-th (1-based),
// always one of the measured values (no interpolation).
struct FctSummary {
  uint64_t flows = 0;
  Time min, median, p99, max;  // FCT
  double mean_slowdown = 0;
  double p99_slowdown = 0;
  Bytes bytes;              // all flows together
  Time makespan;            // last completion - first start
  double goodput_Gbps = 0;  // bytes * 8 / makespan, in 1e9 bit/s
};

// One link's counters with its name ("leaf0->spine1"), for reports.
struct LinkSummary {
  std::string name;
  LinkStats stats;
};

struct TrafficResult {
  std::vector<FlowOutcome> flows;  // in the order given
  FctSummary summary;
  FabricStats fabric;
  std::vector<LinkSummary> links;  // links that carried packets (packet fabric), most paused first
  uint64_t events = 0;             // engine events processed
};

// Runs every flow as one Transfer (entropy = its index: each flow is its own queue pair) in a
// Simulation of `topology`; throws ModelError when a flow never completes (e.g. a PFC deadlock).
TrafficResult run_traffic(const std::vector<FlowSpec>& flows, const Topology& topology, const SimulationSetup& setup);

FctSummary summarize(const std::vector<FlowOutcome>& flows);

}  // namespace weft
