#include "scenarios/training_reader.h"

#include <fmt/format.h>
#include <filesystem>

#include "scenarios/compute_profile_file.h"
#include "scenarios/network_calibration_file.h"
#include "scenarios/scenario.h"
#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"
#include "topologies/node_checks.h"

namespace weft {
namespace {

uint32_t u32(const YamlMap& m, const std::string& key, uint64_t fallback, uint64_t most = 1u << 20) {
  const uint64_t v = m.unsigned_integer_or(key, fallback);
  if (v > most) throw m.error(key, fmt::format("expected at most {}, got {}", most, v));
  return static_cast<uint32_t>(v);
}

ModelConfig read_model(const YamlMap& w) {
  if (!w.is_map("model")) return at(w.location("model"), [&] { return model(w.string("model")); });
  YamlMap m = w.map("model");
  ModelConfig c = m.has("name") ? at(m.location("name"), [&] { return model(m.string("name")); }) : ModelConfig{};
  if (!m.has("name")) c.name = "custom";
  c.name = m.string_or("label", c.name);
  c.layers = u32(m, "layers", c.layers);
  c.hidden = u32(m, "hidden", c.hidden);
  c.heads = u32(m, "heads", c.heads);
  c.kv_heads = u32(m, "kv_heads", c.kv_heads == 0 ? c.heads : c.kv_heads);
  c.head_dim = u32(m, "head_dim", c.head_dim);
  c.ffn = u32(m, "ffn", c.ffn);
  c.vocab = u32(m, "vocab", c.vocab);
  c.experts = u32(m, "experts", c.experts);
  c.top_k = u32(m, "top_k", c.top_k);
  c.max_seq = u32(m, "max_seq", c.max_seq, 1u << 24);
  if (m.has("gated_mlp")) c.gated_mlp = m.boolean("gated_mlp");
  if (m.has("tied_embeddings")) c.tied_embeddings = m.boolean("tied_embeddings");
  m.reject_unknown_keys();
  at(m.location(), [&] {
    check(c);
    return 0;
  });
  return c;
}

void read_parallel(const YamlMap& w, TrainingSpec& s, uint32_t gpus) {
  if (!w.has("parallel")) {
    s.parallel.dp = gpus;
    return;
  }
  YamlMap p = w.map("parallel");
  s.parallel.tp = u32(p, "tp", 1);
  s.parallel.pp = u32(p, "pp", 1);
  s.parallel.cp = u32(p, "cp", 1);
  s.parallel.ep = u32(p, "ep", 1);
  const uint32_t model_parallel = s.parallel.tp * s.parallel.pp * s.parallel.cp;
  if (model_parallel == 0 || gpus % model_parallel != 0) {
    throw ConfigError(p.location(p.has("tp") ? "tp" : ""), "parallel",
                      fmt::format("tp·pp·cp = {} does not divide the system's {} GPUs", model_parallel, gpus));
  }
  s.parallel.dp = u32(p, "dp", gpus / model_parallel);
  const uint64_t zero = p.unsigned_integer_or("zero", 0);
  if (zero > 3) throw p.error("zero", "expected 0, 1, 2 or 3");
  s.sharding = static_cast<Sharding>(zero);
  if (p.has("fsdp") && p.boolean("fsdp")) s.sharding = Sharding::zero3;  // FULL_SHARD
  if (p.has("sequence_parallel")) s.sequence_parallel = p.boolean("sequence_parallel");
  if (p.has("schedule"))
    s.pipeline = at(p.location("schedule"), [&] { return parse_pipeline_kind(p.string("schedule")); });
  s.virtual_stages = u32(p, "virtual_stages", 1, 1024);
  if (s.virtual_stages > 1 && !p.has("schedule")) s.pipeline = PipelineKind::interleaved;
  if (p.has("recompute")) s.recompute = p.boolean("recompute");
  s.order = p.string_or("order", s.order);
  at(p.location("order"), [&] { return make_layout(s.parallel, s.order); });
  p.reject_unknown_keys();
}

void read_batch(const YamlMap& w, TrainingSpec& s) {
  YamlMap b = w.map("batch");
  s.global_batch = u32(b, "global", 0, 1u << 30);
  s.micro_batch = u32(b, "micro", 1, 1u << 20);
  b.reject_unknown_keys();
}

// A relative path is relative to the scenario file.
std::filesystem::path beside_scenario(const YamlMap& w, const std::string& key) {
  std::filesystem::path path = w.string(key);
  if (path.is_relative()) path = std::filesystem::path(w.source()).parent_path() / path;
  return path;
}

// `calibration:`: weft calibrate writes PROFILE.yaml (compute) and PROFILE.network.yaml (network);
// either may be named. Sets the compute profile and the network fits it finds.
void read_calibration(const YamlMap& w, TrainingWorkload& t) {
  const std::filesystem::path path = beside_scenario(w, "calibration");
  const SourceLocation where = w.location("calibration");
  if (!std::filesystem::exists(path)) throw ConfigError(where, "calibration", fmt::format("no file {}", path.string()));
  const bool network_file = YamlMap::load_file(path.string()).string_or("format", "") == "weft-network-profile";
  std::filesystem::path network = path;
  if (!network_file) {
    t.profile = at(where, [&] { return load_compute_profile(path.string()); });
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

}  // namespace

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
  read_parallel(w, t.spec, system.ranks);
  read_batch(w, t.spec);
  t.spec.seq_len = u32(w, "seq_len", t.spec.model.max_seq, 1u << 24);
  if (w.has("precision"))
    t.spec.precision = at(w.location("precision"), [&] { return parse_precision(w.string("precision")); });
  t.spec.bucket = w.bytes_or("bucket", t.spec.bucket);
  t.spec.grad_bytes = u32(w, "grad_bytes", t.spec.grad_bytes, 8);
  if (w.has("capacity_factor")) t.spec.capacity_factor = w.real("capacity_factor");
  if (w.has("causal_skip")) t.spec.causal_skip = w.boolean("causal_skip");
  if (w.has("flash_attention")) t.spec.flash_attention = w.boolean("flash_attention");
  t.timing = read_timing(w);
  if (w.has("tokens")) {
    t.token_budget = w.real("tokens");
    if (!(*t.token_budget > 0)) throw w.error("tokens", "expected a positive number");
  }
  t.profile = default_compute_profile();
  if (w.has("profile")) {
    const std::filesystem::path path = beside_scenario(w, "profile");
    t.profile = at(w.location("profile"), [&] { return load_compute_profile(path.string()); });
  }
  if (w.has("calibration")) read_calibration(w, t);
  const NodeSpec node = node_spec::resolved(system.cluster.node);
  t.gpu = std::string(node_spec::gpu_of(node).name);
  at(t.where, [&] {
    check(t.spec, system.ranks, node_spec::gpu_of(node));
    return 0;
  });
  return t;
}

}  // namespace weft
