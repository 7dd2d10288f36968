#include "scenarios/chrome_trace.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "sim/core/errors.h"

namespace weft {
namespace {

// Trace timestamps are microseconds; printed from integer picoseconds with all six decimals, so the
// text is exact and the same on every machine (no floating point).
std::string micros(Time t) {
  const int64_t ps = t.ps();
  const uint64_t magnitude = ps < 0 ? 0 - static_cast<uint64_t>(ps) : static_cast<uint64_t>(ps);
  return fmt::format("{}{}.{:06}", ps < 0 ? "-" : "", magnitude / 1'000'000, magnitude % 1'000'000);
}

std::string json_quoted(std::string_view text) { return nlohmann::json(std::string(text)).dump(); }

bool is_comm(const Op& op) { return op.kind != OpKind::compute; }

// Thread names of one rank's streams: "compute" for stream 0; a communication stream is named by the
// group of its ops, with "send"/"recv" when it only sends or only receives (PP and CP use one stream
// each way), and its number when that still leaves two streams with one name.
std::map<uint8_t, std::string> stream_names(const Program& program) {
  struct Seen {
    CommGroup group = CommGroup::none;
    bool sends = true, recvs = true;
  };
  std::map<uint8_t, Seen> seen;
  for (const Op& op : program.ops) {
    Seen& s = seen[op.stream];
    if (s.group == CommGroup::none) s.group = op.group;
    s.sends = s.sends && op.kind == OpKind::send;
    s.recvs = s.recvs && op.kind == OpKind::recv;
  }
  std::map<uint8_t, std::string> names;
  std::map<std::string, int> uses;
  for (const auto& [stream, s] : seen) {
    std::string name = stream == kComputeStream ? "compute" : std::string(to_string(s.group));
    if (stream != kComputeStream && s.sends) name += " send";
    if (stream != kComputeStream && s.recvs) name += " recv";
    names[stream] = name;
    ++uses[name];
  }
  for (auto& [stream, name] : names) {
    if (uses[name] > 1) name += fmt::format(" (stream {})", stream);
  }
  return names;
}

// Events one rank adds: its op events and up to two counter samples per communication op.
uint64_t events_of(const Program& program) {
  uint64_t comm = 0;
  for (const Op& op : program.ops) comm += is_comm(op) ? 1 : 0;
  return program.ops.size() + 2 * comm;
}

uint32_t ranks_to_show(const Workload& workload, const ChromeTraceOptions& options) {
  uint32_t shown = 0;
  uint64_t events = 0;
  while (shown < workload.ranks() && shown < std::max<uint32_t>(options.max_ranks, 1)) {
    events += events_of(workload.programs[shown]);
    if (shown > 0 && events > options.max_events) break;
    ++shown;
  }
  return shown;
}

void add_rank_metadata(std::vector<std::string>& out, uint32_t rank, const std::map<uint8_t, std::string>& streams) {
  out.push_back(fmt::format(R"({{"ph":"M","name":"process_name","pid":{0},"args":{{"name":"rank {0}"}}}})", rank));
  out.push_back(fmt::format(R"({{"ph":"M","name":"process_sort_index","pid":{0},"args":{{"sort_index":{0}}}}})", rank));
  for (const auto& [stream, name] : streams) {
    out.push_back(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})", rank,
                              stream, json_quoted(name)));
    out.push_back(fmt::format(R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
                              rank, stream, stream));
  }
}

// What the op did, for its args: the collective, or the peer of a send/recv.
std::string comm_args(const Op& op, const OpTiming& t) {
  std::string what = op.kind == OpKind::collective ? fmt::format(R"("op":"{}")", to_string(op.collective))
                     : op.kind == OpKind::send     ? fmt::format(R"("op":"send","peer":{})", op.peer)
                                                   : fmt::format(R"("op":"recv","peer":{})", op.peer);
  // waited_us: issued -> started, the time this rank waited for its partners.
  return fmt::format(R"({},"bytes":{},"group":"{}","waited_us":{})", what, op.bytes.count(), to_string(op.group),
                     micros(t.started - t.issued));
}

void add_op_events(std::vector<std::string>& out, uint32_t rank, const Program& program,
                   const std::vector<OpTiming>& timings, const std::vector<std::string>& labels) {
  for (size_t i = 0; i < program.ops.size(); ++i) {
    const Op& op = program.ops[i];
    const OpTiming& t = timings[i];
    std::string args = fmt::format(R"("phase":"{}")", to_string(op.phase));
    if (is_comm(op)) args.append(",").append(comm_args(op, t));
    if (!is_comm(op) && op.flops > 0) args += fmt::format(R"(,"flops":{})", op.flops);
    const std::string& name = op.label < labels.size() ? labels[op.label] : json_quoted("op");
    out.push_back(fmt::format(R"({{"ph":"X","name":{},"cat":"{}","pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})",
                              name, is_comm(op) ? "comm" : "compute", rank, op.stream, micros(t.started),
                              micros(t.ended - t.started), args));
  }
}

// The rank's communication ops running at each instant, by group: one sample per instant at which
// a count changes (all starts and ends of that instant applied together).
void add_counter_events(std::vector<std::string>& out, uint32_t rank, const Program& program,
                        const std::vector<OpTiming>& timings) {
  std::map<int64_t, std::array<int64_t, kCommGroups>> deltas;  // ps -> change per group
  std::array<bool, kCommGroups> present{};
  for (size_t i = 0; i < program.ops.size(); ++i) {
    const Op& op = program.ops[i];
    if (!is_comm(op)) continue;
    const auto g = static_cast<size_t>(op.group);
    present[g] = true;
    deltas[timings[i].started.ps()][g] += 1;
    deltas[timings[i].ended.ps()][g] -= 1;
  }
  std::array<int64_t, kCommGroups> running{};
  for (const auto& [ps, delta] : deltas) {
    if (delta == std::array<int64_t, kCommGroups>{}) continue;  // one op ended as the next began
    std::string args;
    for (size_t g = 0; g < kCommGroups; ++g) {
      running[g] += delta[g];
      if (!present[g]) continue;
      args += fmt::format(R"({}"{}":{})", args.empty() ? "" : ",", to_string(static_cast<CommGroup>(g)), running[g]);
    }
    out.push_back(fmt::format(R"({{"ph":"C","name":"comm ops in flight","pid":{},"ts":{},"args":{{{}}}}})", rank,
                              micros(Time::ps(ps)), args));
  }
}

// One process ("links", after the ranks) with a counter track per recorded link: its utilisation in
// percent per bin, one sample where the value changes.
void add_link_events(std::vector<std::string>& out, uint32_t pid, const BusiestLinks& links) {
  if (links.links.empty()) return;
  out.push_back(
      fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"links, busiest first"}}}})", pid));
  out.push_back(fmt::format(R"({{"ph":"M","name":"process_sort_index","pid":{0},"args":{{"sort_index":{0}}}}})", pid));
  for (const LinkSeries& link : links.links) {
    const std::string name = json_quoted(link.name);
    double last = -1;
    for (size_t i = 0; i <= link.utilisation.size(); ++i) {
      // A closing zero after the last bin, so the track ends at the link's last traffic.
      const double percent = i < link.utilisation.size() ? std::round(link.utilisation[i] * 1000) / 10 : 0.0;
      if (percent == last) continue;
      last = percent;
      const Time at = Time::ps(links.bin.ps() * static_cast<int64_t>(i));
      out.push_back(fmt::format(R"({{"ph":"C","name":{},"pid":{},"ts":{},"args":{{"util %":{}}}}})", name, pid,
                                micros(at), percent));
    }
  }
}

nlohmann::json other_data(const Workload& workload, const ReplayResult& replay, const BusiestLinks& links,
                          const ChromeTraceOptions& options, uint32_t shown) {
  const FabricStats& f = replay.fabric;
  nlohmann::json meta = {
      {"generator", "weft"},
      {"title", options.title},
      {"workload", workload.name},
      {"step_time_us", replay.step_time.microseconds()},
      {"ranks", workload.ranks()},
      {"ranks_shown", shown},
      {"engine_events", replay.events},
      {"fabric_totals", {{"transfers", f.transfers_done}, {"bytes_delivered", f.bytes_delivered.count()}}},
  };
  if (links.links.empty()) {
    meta["link_counters"] = "none: the replay recorded no link series (analytic and simgrid fabrics keep none)";
  } else {
    meta["link_counters"] = fmt::format(
        "utilisation of the {} busiest links in bins of {} us (wire bytes spread over each transfer's time "
        "on the link)",
        links.links.size(), micros(links.bin));
  }
  if (shown < workload.ranks()) {
    meta["note"] = fmt::format(
        "only ranks 0-{} of {} are shown (limits: {} ranks, {} events); summary.json has the "
        "whole run",
        shown - 1, workload.ranks(), options.max_ranks, options.max_events);
  }
  return meta;
}

}  // namespace

std::string chrome_trace(const Workload& workload, const ReplayResult& replay, const ChromeTraceOptions& options,
                         const BusiestLinks& links) {
  const std::vector<std::vector<OpTiming>>& timings = replay.ops.timings();
  if (timings.size() != workload.ranks()) {
    throw ModelError(
        fmt::format("trace: {} ranks of timings for a workload of {} ranks", timings.size(), workload.ranks()));
  }
  std::vector<std::string> labels;  // JSON-quoted once, used by every op
  labels.reserve(workload.labels.size());
  for (const std::string& l : workload.labels) labels.push_back(json_quoted(l));
  const uint32_t shown = ranks_to_show(workload, options);
  std::vector<std::string> events;
  for (uint32_t r = 0; r < shown; ++r) {
    const Program& program = workload.programs[r];
    if (timings[r].size() != program.ops.size()) {
      throw ModelError(
          fmt::format("trace: rank {} has {} timings for {} ops", r, timings[r].size(), program.ops.size()));
    }
    add_rank_metadata(events, r, stream_names(program));
    add_op_events(events, r, program, timings[r], labels);
    add_counter_events(events, r, program, timings[r]);
  }
  add_link_events(events, workload.ranks(), links);
  std::string text = "{\"traceEvents\":[\n";
  for (size_t i = 0; i < events.size(); ++i) text += events[i] + (i + 1 < events.size() ? ",\n" : "\n");
  text +=
      "],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":" + other_data(workload, replay, links, options, shown).dump(2) +
      "}\n";
  return text;
}

}  // namespace weft
