#include "scenarios/report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scenarios/report_serving.h"
#include "scenarios/report_training.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

using Json = nlohmann::ordered_json;  // keys in insertion order: byte-identical output run to run

Json row_json(const SweepRow& r) {
  return Json{{"size", r.size.count()},           {"count", r.count},           {"type", kElementType},
              {"time_us", r.time.microseconds()}, {"algbw_GBps", r.algbw_GBps}, {"busbw_GBps", r.busbw_GBps},
              {"transfers", r.transfers},         {"algorithm", r.algorithm}};
}

std::string table_row(const SweepRow& r) {
  return fmt::format("{:>14} {:>13} {:>6} {:>12.2f} {:>10.2f} {:>10.2f}  {}\n", r.size.count(), r.count, kElementType,
                     r.time.microseconds(), r.algbw_GBps, r.busbw_GBps, r.algorithm);
}

constexpr const char* kTableHead = "{:>14} {:>13} {:>6} {:>12} {:>10} {:>10}  {}\n";
constexpr const char* kCsvHead = "size,count,type,time_us,algbw_GBps,busbw_GBps,transfers,algorithm\n";

std::string csv_row(const SweepRow& r) {
  return fmt::format("{},{},{},{:.6f},{:.6f},{:.6f},{},{}\n", r.size.count(), r.count, kElementType,
                     r.time.microseconds(), r.algbw_GBps, r.busbw_GBps, r.transfers, r.algorithm);
}

// A catalogue system by its preset name, else the simple topology's name.
std::string system_label(const SystemSpec& s) { return s.preset.empty() ? s.topology : s.preset; }

Json summary_json(const FctSummary& s) {
  return Json{{"flows", s.flows},
              {"bytes", s.bytes.count()},
              {"fct_min_us", s.min.microseconds()},
              {"fct_median_us", s.median.microseconds()},
              {"fct_p99_us", s.p99.microseconds()},
              {"fct_max_us", s.max.microseconds()},
              {"slowdown_mean", s.mean_slowdown},
              {"slowdown_p99", s.p99_slowdown},
              {"makespan_us", s.makespan.microseconds()},
              {"goodput_Gbps", s.goodput_Gbps}};
}

// Every counter, zero or not, so that the JSON keys do not depend on the fabric.
Json counters_json(const FabricStats& f) {
  return Json{{"transfers", f.transfers_done},
              {"bytes", f.bytes_delivered.count()},
              {"packets_sent", f.packets_sent},
              {"packet_hops", f.packet_hops},
              {"drops", f.drops},
              {"retransmits", f.retransmits},
              {"ecn_marks", f.ecn_marks},
              {"cnps", f.cnps},
              {"pause_frames", f.pause_frames},
              {"paused_time_us", f.paused_time.microseconds()},
              {"max_queue_bytes", f.max_queue.count()},
              {"deadlocked", f.deadlocked}};
}

// For the table: transfers and bytes, then only the packet counters the fabric moved.
std::string counters_table(const FabricStats& f) {
  std::string out = "# fabric counters\n";
  auto line = [&](std::string_view name, const std::string& value) {
    out += fmt::format("{:<18} {:>16}\n", name, value);
  };
  line("transfers", std::to_string(f.transfers_done));
  line("bytes", std::to_string(f.bytes_delivered.count()));
  const std::pair<std::string_view, uint64_t> counts[] = {
      {"packets_sent", f.packets_sent}, {"packet_hops", f.packet_hops},       {"drops", f.drops},
      {"retransmits", f.retransmits},   {"ecn_marks", f.ecn_marks},           {"cnps", f.cnps},
      {"pause_frames", f.pause_frames}, {"max_queue(B)", f.max_queue.count()}};
  for (const auto& [name, value] : counts) {
    if (value != 0) line(name, std::to_string(value));
  }
  if (f.paused_time > Time()) line("paused_time(us)", fmt::format("{:.3f}", f.paused_time.microseconds()));
  if (f.deadlocked) line("deadlocked", "yes");
  return out;
}

constexpr const char* kFctHead = "{:>8} {:>12} {:>12} {:>12} {:>12} {:>13} {:>12} {:>13} {:>13}\n";

// The most paused (then most queued) links, for the table; all of them go to JSON.
std::string links_table(const std::vector<LinkSummary>& links) {
  if (links.empty()) return "";
  std::string out = "# links, most paused first (top 5)\n";
  out += fmt::format("{:<28} {:>10} {:>12} {:>10} {:>8} {:>8} {:>12}\n", "link", "packets", "max_queue(B)", "ecn_marks",
                     "drops", "pauses", "paused(us)");
  for (size_t i = 0; i < std::min<size_t>(5, links.size()); ++i) {
    const LinkStats& l = links[i].stats;
    out += fmt::format("{:<28} {:>10} {:>12} {:>10} {:>8} {:>8} {:>12.3f}\n", links[i].name, l.packets,
                       l.max_queue.count(), l.ecn_marks, l.drops, l.pauses, l.paused.microseconds());
  }
  return out;
}

Json links_json(const std::vector<LinkSummary>& links) {
  Json out = Json::array();
  for (const LinkSummary& s : links) {
    const LinkStats& l = s.stats;
    out.push_back(Json{{"link", s.name},
                       {"packets", l.packets},
                       {"wire_bytes", l.wire.count()},
                       {"max_queue_bytes", l.max_queue.count()},
                       {"ecn_marks", l.ecn_marks},
                       {"drops", l.drops},
                       {"pauses", l.pauses},
                       {"paused_us", l.paused.microseconds()}});
  }
  return out;
}

std::string traffic_json(const ScenarioResult& result) {
  const Scenario& s = result.scenario;
  const TrafficResult& t = *result.traffic;
  Json j{{"scenario", s.name},
         {"source", s.source},
         {"seed", s.seed},
         {"fabric", s.fabric},
         {"system", system_label(s.system)},
         {"ranks", s.system.ranks},
         {"traffic", to_string(s.traffic()->kind)},
         {"summary", summary_json(t.summary)},
         {"counters", counters_json(t.fabric)},
         {"links", links_json(t.links)},
         {"flows", Json::array()}};
  for (const FlowOutcome& f : t.flows) {
    j["flows"].push_back(Json{{"src", f.flow.src},
                              {"dst", f.flow.dst},
                              {"bytes", f.flow.bytes.count()},
                              {"priority", f.flow.priority},
                              {"start_us", f.flow.start.microseconds()},
                              {"fct_us", f.fct.microseconds()},
                              {"ideal_us", f.ideal.microseconds()},
                              {"slowdown", f.slowdown}});
  }
  return j.dump(2) + "\n";
}

std::string traffic_csv(const TrafficResult& t) {
  std::string out = "src,dst,bytes,start_us,fct_us,ideal_us,slowdown\n";
  for (const FlowOutcome& f : t.flows) {
    out += fmt::format("{},{},{},{:.6f},{:.6f},{:.6f},{:.6f}\n", f.flow.src, f.flow.dst, f.flow.bytes.count(),
                       f.flow.start.microseconds(), f.fct.microseconds(), f.ideal.microseconds(), f.slowdown);
  }
  return out;
}

std::string traffic_table(const ScenarioResult& result) {
  const Scenario& s = result.scenario;
  const FctSummary& m = result.traffic->summary;
  std::string out = fmt::format("# {} ({}): {} x{}, {} fabric, seed {}\n", s.name, s.source, system_label(s.system),
                                s.system.ranks, s.fabric, s.seed);
  out += fmt::format("# traffic: {}, {} flows, {} bytes; flow completion time (fct) in us, slowdown = fct / ideal\n",
                     to_string(s.traffic()->kind), m.flows, m.bytes.count());
  out += fmt::format(kFctHead, "flows", "fct_min", "fct_median", "fct_p99", "fct_max", "slowdown_mean", "slowdown_p99",
                     "makespan(us)", "goodput(Gb/s)");
  out += fmt::format("{:>8} {:>12.3f} {:>12.3f} {:>12.3f} {:>12.3f} {:>13.3f} {:>12.3f} {:>13.3f} {:>13.3f}\n", m.flows,
                     m.min.microseconds(), m.median.microseconds(), m.p99.microseconds(), m.max.microseconds(),
                     m.mean_slowdown, m.p99_slowdown, m.makespan.microseconds(), m.goodput_Gbps);
  return out + counters_table(result.traffic->fabric) + links_table(result.traffic->links);
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
    Json j{{"op", h.op},
           {"topology", h.topology},
           {"ranks", h.ranks},
           {"fabric", h.fabric},
           {"link_rate", h.link_rate},
           {"latency", h.latency},
           {"channels", h.channels},
           {"rows", Json::array()}};
    for (const SweepRow& r : rows) j["rows"].push_back(row_json(r));
    return j.dump(2) + "\n";
  }
  if (format == OutputFormat::csv) {
    out = kCsvHead;
    for (const SweepRow& r : rows) out += csv_row(r);
    return out;
  }
  if (h.link_rate.empty()) {  // a catalogue system: its links are in `weft topo`
    std::string channels = h.channels == 0 ? "algorithm and channels as NCCL's tuner picks them per size"
                                           : fmt::format("{} channel(s)", h.channels);
    out += fmt::format("# weft collective: {} on {}, {} ranks ({} fabric, {})\n", h.op, h.topology, h.ranks, h.fabric,
                       channels);
  } else {
    out += fmt::format("# weft collective: {} on {} x{} ({} fabric, {} links, {} per hop, {} channel(s))\n", h.op,
                       h.topology, h.ranks, h.fabric, h.link_rate, h.latency, h.channels);
  }
  out += fmt::format(kTableHead, "size(B)", "count", "type", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "algorithm");
  for (const SweepRow& r : rows) out += table_row(r);
  return out;
}

std::string format_scenario(const ScenarioResult& result, OutputFormat format) {
  if (result.serving) {
    if (format == OutputFormat::json) return serving_json(result);
    return format == OutputFormat::csv ? serving_csv(result) : serving_table(result);
  }
  if (result.training) {
    if (format == OutputFormat::json) return training_json(result);
    return format == OutputFormat::csv ? training_csv(result) : training_table(result);
  }
  if (result.traffic) {
    if (format == OutputFormat::json) return traffic_json(result);
    return format == OutputFormat::csv ? traffic_csv(*result.traffic) : traffic_table(result);
  }
  const Scenario& s = result.scenario;
  if (format == OutputFormat::json) {
    Json j{{"scenario", s.name},
           {"source", s.source},
           {"seed", s.seed},
           {"fabric", s.fabric},
           {"topology", s.system.topology},
           {"ranks", s.system.ranks},
           {"total_time_us", result.total.microseconds()},
           {"collectives", Json::array()}};
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
    for (const CollectiveOutcome& c : result.collectives)
      out += fmt::format("{},{:.6f},", to_string(c.spec.op), c.start.microseconds()) + csv_row(c.row);
    return out;
  }
  out += fmt::format("# {} ({}): {} x{}, {} fabric, seed {}\n", s.name, s.source, s.system.topology, s.system.ranks,
                     s.fabric, s.seed);
  out += fmt::format("{:<15}", "op") +
         fmt::format(kTableHead, "size(B)", "count", "type", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "algorithm");
  for (const CollectiveOutcome& c : result.collectives)
    out += fmt::format("{:<15}", to_string(c.spec.op)) + table_row(c.row);
  out += fmt::format("total simulated time: {:.2f} us\n", result.total.microseconds());
  return out;
}

}  // namespace weft
