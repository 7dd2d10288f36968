#include "scenarios/trace_workload.h"

#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <limits>

#include "scenarios/field_yaml.h"
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

TraceFormat to_format(std::string_view /*key*/, std::string_view text) { return parse_trace_format(text); }
std::string_view format_name(TraceFormat f) { return to_string(f); }

constexpr double kMostRanks = 1u << 24;

using T = TraceWorkload;
using S = TraceSource;
constexpr std::array kFields = {
    choice<T, to_format, format_name, &T::source, &S::format>("format", "auto | chakra | chakra_json | kineto"),
    field<T, &T::source, &S::ranks>("ranks", "", "rank files of a {rank} pattern (default: those that exist)",
                                    Range{1, kMostRanks}),
    field<T, &T::source, &S::step>("step", "", "Kineto: ProfilerStep#K (default: the lowest-numbered)"),
    field<T, &T::source, &S::fill_missing_ranks>("fill_missing_ranks", "",
                                                 "ranks without a file run the nearest lower rank's program"),
    field<T, &T::scale_to>("scale_to", "", "replay a data-parallel trace on this many ranks", Range{1, kMostRanks}),
    field<T, &T::recorded_on>("recorded_on", "", "catalogue GPU it ran on: re-cost compute for the system's"),
    field<T, &T::source, &S::compute_scale>("compute_scale", "", "or multiply every compute duration by hand",
                                            Range{0, std::numeric_limits<double>::infinity()}),
};

}  // namespace

std::span<const Field<TraceWorkload>> trace_fields() { return kFields; }

TraceWorkload read_trace_workload(const YamlMap& m) {
  TraceWorkload t;
  TraceSource& s = t.source;
  const std::string files = beside(m, m.string("files"));
  (files.find("{rank}") != std::string::npos ? s.pattern : s.files.emplace_back()) = files;
  if (m.has("comm_groups")) s.comm_group_file = beside(m, m.string("comm_groups"));
  if (m.has("recorded_on") && m.has("compute_scale")) {
    throw m.error("compute_scale",
                  "give recorded_on (re-cost for the system's GPU) or compute_scale (by hand), not both");
  }
  read_fields(m, trace_fields(), "", t);
  if (!t.recorded_on.empty()) at(m.location("recorded_on"), [&] { return catalogue::gpu(t.recorded_on).name; });
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
