#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sim/core/errors.h"
#include "workloads/traces/byte_reader.h"
#include "workloads/traces/chakra_json_reader.h"
#include "workloads/traces/chakra_reader.h"
#include "workloads/traces/comm_groups.h"
#include "workloads/traces/kineto_reader.h"
#include "workloads/traces/trace.h"

namespace weft {

std::string_view to_string(TraceFormat f) {
  switch (f) {
    case TraceFormat::automatic:
      return "auto";
    case TraceFormat::chakra:
      return "chakra";
    case TraceFormat::chakra_json:
      return "chakra_json";
    case TraceFormat::kineto:
      return "kineto";
  }
  return "?";
}

TraceFormat parse_trace_format(std::string_view text) {
  if (text == "auto") return TraceFormat::automatic;
  if (text == "chakra" || text == "et") return TraceFormat::chakra;
  if (text == "chakra_json" || text == "chakra-json") return TraceFormat::chakra_json;
  if (text == "kineto" || text == "pytorch") return TraceFormat::kineto;
  throw ConfigError(fmt::format("trace format '{}': expected one of auto, chakra, chakra_json, kineto", text));
}

namespace {

// The largest rank count a pattern may ask for: more is a typo, not a trace.
constexpr uint32_t kMaxPatternRanks = 1u << 20;

std::string expand(const std::string& pattern, uint32_t rank) {
  std::string out = pattern;
  const std::string key = "{rank}";
  for (size_t at = out.find(key); at != std::string::npos; at = out.find(key, at)) {
    out.replace(at, key.size(), std::to_string(rank));
  }
  return out;
}

// By extension, then by the first bytes: '{' or '[' is JSON (feeder JSON when "workload_graph"
// appears near the start), anything else a protobuf stream.
TraceFormat detect_format(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  auto has = [&](std::string_view s) { return name.find(s) != std::string::npos; };
  if (has(".et")) return TraceFormat::chakra;
  TraceFile file(path);
  char head[4096];
  const size_t got = file.read(head, sizeof(head));
  const std::string_view text(head, got);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (text[first] != '{' && text[first] != '[')) return TraceFormat::chakra;
  return text.find("workload_graph") != std::string_view::npos ? TraceFormat::chakra_json : TraceFormat::kineto;
}

std::string workload_name(const TraceSource& source, const std::vector<std::string>& files) {
  std::string base = std::filesystem::path(source.pattern.empty() ? files.front() : source.pattern).filename().string();
  if (size_t at = base.find("{rank}"); at != std::string::npos) base = base.substr(0, at);
  if (size_t dot = base.find('.'); dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  return base;
}

}  // namespace

std::vector<std::string> trace_files(const TraceSource& source) {
  if (!source.files.empty() && !source.pattern.empty()) throw ConfigError("trace: give files or a pattern, not both");
  if (!source.files.empty()) return source.files;
  if (source.pattern.empty()) throw ConfigError("trace: no files and no pattern given");
  if (source.pattern.find("{rank}") == std::string::npos) return {source.pattern};
  std::vector<std::string> files;
  if (source.ranks) {
    if (*source.ranks == 0 || *source.ranks > kMaxPatternRanks) {
      throw ConfigError(fmt::format("trace: ranks = {} (expected 1..{})", *source.ranks, kMaxPatternRanks));
    }
    for (uint32_t r = 0; r < *source.ranks; ++r) {
      const std::string f = expand(source.pattern, r);
      if (std::filesystem::exists(f))
        files.push_back(f);
      else if (!source.fill_missing_ranks)
        throw ConfigError(fmt::format("trace: rank {} file '{}' is missing", r, f));
      else
        files.emplace_back();  // filled from another rank below
    }
    return files;
  }
  for (uint32_t r = 0; std::filesystem::exists(expand(source.pattern, r)); ++r)
    files.push_back(expand(source.pattern, r));
  if (files.empty()) throw ConfigError(fmt::format("trace: no file matches '{}' for rank 0", source.pattern));
  return files;
}

namespace {

// Missing ranks take the program of the nearest lower rank that has one (data-parallel replicas).
void fill_missing(Workload& w, const std::vector<bool>& present) {
  for (uint32_t r = 0; r < w.ranks(); ++r) {
    if (present[r]) continue;
    uint32_t from = r;
    while (from > 0 && !present[from]) --from;
    if (!present[from]) {
      for (from = r; from < w.ranks() && !present[from]; ++from) {
      }
    }
    if (from >= w.ranks()) throw ConfigError(fmt::format("workload '{}': no rank has a trace file", w.name));
    w.programs[r] = w.programs[from];
  }
}

// The process groups: the file given, or the writer's `PREFIX.comm_group.json` beside a
// `PREFIX.{rank}.et` pattern (as ASTRA-sim's generators leave them), when it exists.
std::string comm_group_file_of(const TraceSource& source) {
  if (!source.comm_group_file.empty()) return source.comm_group_file;
  const std::string suffix = ".{rank}.et";
  const std::string& p = source.pattern;
  if (p.size() <= suffix.size() || p.compare(p.size() - suffix.size(), suffix.size(), suffix) != 0) return "";
  const std::string beside = p.substr(0, p.size() - suffix.size()) + ".comm_group.json";
  return std::filesystem::exists(beside) ? beside : "";
}

void check_missing(const std::vector<bool>& present, const TraceSource& source, const std::string& name) {
  if (source.fill_missing_ranks) return;
  for (size_t r = 0; r < present.size(); ++r) {
    if (!present[r]) {
      throw ConfigError(
          fmt::format("trace '{}': no file for rank {} of {} (set fill_missing_ranks to replicate a "
                      "data-parallel rank)",
                      name, r, present.size()));
    }
  }
}

Workload read_chakra(const TraceSource& source, const std::vector<std::string>& files, TraceFormat format,
                     TraceMetadata& meta) {
  Workload w;
  w.name = workload_name(source, files);
  const auto ranks = static_cast<uint32_t>(files.size());
  TraceGraphBuilder builder(w, ranks, {source.compute_scale, source.eager_sends, source.keep_cpu_compute});
  const std::string groups = comm_group_file_of(source);
  if (!groups.empty()) {
    for (auto& [key, list] : read_comm_groups(groups)) builder.define_group(key, list, groups);
  }
  std::vector<bool> present(ranks, false);
  for (uint32_t r = 0; r < ranks; ++r) {
    if (files[r].empty()) continue;
    const ChakraFile f = format == TraceFormat::chakra ? read_chakra_file(files[r]) : read_chakra_json_file(files[r]);
    builder.add_rank(r, f.trace);
    present[r] = true;
    meta.schema = f.schema.empty() ? f.version : f.schema;
    meta.records += f.messages;
    meta.dropped_cpu_collectives += f.cpu_collectives;
  }
  check_missing(present, source, w.name);
  fill_missing(w, present);
  meta.world_size = ranks;
  return w;
}

Workload read_kineto(const TraceSource& source, const std::vector<std::string>& files, TraceMetadata& meta) {
  std::vector<KinetoRank> parsed;
  uint32_t world = static_cast<uint32_t>(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].empty()) continue;
    parsed.push_back(read_kineto_file(files[i], {source.step, source.whole_trace}));
    KinetoRank& k = parsed.back();
    if (!k.rank) k.rank = static_cast<uint32_t>(i);
    world = std::max({world, k.world_size, *k.rank + 1});
    for (const auto& [key, ranks] : k.groups) {  // a bare event list has no world size: the groups tell
      for (uint32_t r : ranks) world = std::max(world, r + 1);
    }
  }
  Workload w;
  w.name = workload_name(source, files);
  TraceGraphBuilder builder(w, world, {source.compute_scale, source.eager_sends, source.keep_cpu_compute});
  std::vector<bool> present(world, false);
  for (const KinetoRank& k : parsed) {
    for (const auto& [key, ranks] : k.groups) builder.define_group(key, ranks, k.trace.file);
  }
  for (const KinetoRank& k : parsed) {
    if (present[*k.rank])
      throw ConfigError(fmt::format("trace file '{}': rank {} appears twice", k.trace.file, *k.rank));
    present[*k.rank] = true;
    builder.add_rank(*k.rank, k.trace);
    meta.records += k.events;
    meta.backend = k.backend;
    meta.schema = k.schema;
    meta.step = k.step;
    meta.step_start = k.step_start;
    meta.step_duration = k.step_duration;
  }
  check_missing(present, source, w.name);
  fill_missing(w, present);
  meta.world_size = world;
  return w;
}

}  // namespace

Workload read_trace(const TraceSource& source, TraceMetadata* metadata) {
  TraceMetadata meta;
  meta.files = trace_files(source);
  auto first = std::find_if(meta.files.begin(), meta.files.end(), [](const std::string& f) { return !f.empty(); });
  if (first == meta.files.end()) throw ConfigError("trace: no file found");
  meta.format = source.format == TraceFormat::automatic ? detect_format(*first) : source.format;
  if (!(source.compute_scale >= 0) || source.compute_scale > 1e6) {
    throw ConfigError(fmt::format("trace: compute_scale {} (expected 0..1e6)", source.compute_scale));
  }
  Workload w = meta.format == TraceFormat::kineto ? read_kineto(source, meta.files, meta)
                                                  : read_chakra(source, meta.files, meta.format, meta);
  if (metadata != nullptr) *metadata = std::move(meta);
  return w;
}

}  // namespace weft
