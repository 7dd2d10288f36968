#include "scenarios/report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/errors.h"

namespace weft {
namespace {

using Json = nlohmann::ordered_json;  // keys in insertion order: byte-identical output run to run

Json row_json(const SweepRow& r) {
  return Json{{"size", r.size.count()},         {"count", r.count},
              {"type", kElementType},           {"time_us", r.time.microseconds()},
              {"algbw_GBps", r.algbw_GBps},     {"busbw_GBps", r.busbw_GBps},
              {"transfers", r.transfers}};
}

std::string table_row(const SweepRow& r) {
  return fmt::format("{:>14} {:>13} {:>6} {:>12.2f} {:>10.2f} {:>10.2f}\n", r.size.count(), r.count, kElementType,
                     r.time.microseconds(), r.algbw_GBps, r.busbw_GBps);
}

constexpr const char* kTableHead = "{:>14} {:>13} {:>6} {:>12} {:>10} {:>10}\n";
constexpr const char* kCsvHead = "size,count,type,time_us,algbw_GBps,busbw_GBps,transfers\n";

std::string csv_row(const SweepRow& r) {
  return fmt::format("{},{},{},{:.6f},{:.6f},{:.6f},{}\n", r.size.count(), r.count, kElementType, r.time.microseconds(),
                     r.algbw_GBps, r.busbw_GBps, r.transfers);
}

}  // namespace

OutputFormat parse_output_format(std::string_view text) {
  if (text == "table") return OutputFormat::table;
  if (text == "csv") return OutputFormat::csv;
  if (text == "json") return OutputFormat::json;
  throw ConfigError(fmt::format("--format: unknown format '{}' (expected table, csv or json)", text));
}

std::string format_sweep(const SweepHeader& h, const std::vector<SweepRow>& rows, OutputFormat format) {
  std::string out;
  if (format == OutputFormat::json) {
    Json j{{"op", h.op},         {"topology", h.topology}, {"ranks", h.ranks},       {"fabric", h.fabric},
           {"link_rate", h.link_rate}, {"latency", h.latency}, {"channels", h.channels}, {"rows", Json::array()}};
    for (const SweepRow& r : rows) j["rows"].push_back(row_json(r));
    return j.dump(2) + "\n";
  }
  if (format == OutputFormat::csv) {
    out = kCsvHead;
    for (const SweepRow& r : rows) out += csv_row(r);
    return out;
  }
  if (h.link_rate.empty()) {  // a catalogue system: its links are in `weft topo`
    out += fmt::format("# weft collective: {} on {}, {} ranks ({} fabric, {} channel(s))\n", h.op, h.topology, h.ranks,
                       h.fabric, h.channels);
  } else {
    out += fmt::format("# weft collective: {} on {} x{} ({} fabric, {} links, {} per hop, {} channel(s))\n", h.op,
                       h.topology, h.ranks, h.fabric, h.link_rate, h.latency, h.channels);
  }
  out += fmt::format(kTableHead, "size(B)", "count", "type", "time(us)", "algbw(GB/s)", "busbw(GB/s)");
  for (const SweepRow& r : rows) out += table_row(r);
  return out;
}

std::string format_scenario(const ScenarioResult& result, OutputFormat format) {
  const Scenario& s = result.scenario;
  if (format == OutputFormat::json) {
    Json j{{"scenario", s.name},   {"source", s.source}, {"seed", s.seed},
           {"fabric", s.fabric},   {"topology", s.system.topology}, {"ranks", s.system.ranks},
           {"total_time_us", result.total.microseconds()}, {"collectives", Json::array()}};
    for (const CollectiveOutcome& c : result.collectives) {
      Json row = row_json(c.row);
      row["op"] = to_string(c.spec.op);
      row["start_us"] = c.start.microseconds();
      j["collectives"].push_back(row);
    }
    return j.dump(2) + "\n";
  }
  std::string out;
  if (format == OutputFormat::csv) {
    out = std::string("op,start_us,") + kCsvHead;
    for (const CollectiveOutcome& c : result.collectives) out += fmt::format("{},{:.6f},", to_string(c.spec.op), c.start.microseconds()) + csv_row(c.row);
    return out;
  }
  out += fmt::format("# {} ({}): {} x{}, {} fabric, seed {}\n", s.name, s.source, s.system.topology, s.system.ranks,
                     s.fabric, s.seed);
  out += fmt::format("{:<15}", "op") + fmt::format(kTableHead, "size(B)", "count", "type", "time(us)", "algbw(GB/s)", "busbw(GB/s)");
  for (const CollectiveOutcome& c : result.collectives) out += fmt::format("{:<15}", to_string(c.spec.op)) + table_row(c.row);
  out += fmt::format("total simulated time: {:.2f} us\n", result.total.microseconds());
  return out;
}

}  // namespace weft
