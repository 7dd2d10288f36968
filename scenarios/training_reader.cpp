#include "scenarios/training_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <filesystem>

#include "scenarios/compute_profile_file.h"
#include "scenarios/field_yaml.h"
#include "scenarios/network_calibration_file.h"
#include "scenarios/scenario.h"
#include "scenarios/workload_fields.h"
#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"
#include "topologies/node_checks.h"
#include "workloads/memory_model.h"

namespace weft {
namespace {

// `parallel:`; without it, pure data parallelism over the GPUs. dp defaults to what tp·pp·cp
// leave, and virtual stages imply the interleaved schedule.
void read_parallel(const YamlMap& w, TrainingWorkload& t, uint32_t gpus) {
  TrainingSpec& s = t.spec;
  if (!w.has("parallel")) {
    s.parallel.dp = gpus;
    return;
  }
  const YamlMap p = w.map("parallel");
  read_fields(p, training_fields(), "parallel.", t);
  const uint32_t model_parallel = s.parallel.tp * s.parallel.pp * s.parallel.cp;
  if (model_parallel == 0 || gpus % model_parallel != 0) {
    throw ConfigError(p.location(p.has("tp") ? "tp" : ""), "parallel",
                      fmt::format("tp·pp·cp = {} does not divide the system's {} GPUs", model_parallel, gpus));
  }
  if (!p.has("dp")) s.parallel.dp = gpus / model_parallel;
  if (s.virtual_stages > 1 && !p.has("schedule")) s.pipeline = PipelineKind::interleaved;
  at(p.location("order"), [&] { return make_layout(s.parallel, s.order); });
  p.reject_unknown_keys();
}

// `calibration:`: weft calibrate writes PROFILE.yaml (compute) and PROFILE.network.yaml (network);
// either may be named. Sets the compute profile and the network fits it finds.
void read_calibration(const YamlMap& w, TrainingWorkload& t) {
  const std::filesystem::path path = beside_scenario(w, "calibration");
  t.calibration_file = path.string();
  const SourceLocation where = w.location("calibration");
  if (!std::filesystem::exists(path)) throw ConfigError(where, "calibration", fmt::format("no file {}", path.string()));
  const bool network_file = YamlMap::load_file(path.string()).string_or("format", "") == "weft-network-profile";
  std::filesystem::path network = path;
  if (!network_file) {
    t.profile = at(where, [&] { return load_compute_profile(path.string(), t.profile.software); });
    network = path.parent_path() / (path.stem().string() + ".network.yaml");
  }
  if (std::filesystem::exists(network)) {
    t.network = std::make_shared<const NetworkCalibration>(
        at(where, [&] { return load_network_calibration(network.string()); }));
  }
}

CollectiveTiming read_timing(const YamlMap& w) {
  if (!w.has("collective_timing")) return CollectiveTiming::shared;
  return at(w.location("collective_timing"), [&] { return parse_collective_timing(w.string("collective_timing")); });
}

std::string gpu_of(const SystemSpec& system) {
  return std::string(node_spec::gpu_of(node_spec::resolved(system.cluster.node)).name);
}

TrainingWorkload read_traced(const YamlMap& w, const SystemSpec& system) {
  if (system.preset.empty()) {
    throw w.error("trace", "replaying a trace needs a catalogue system (system: {name: ...})");
  }
  TrainingWorkload t;
  t.where = w.location();
  t.trace = read_trace_workload(w.map("trace"));
  t.spec.model.name = t.trace->label;
  t.timing = read_timing(w);
  t.profile = default_compute_profile();
  if (w.has("calibration")) read_calibration(w, t);
  t.gpu = gpu_of(system);
  return t;
}

// A plan that does not fit in the GPU's memory is refused at `workload:` with the need, the capacity
// and the changes that would fit, unless `allow_oom: true` (the report then says it does not fit).
void check_memory(const TrainingWorkload& t, const catalogue::GpuSpec& gpu) {
  const MemoryBreakdown m = training_memory(t.spec, gpu);
  if (m.fits() || t.allow_oom) return;
  const std::vector<std::string> fixes = changes_that_fit(t.spec, gpu);
  throw ConfigError(
      t.where, "workload",
      fmt::format("the plan does not fit in {} memory: it needs {} per GPU; {} (or allow_oom: true "
                  "to simulate it anyway)",
                  gpu.name, describe(m),
                  fixes.empty() ? std::string("no change of zero, recompute, micro_batch, tp or pp, alone "
                                              "or two together, fits: more GPUs or a GPU with more memory")
                                : fmt::format("changes that fit: {}", fmt::join(fixes, "; "))));
}

}  // namespace

std::filesystem::path beside_scenario(const YamlMap& w, const std::string& key) {
  std::filesystem::path path = w.string(key);
  if (path.is_relative()) path = std::filesystem::path(w.source()).parent_path() / path;
  return path;
}

void read_compute_profile(const YamlMap& w, ComputeProfile& profile, std::string& file) {
  profile = default_compute_profile(profile.software);
  if (!w.has("profile")) return;
  const std::filesystem::path path = beside_scenario(w, "profile");
  file = path.string();
  profile = at(w.location("profile"), [&] { return load_compute_profile(path.string(), profile.software); });
}

ModelConfig read_model(const YamlMap& w) {
  if (!w.is_map("model")) return at(w.location("model"), [&] { return model(w.string("model")); });
  TrainingWorkload t;
  ModelConfig& c = t.spec.model;
  const YamlMap m = w.map("model");
  c = m.has("name") ? at(m.location("name"), [&] { return model(m.string("name")); }) : ModelConfig{};
  if (!m.has("name")) c.name = "custom";
  read_fields(m, training_fields(), "model.", t);
  if (!m.has("kv_heads") && c.kv_heads == 0) c.kv_heads = c.heads;  // MHA unless told
  m.reject_unknown_keys();
  at(m.location(), [&] {
    check(c);
    return 0;
  });
  return c;
}

TrainingWorkload read_training(const YamlMap& w, const SystemSpec& system) {
  if (w.has("trace")) return read_traced(w, system);
  if (system.preset.empty()) {
    throw w.error("model",
                  "a training workload needs a catalogue system (system: {name: ...}), whose GPUs and links the "
                  "compute and collective models read");
  }
  TrainingWorkload t;
  t.where = w.location();
  t.spec.model = read_model(w);
  read_parallel(w, t, system.ranks);
  const YamlMap batch = w.map("batch");
  read_fields(batch, training_fields(), "batch.", t);
  batch.reject_unknown_keys();
  t.spec.seq_len = t.spec.model.max_seq;
  read_fields(w, training_fields(), "", t);
  if (t.token_budget && !(*t.token_budget > 0)) throw w.error("tokens", "expected a positive number");
  read_compute_profile(w, t.profile, t.profile_file);  // `software:` read with the fields above
  if (w.has("calibration")) read_calibration(w, t);
  const NodeSpec node = node_spec::resolved(system.cluster.node);
  t.gpu = std::string(node_spec::gpu_of(node).name);
  at(t.where, [&] {
    check(t.spec, system.ranks, node_spec::gpu_of(node));
    return 0;
  });
  check_memory(t, node_spec::gpu_of(node));
  return t;
}

}  // namespace weft
