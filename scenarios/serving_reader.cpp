#include "scenarios/serving_reader.h"

#include <fmt/format.h>
#include <filesystem>

#include "scenarios/field_yaml.h"
#include "scenarios/request_trace_file.h"
#include "scenarios/scenario.h"
#include "scenarios/serving_fields.h"
#include "scenarios/training_reader.h"
#include "scenarios/yaml_reader.h"
#include "topologies/node_checks.h"
#include "workloads/serving/serving.h"

namespace weft {
namespace {

void read_length(const YamlMap& requests, const char* key, LengthSpec& length) {
  if (!requests.has(key)) return;
  const YamlMap m = requests.map(key);
  read_fields(m, length_fields(), "", length);
  m.reject_unknown_keys();
}

// `requests:`: a trace file, or the generated stream's keys (the serving table's requests.*, and
// prompt: / output: maps of length_fields()).
void read_requests(const YamlMap& s, ServingWorkload& w, uint64_t seed) {
  const YamlMap r = s.map("requests");
  if (r.has("trace")) {
    const std::filesystem::path path = beside_scenario(r, "trace");
    w.trace_file = path.string();
    for (const char* key :
         {"arrivals", "rate", "cv", "count", "duration", "prompt", "output", "prefix_tokens", "prefixes"}) {
      if (r.has(key)) throw r.error(key, "a trace gives the requests: no generated stream beside it");
    }
    w.requests = at(r.location("trace"), [&] { return load_request_trace(path.string()); });
    read_fields(r, serving_fields(), "requests.", w);  // max_concurrency
  } else {
    read_fields(r, serving_fields(), "requests.", w);
    read_length(r, "prompt", w.stream.prompt);
    read_length(r, "output", w.stream.output);
    w.requests = at(r.location(), [&] { return generate_requests(w.stream, seed); });
  }
  r.reject_unknown_keys();
}

void read_sections(const YamlMap& s, ServingWorkload& w) {
  if (s.has("disaggregated")) {
    if (s.has("parallel") && !s.map("parallel").keys().empty()) {  // parallel: {} lets a variant clear it
      throw s.error("disaggregated",
                    "give the pools here (prefill_tp, prefill_replicas, prefill_ep, prefill_pp, decode_tp, "
                    "decode_replicas, decode_ep, decode_pp) or "
                    "parallel:, not both");
    }
    w.spec.disaggregated.prefill_tp = 1;  // the section's presence disaggregates; its keys size the pools
  }
  for (const char* section : {"parallel", "disaggregated", "scheduler", "slo", "host"}) {
    if (!s.has(section)) continue;
    const YamlMap m = s.map(section);
    read_fields(m, serving_fields(), std::string(section) + ".", w);
    m.reject_unknown_keys();
  }
  read_fields(s, serving_fields(), "", w);
}

}  // namespace

ServingWorkload read_serving(const YamlMap& s, const SystemSpec& system, uint64_t seed) {
  if (system.preset.empty()) {
    throw s.error("model",
                  "a serving workload needs a catalogue system (system: {name: ...}), whose GPUs and links "
                  "the compute and collective models read");
  }
  ServingWorkload w;
  w.where = s.location();
  w.spec.model = read_model(s);
  w.profile.software = s.has("software")
                           ? at(s.location("software"), [&] { return parse_software(s.string("software")); })
                           : SoftwareStack::y2025;
  w.host = default_host_overheads(w.profile.software);  // `host:` keys go on top
  read_sections(s, w);
  read_compute_profile(s, w.profile, w.profile_file);
  if (!s.has("requests")) throw s.error("requests", "missing: a request stream or a trace");
  read_requests(s, w, seed);
  s.reject_unknown_keys();
  const catalogue::GpuSpec& gpu = node_spec::gpu_of(node_spec::resolved(system.cluster.node));
  w.gpu = std::string(gpu.name);
  at(w.where, [&] {
    check(w.spec, system.ranks, gpu);
    const uint64_t longest = longest_request(w.spec, w.requests);
    for (const ServingSpec& pool : pool_specs(w.spec)) {
      w.kv = kv_capacity(pool, gpu);  // the last pool's: disaggregated, the decode pool's
      require_room(w.kv, pool, gpu, longest);
    }
    return 0;
  });
  return w;
}

}  // namespace weft
