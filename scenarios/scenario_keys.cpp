#include "scenarios/scenario_keys.h"

#include <span>

#include "cost/assumption_fields.h"
#include "scenarios/scenario_fields.h"
#include "scenarios/serving_fields.h"
#include "scenarios/trace_workload.h"
#include "scenarios/workload_fields.h"
#include "sim/packet/packet_fields.h"
#include "topologies/systems.h"

namespace weft {
namespace {

// A section of `fields` under `prefix`; `defaults` shows each key's value when it is absent (none
// when that depends on the system or a catalogue entry).
template <class S>
KeySection section(std::string name, std::string what, std::string_view prefix, std::span<const Field<S>> fields,
                   const S* defaults) {
  KeySection out{std::move(name), std::move(what), {}, markdown_table(fields)};
  for (const Field<S>& f : fields) {
    std::string doc(f.doc);
    if (f.range.bounded()) doc += " (" + describe(f.range) + ")";
    out.rows.push_back({std::string(prefix) + std::string(f.key), std::string(f.unit),
                        defaults != nullptr ? f.show(*defaults) : std::string(), std::move(doc)});
  }
  return out;
}

// The keys without a default say so in the default column.
void mark_required(KeySection& section, std::span<const char* const> keys) {
  for (KeyRow& row : section.rows) {
    for (const char* key : keys) {
      if (row.key.ends_with(std::string(".") + key)) {
        row.fallback = "(required)";
      }
    }
  }
}

}  // namespace

namespace {

// The top level, the system's forms and the fabric's keys.
void add_frame_sections(std::vector<KeySection>& out) {
  Scenario top;
  top.name = "unnamed";  // as the reader starts it
  const SystemSpec custom;
  const FabricOptions router;
  const packet::PacketConfig packet = packet::packet_profile(packet::default_packet_profile());
  out.push_back(section<Scenario>("scenario",
                                  "the top level; also fabric:, system:, workload:, compare:, cost: and plan: "
                                  "(sections below)",
                                  "", scenario_top_fields(), &top));
  out.push_back(section<ClusterSpec>("system",
                                     "a catalogue system's fields (system: {name: NAME, node: {...}, "
                                     "network: {...}}); values: weft systems --fields --system NAME",
                                     "system.", system_fields(), nullptr));
  out.push_back(section<SystemSpec>("system.custom",
                                    "a system built from one link kind (system: {topology: ..., ranks: N, link: "
                                    "{...}}), instead of name:",
                                    "system.", custom_system_fields(), &custom));
  mark_required(out.back(), kCustomSystemRequired);
  out.push_back(section<FabricOptions>("fabric.router",
                                       "the router's keys, for every model: fabric: {model: NAME, routing: ..., "
                                       "pxn: ...}",
                                       "fabric.", router_fields(), &router));
  out.push_back(
      section<packet::PacketConfig>("fabric",
                                    fmt::format("fabric: {{model: packet, profile: NAME, ...}}; defaults of profile {}",
                                                packet::default_packet_profile()),
                                    "fabric.", packet::packet_fields(), &packet));
}

// The forms of `workload:`.
void add_workload_sections(std::vector<KeySection>& out) {
  const CollectiveSpec collective;
  const TrafficSpec traffic;
  const FlowSpec flow;
  const TrainingWorkload training;
  const TraceWorkload trace;
  out.push_back(section<CollectiveSpec>("workload.collectives", "each item of workload: {collectives: [...]}",
                                        "workload.collectives[].", collective_fields(), &collective));
  mark_required(out.back(), kCollectiveRequired);
  out.push_back(section<TrafficSpec>("workload.traffic",
                                     "workload: {traffic: KIND, ...}; incast adds receiver (default 0) and senders "
                                     "(a count or a list of ranks)",
                                     "workload.", traffic_fields(), &traffic));
  mark_required(out.back(), kTrafficRequired);
  out.push_back(section<FlowSpec>("workload.flows", "each item of workload: {traffic: flows, flows: [...]}",
                                  "workload.flows[].", flow_fields(), &flow));
  mark_required(out.back(), kFlowRequired);
  out.push_back(section<TrainingWorkload>("workload.training",
                                          "workload: {model: NAME or {name: NAME, ...}, parallel: {...}, batch: "
                                          "{...}, ...}; also profile: and calibration: (files)",
                                          "workload.", training_fields(), &training));
  for (KeyRow& row : out.back().rows) {  // the model's come from the catalogue, dp and seq_len from others
    if (row.key.starts_with("workload.model.") || row.key == "workload.parallel.dp" || row.key == "workload.seq_len") {
      row.fallback.clear();
    }
  }
  out.push_back(section<TraceWorkload>("workload.trace",
                                       "workload: {trace: {files: PATH or PATTERN with {rank}, comm_groups: PATH, "
                                       "...}}; paths relative to the scenario",
                                       "workload.trace.", trace_fields(), &trace));
  for (KeyRow& row : out.back().rows) {
    if (row.key == "workload.trace.scale_to") row.fallback = "-";  // 0: the recorded rank count
  }
}

// The serving form: its own keys, and the lengths of requests.prompt and requests.output.
void add_serving_sections(std::vector<KeySection>& out) {
  const ServingWorkload serving;
  const LengthSpec length;
  out.push_back(section<ServingWorkload>("workload.serving",
                                         "workload: {serving: {model: NAME or {...}, parallel: {...}, requests: "
                                         "{...}, scheduler: {...}, slo: {...}, host: {...}}}; also profile: (a file) "
                                         "and requests.trace: (a CSV of arrival_s, prompt_tokens, output_tokens)",
                                         "workload.serving.", serving_fields(), &serving));
  out.push_back(section<LengthSpec>("workload.serving.requests.prompt",
                                    "requests.prompt and requests.output: a length distribution (output defaults to "
                                    "fixed 128, prompt to fixed 512)",
                                    "workload.serving.requests.prompt.", length_fields(), &length));
}

}  // namespace

std::vector<KeySection> scenario_keys() {
  std::vector<KeySection> out;
  add_frame_sections(out);
  add_workload_sections(out);
  add_serving_sections(out);
  const cost::CostAssumptions assumptions;
  out.push_back(section<cost::CostAssumptions>("cost", "cost: {...}; also prices: {CATEGORY: {ITEM: USD or {...}}}",
                                               "cost.", cost::assumption_fields(), &assumptions));
  return out;
}

}  // namespace weft
