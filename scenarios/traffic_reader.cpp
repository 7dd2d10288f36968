// `workload: {traffic: KIND, ...}`: the traffic pattern of a scenario, read through the YAML door.
#include "scenarios/traffic_reader.h"

#include <fmt/format.h>
#include <algorithm>

#include "scenarios/field_yaml.h"
#include "scenarios/workload_fields.h"
#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

// A rank of the system, at `key` of `m`.
void check_rank(const YamlMap& m, const std::string& key, uint64_t rank, uint32_t ranks) {
  if (rank >= ranks) {
    throw m.error(key, fmt::format("rank {} is out of range (the system has ranks 0 to {})", rank, ranks - 1));
  }
}

uint32_t read_rank(const YamlMap& m, const std::string& key, uint32_t ranks) {
  const uint64_t r = m.unsigned_integer(key);
  check_rank(m, key, r, ranks);
  return static_cast<uint32_t>(r);
}

// Why rank r cannot be one more incast sender ("" when it can); `seen` has one entry per rank.
std::string sender_problem(uint64_t r, uint32_t receiver, const std::vector<bool>& seen) {
  if (r >= seen.size())
    return fmt::format("rank {} is out of range (the system has ranks 0 to {})", r, seen.size() - 1);
  if (r == receiver) return fmt::format("rank {} is the receiver", r);
  if (seen[r]) return fmt::format("rank {} is listed twice", r);
  return {};
}

// `senders: N` takes the first N ranks other than the receiver (ranks 1..N for receiver 0);
// `senders: [..]` names them, in start order.
std::vector<uint32_t> read_senders(const YamlMap& m, uint32_t receiver, uint32_t ranks) {
  std::vector<uint32_t> out;
  if (!m.is_list("senders")) {
    uint64_t n = m.unsigned_integer("senders");
    if (n < 1 || n >= ranks) {
      throw m.error("senders",
                    fmt::format("expected 1 to {} (the ranks other than the receiver), got {}", ranks - 1, n));
    }
    for (uint32_t r = 0; out.size() < n; ++r) {
      if (r != receiver) out.push_back(r);
    }
    return out;
  }
  std::vector<bool> seen(ranks, false);
  for (uint64_t r : m.unsigned_integers("senders")) {
    std::string problem = sender_problem(r, receiver, seen);
    if (!problem.empty()) throw m.error("senders", problem);
    seen[r] = true;
    out.push_back(static_cast<uint32_t>(r));
  }
  if (out.empty()) throw m.error("senders", "expected at least one rank");
  return out;
}

FlowSpec read_flow(const YamlMap& m, uint32_t ranks) {
  FlowSpec f;
  require_keys(m, kFlowRequired);
  read_fields(m, flow_fields(), "", f);
  check_rank(m, "src", f.src, ranks);
  check_rank(m, "dst", f.dst, ranks);
  if (f.src == f.dst) throw m.error("dst", fmt::format("the same rank as src ({})", f.src));
  m.reject_unknown_keys();
  return f;
}

}  // namespace

TrafficSpec read_traffic(const YamlMap& w, uint32_t ranks) {
  TrafficSpec t;
  t.where = w.location("traffic");
  require_keys(w, std::span(kTrafficRequired).first(1));
  if (ranks < 2) {
    throw ConfigError(t.where, "traffic", fmt::format("needs at least 2 ranks, the system has {}", ranks));
  }
  const std::span<const Field<TrafficSpec>> fields = traffic_fields();
  read_fields(w, fields.first(1), "", t);  // `traffic:`, which says which of the others apply
  if (t.kind == TrafficKind::flows) {
    for (const YamlMap& item : w.list_of_maps("flows")) t.flows.push_back(read_flow(item, ranks));
    if (t.flows.empty()) throw w.error("flows", "expected at least one flow");
    return t;
  }
  require_keys(w, kTrafficRequired);
  for (const auto& [key, applies] : {std::pair{"stagger", TrafficKind::incast}, {"seed", TrafficKind::permutation}}) {
    if (w.has(key) && t.kind != applies)
      throw w.error(key, fmt::format("applies to traffic: {} only", to_string(applies)));
  }
  read_fields(w, fields.subspan(1), "", t);
  if (t.kind == TrafficKind::incast) {
    t.receiver = w.has("receiver") ? read_rank(w, "receiver", ranks) : 0;
    t.senders = read_senders(w, t.receiver, ranks);
  }
  return t;
}

}  // namespace weft
