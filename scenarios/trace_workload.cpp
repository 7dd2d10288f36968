#include "scenarios/trace_workload.h"

#include <fmt/format.h>

#include <filesystem>

#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/compute_model.h"

namespace weft {
namespace {

// Relative trace paths are relative to the scenario file, like `profile:`.
std::string beside(const YamlMap& m, const std::string& path) {
  std::filesystem::path p = path;
  if (p.is_relative() && !m.source().empty()) p = std::filesystem::path(m.source()).parent_path() / p;
  return p.string();
}

uint32_t positive(const YamlMap& m, const std::string& key) {
  const uint64_t v = m.unsigned_integer(key);
  if (v == 0 || v > (1u << 24)) throw m.error(key, fmt::format("expected 1 to {}", 1u << 24));
  return static_cast<uint32_t>(v);
}

}  // namespace

TraceWorkload read_trace_workload(const YamlMap& m) {
  TraceWorkload t;
  TraceSource& s = t.source;
  if (m.has("format")) s.format = at(m.location("format"), [&] { return parse_trace_format(m.string("format")); });
  const std::string files = beside(m, m.string("files"));
  (files.find("{rank}") != std::string::npos ? s.pattern : s.files.emplace_back()) = files;
  if (m.has("ranks")) s.ranks = positive(m, "ranks");
  if (m.has("step")) s.step = static_cast<uint32_t>(m.unsigned_integer("step"));
  if (m.has("comm_groups")) s.comm_group_file = beside(m, m.string("comm_groups"));
  if (m.has("fill_missing_ranks")) s.fill_missing_ranks = m.boolean("fill_missing_ranks");
  if (m.has("scale_to")) t.scale_to = positive(m, "scale_to");
  if (m.has("recorded_on") && m.has("compute_scale")) {
    throw m.error("compute_scale",
                  "give recorded_on (re-cost for the system's GPU) or compute_scale (by hand), not both");
  }
  if (m.has("recorded_on")) {
    t.recorded_on = m.string("recorded_on");
    at(m.location("recorded_on"), [&] { return catalogue::gpu(t.recorded_on).name; });
  }
  if (m.has("compute_scale")) {
    s.compute_scale = m.real("compute_scale");
    if (!(s.compute_scale >= 0)) {
      throw m.error("compute_scale", "expected a number >= 0");
    }
  }
  m.reject_unknown_keys();
  const std::vector<std::string> paths = at(m.location("files"), [&] { return trace_files(s); });
  t.label =
      fmt::format("{} trace {} ({} rank file{})", s.format == TraceFormat::automatic ? "a" : to_string(s.format),
                  std::filesystem::path(paths.front()).filename().string(), paths.size(), paths.size() == 1 ? "" : "s");
  return t;
}

Workload load_trace_workload(const TraceWorkload& trace, const std::string& gpu, uint32_t gpus) {
  TraceSource source = trace.source;
  if (!trace.recorded_on.empty()) {
    // Kernels have no FLOP counts in a trace, so each one scales by the ratio of the two GPUs' dense
    // bf16 tensor peaks: right for GEMM-bound steps, optimistic for memory-bound kernels.
    source.compute_scale = peak_flops(catalogue::gpu(trace.recorded_on), Precision::bf16) /
                           peak_flops(catalogue::gpu(gpu), Precision::bf16);
  }
  Workload w = read_trace(source);
  if (trace.scale_to > 0 && trace.scale_to != w.ranks()) w = scale_data_parallel(w, trace.scale_to);
  if (w.ranks() > gpus) {
    throw ConfigError(
        fmt::format("{}: {} ranks, but the system has {} GPUs (add nodes, or scale_to: a data-parallel "
                    "trace to at most {})",
                    trace.label, w.ranks(), gpus, gpus));
  }
  validate(w);
  return w;
}

}  // namespace weft
