// `workload: {traffic: KIND, ...}`: the traffic pattern of a scenario, read through the YAML door.
#include "scenarios/traffic_reader.h"

#include <fmt/format.h>
#include <algorithm>

#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

TrafficKind parse_kind(const YamlMap& m) {
  std::string s = m.string("traffic");
  if (s == "incast") return TrafficKind::incast;
  if (s == "permutation") return TrafficKind::permutation;
  if (s == "all_to_all") return TrafficKind::all_to_all;
  if (s == "flows") return TrafficKind::flows;
  throw m.error("traffic", fmt::format("unknown pattern '{}' (expected incast, permutation, all_to_all or flows)", s));
}

uint32_t read_rank(const YamlMap& m, const std::string& key, uint32_t ranks) {
  uint64_t r = m.unsigned_integer(key);
  if (r >= ranks) {
    throw m.error(key, fmt::format("rank {} is out of range (the system has ranks 0 to {})", r, ranks - 1));
  }
  return static_cast<uint32_t>(r);
}

Bytes read_flow_bytes(const YamlMap& m) {
  Bytes b = m.bytes("bytes");
  if (b.count() == 0) throw m.error("bytes", "expected a size above zero");
  return b;
}

uint8_t read_priority(const YamlMap& m) {
  uint64_t p = m.unsigned_integer_or("priority", 0);
  if (p >= packet::kPriorities) {
    throw m.error("priority", fmt::format("expected a traffic class 0 to {}, got {}", packet::kPriorities - 1, p));
  }
  return static_cast<uint8_t>(p);
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
  f.src = read_rank(m, "src", ranks);
  f.dst = read_rank(m, "dst", ranks);
  if (f.src == f.dst) throw m.error("dst", fmt::format("the same rank as src ({})", f.src));
  f.bytes = read_flow_bytes(m);
  f.start = m.time_or("start", Time());
  f.priority = read_priority(m);
  m.reject_unknown_keys();
  return f;
}

}  // namespace

TrafficSpec read_traffic(const YamlMap& w, uint32_t ranks) {
  TrafficSpec t;
  t.where = w.location("traffic");
  t.kind = parse_kind(w);
  if (ranks < 2) {
    throw ConfigError(t.where, "traffic", fmt::format("needs at least 2 ranks, the system has {}", ranks));
  }
  if (t.kind == TrafficKind::flows) {
    for (const YamlMap& item : w.list_of_maps("flows")) t.flows.push_back(read_flow(item, ranks));
    if (t.flows.empty()) throw w.error("flows", "expected at least one flow");
    return t;
  }
  t.bytes = read_flow_bytes(w);
  t.start = w.time_or("start", Time());
  t.priority = read_priority(w);
  if (t.kind == TrafficKind::incast) {
    t.receiver = w.has("receiver") ? read_rank(w, "receiver", ranks) : 0;
    t.senders = read_senders(w, t.receiver, ranks);
    t.stagger = w.time_or("stagger", Time());
  }
  if (t.kind == TrafficKind::permutation && w.has("seed")) t.seed = w.unsigned_integer("seed");
  return t;
}

}  // namespace weft
