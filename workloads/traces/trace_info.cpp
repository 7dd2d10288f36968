#include "workloads/traces/trace_info.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

namespace weft {

TraceInfo trace_info(const Workload& w) {
  TraceInfo info;
  info.name = w.name;
  info.ranks = w.ranks();
  std::map<std::tuple<CollectiveOp, uint64_t, uint32_t>, uint64_t> rows;
  for (const Program& p : w.programs) {
    for (const Op& op : p.ops) {
      ++info.ops_by_kind[static_cast<size_t>(op.kind)];
      if (op.kind == OpKind::compute) info.compute_seconds += op.duration.seconds();
      if (op.kind == OpKind::send) info.p2p_bytes += op.bytes.count();
      if (op.kind == OpKind::collective) {
        const auto n =
            op.comm < w.communicators.size() ? static_cast<uint32_t>(w.communicators[op.comm].ranks.size()) : 0u;
        ++rows[{op.collective, op.bytes.count(), n}];
      }
    }
  }
  for (const auto& [key, count] : rows) {
    info.collectives.push_back({std::get<0>(key), Bytes(std::get<1>(key)), std::get<2>(key), count});
  }
  for (size_t c = 0; c < w.communicators.size(); ++c) {
    info.communicators.push_back({static_cast<uint32_t>(c), w.communicators[c].group, w.communicators[c].ranks});
  }
  return info;
}

namespace {

std::string rank_list(const std::vector<uint32_t>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size() && i < 16; ++i) out += fmt::format("{}{}", i ? "," : "", ranks[i]);
  if (ranks.size() > 16) out += fmt::format(",... ({} ranks)", ranks.size());
  return out;
}

}  // namespace

std::string format_trace_info(const TraceInfo& info) {
  std::string out = fmt::format("trace {}: {} ranks\n", info.name, info.ranks);
  if (info.step)
    out +=
        fmt::format("step: ProfilerStep#{} ({:.3f} ms on the host)\n", *info.step, info.step_duration.seconds() * 1e3);
  out += fmt::format("ops (all ranks): compute {}  collective {}  send {}  recv {}\n", info.ops_by_kind[0],
                     info.ops_by_kind[1], info.ops_by_kind[2], info.ops_by_kind[3]);
  out += fmt::format("compute time (all ranks): {:.3f} ms   point-to-point: {} B\n", info.compute_seconds * 1e3,
                     info.p2p_bytes);
  out += fmt::format("{:<16} {:>16} {:>6} {:>8}\n", "collective", "bytes", "ranks", "count");
  for (const TraceCollectiveRow& r : info.collectives) {
    out += fmt::format("{:<16} {:>16} {:>6} {:>8}\n", to_string(r.op), r.bytes.count(), r.ranks, r.count);
  }
  out += fmt::format("{:<6} {:<6} {}\n", "comm", "group", "ranks");
  for (const TraceCommunicatorRow& c : info.communicators) {
    out += fmt::format("{:<6} {:<6} {}\n", c.index, to_string(c.group), rank_list(c.ranks));
  }
  return out;
}

}  // namespace weft
