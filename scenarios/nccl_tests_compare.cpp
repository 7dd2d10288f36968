#include "scenarios/nccl_tests_compare.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "collectives/host_issue.h"
#include "collectives/nccl_model.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

// The request as the log describes the run: its nodes, its test, its NCCL version when the tuner has it.
void describe_run(const NcclTestsLog& log, CollectiveRequest& r, Comparison& c) {
  if (r.system.empty()) {
    throw ConfigError("--compare needs --system: an nccl-tests log does not say which machines it ran on");
  }
  if (log.nodes > 0) {
    if (r.nodes > 0 && r.nodes != log.nodes) {
      throw ConfigError(
          fmt::format("--nodes {} contradicts {}: its ranks ran on {} host(s)", r.nodes, log.path, log.nodes));
    }
    r.nodes = log.nodes;
  }
  if (!log.op.empty()) {
    if (r.op != "all_reduce" && r.op != log.op) {
      throw ConfigError(fmt::format("--op {} contradicts {}, a {} test", r.op, log.path, log.op));
    }
    r.op = log.op;
  }
  c.op = r.op;
  if (r.gpus_per_thread != 1 && r.gpus_per_thread != static_cast<uint32_t>(log.gpus_per_thread)) {
    throw ConfigError(fmt::format("{} {} contradicts {}: its threads each drove {} GPU(s)", r.option("gpus_per_thread"),
                                  r.gpus_per_thread, log.path, log.gpus_per_thread));
  }
  r.gpus_per_thread = static_cast<uint32_t>(log.gpus_per_thread);
  if (r.nccl_version.empty() && !log.nccl_version.empty()) {
    try {
      r.nccl_version = std::string(nccl_version(log.nccl_version).name);
      if (r.nccl_version != log.nccl_version) {
        c.version_note = fmt::format("the log's NCCL {} has the same tuning.cc", log.nccl_version);
      }
    } catch (const ConfigError&) {
      c.version_note = fmt::format("the log's NCCL {} is not in the tuner: newest constants", log.nccl_version);
    }
  }
  c.version = std::string(nccl_version(r.nccl_version).name);
}

ComparedRow compare_row(const NcclTestsRow& m, const PreparedCollective& p, const SweepSpec& spec, bool in_place) {
  if (in_place && !m.in_place) {
    throw ConfigError(fmt::format("line {}: --in-place, but the row has no in-place time", m.line));
  }
  const NcclTestsTimes& t = in_place ? *m.in_place : m.out_of_place;
  ComparedRow row{m, t.time_us, t.busbw_GBps, {}, 0};
  row.predicted = measure_planned(spec.op, Bytes(m.bytes), p.topology, *p.system, spec.plan, {spec.simulation});
  charge_host_issue(row.predicted, spec.gpus_per_thread);
  row.error = t.time_us > 0 ? (row.predicted.time.microseconds() - t.time_us) / t.time_us : 0;
  return row;
}

const char* band_of(uint64_t bytes) {
  if (bytes <= uint64_t{64} * 1024) return "latency-bound (<= 64 KiB)";
  if (bytes >= (256ULL << 20)) return "bandwidth-bound (>= 256 MiB)";
  return "middle";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string band_summary(const Comparison& c) {
  std::string out;
  for (const char* band : {"latency-bound (<= 64 KiB)", "middle", "bandwidth-bound (>= 256 MiB)"}) {
    std::vector<double> signed_errors, abs_errors;
    for (const ComparedRow& r : c.rows) {
      if (r.measured_us <= 0 || band_of(r.measured.bytes) != std::string_view(band)) continue;
      signed_errors.push_back(r.error);
      abs_errors.push_back(std::fabs(r.error));
    }
    if (signed_errors.empty()) continue;
    out += fmt::format("# {}: {} rows, median error {:+.1f}%, median |error| {:.1f}%\n", band, signed_errors.size(),
                       100 * median(signed_errors), 100 * median(abs_errors));
  }
  return out;
}

std::string as_json(const Comparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ComparedRow& r : c.rows) {
    rows.push_back({{"size", r.measured.bytes},
                    {"measured_us", r.measured_us},
                    {"predicted_us", r.predicted.time.microseconds()},
                    {"error", r.error},
                    {"measured_busbw_GBps", r.measured_busbw},
                    {"predicted_busbw_GBps", r.predicted.busbw_GBps},
                    {"algorithm", r.predicted.algorithm}});
  }
  nlohmann::json j = {{"log", c.log.path},
                      {"op", c.op},
                      {"system", c.system},
                      {"nodes", c.nodes},
                      {"ranks", c.log.ranks},
                      {"nccl_version", c.version},
                      {"gpus_per_thread", c.log.gpus_per_thread},
                      {"rows", rows}};
  return j.dump(2) + "\n";
}

}  // namespace

Comparison compare_nccl_tests(const std::string& log_path, CollectiveRequest request, bool in_place) {
  Comparison c;
  c.log = read_nccl_tests_log(log_path);
  describe_run(c.log, request, c);
  request.min_bytes = request.max_bytes = "8";  // the sizes come from the log
  const PreparedCollective prepared = prepare_collective(request);
  const auto ranks = static_cast<int>(prepared.topology.gpus().size());
  if (c.log.ranks > 0 && c.log.ranks != ranks) {
    throw ConfigError(
        fmt::format("{} ran {} ranks on {} host(s); {} x{} has {} GPUs (use --set node.gpus=N for "
                    "fewer GPUs per node)",
                    log_path, c.log.ranks, c.log.nodes, request.system, prepared.system->nodes, ranks));
  }
  c.system = request.system;
  c.nodes = prepared.system->nodes;
  const SweepSpec spec = prepared.sweep_spec();
  for (const NcclTestsRow& m : c.log.rows) c.rows.push_back(compare_row(m, prepared, spec, in_place));
  return c;
}

std::string format_comparison(const Comparison& c, OutputFormat format) {
  if (format == OutputFormat::json) return as_json(c);
  const bool csv = format == OutputFormat::csv;
  std::string out;
  if (!csv) {
    out += fmt::format(
        "# weft collective --compare {}: {} on {} x{} nodes, {} ranks ({} GPU(s) per thread), NCCL {} "
        "constants{}\n",
        c.log.path, c.op, c.system, c.nodes, c.log.ranks, c.log.gpus_per_thread, c.version,
        c.version_note.empty() ? "" : " (" + c.version_note + ")");
  }
  out += csv ? "size,measured_us,predicted_us,error,measured_busbw_GBps,predicted_busbw_GBps,algorithm\n"
             : fmt::format("{:>14} {:>12} {:>12} {:>8} {:>10} {:>10}  {}\n", "size(B)", "measured_us", "predicted_us",
                           "error", "meas_busbw", "pred_busbw", "algorithm");
  for (const ComparedRow& r : c.rows) {
    const double predicted = r.predicted.time.microseconds();
    out += csv ? fmt::format("{},{},{},{},{},{},{}\n", r.measured.bytes, r.measured_us, predicted, r.error,
                             r.measured_busbw, r.predicted.busbw_GBps, r.predicted.algorithm)
               : fmt::format("{:>14} {:>12.2f} {:>12.2f} {:>+7.1f}% {:>10.2f} {:>10.2f}  {}\n", r.measured.bytes,
                             r.measured_us, predicted, 100 * r.error, r.measured_busbw, r.predicted.busbw_GBps,
                             r.predicted.algorithm);
  }
  if (!csv) out += band_summary(c);
  return out;
}

}  // namespace weft
