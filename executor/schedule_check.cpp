#include "executor/schedule_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>

#include "sim/core/errors.h"

namespace weft {
namespace {

constexpr std::array<std::string_view, 6> kOps = {"all_reduce", "all_gather", "reduce_scatter",
                                                  "broadcast",  "all_to_all", "reduce"};

void check_op(const LoweredSchedule& s, uint32_t rank, const LoweredOp& o, size_t index) {
  const std::string where = fmt::format("rank {} op {}", rank, o.id);
  if (o.id != index)
    throw ConfigError(fmt::format("{}: ids must be 0, 1, ... in order (found {} at {})", where, o.id, index));
  for (uint32_t d : o.deps) {
    if (d >= o.id) throw ConfigError(fmt::format("{}: depends on op {}, which is not an earlier op", where, d));
  }
  if (o.kind == LoweredKind::collective) {
    if (std::find(kOps.begin(), kOps.end(), o.op) == kOps.end()) {
      throw ConfigError(fmt::format("{}: unknown collective '{}'", where, o.op));
    }
    collective_dtype_bytes(o.dtype);
    if (o.comm >= s.comms.size()) throw ConfigError(fmt::format("{}: communicator {} does not exist", where, o.comm));
    const auto& members = s.comms[o.comm].ranks;
    if (std::find(members.begin(), members.end(), rank) == members.end()) {
      throw ConfigError(fmt::format("{}: rank {} is not in communicator {}", where, rank, o.comm));
    }
    if ((o.op == "broadcast" || o.op == "reduce") && o.root >= members.size()) {
      throw ConfigError(
          fmt::format("{}: root {} outside communicator {} of {} ranks", where, o.root, o.comm, members.size()));
    }
  }
  if ((o.kind == LoweredKind::send || o.kind == LoweredKind::recv) && (o.peer >= s.ranks() || o.peer == rank)) {
    throw ConfigError(fmt::format("{}: peer {} is not another rank of the {}", where, o.peer, s.ranks()));
  }
  if (o.kind == LoweredKind::copy && o.direction != "d2d" && o.direction != "h2d" && o.direction != "d2h") {
    throw ConfigError(fmt::format("{}: copy direction '{}': expected d2d, h2d or d2h", where, o.direction));
  }
}

// Every member of a communicator must issue the same collectives in the same order.
void check_collective_sequences(const LoweredSchedule& s) {
  using Call = std::tuple<std::string, uint64_t, uint32_t>;  // op, bytes, root
  std::vector<std::map<uint32_t, std::vector<Call>>> seq(s.comms.size());
  for (uint32_t rank = 0; rank < s.ranks(); ++rank) {
    for (const LoweredOp& o : s.programs[rank]) {
      if (o.kind != LoweredKind::collective) continue;
      auto& mine = seq[o.comm][rank];
      if (o.instance != mine.size()) {
        throw ConfigError(fmt::format("rank {} op {}: collective instance {} on communicator {}, expected {}", rank,
                                      o.id, o.instance, o.comm, mine.size()));
      }
      mine.emplace_back(o.op, o.bytes, o.root);
    }
  }
  for (size_t c = 0; c < s.comms.size(); ++c) {
    const std::vector<Call>* first = nullptr;
    for (uint32_t r : s.comms[c].ranks) {
      const std::vector<Call>& calls = seq[c][r];
      if (first && calls != *first) {
        throw ConfigError(
            fmt::format("communicator {}: rank {} issues {} collectives, rank {} {} (or in another order "
                        "or size): the members must issue the same sequence",
                        c, r, calls.size(), s.comms[c].ranks.front(), first->size()));
      }
      first = &calls;
    }
  }
}

void check_pairs(const LoweredSchedule& s) {
  using Key = std::tuple<uint32_t, uint32_t, uint32_t>;  // src, dst, tag
  std::map<Key, std::vector<uint64_t>> sends, recvs;
  for (uint32_t rank = 0; rank < s.ranks(); ++rank) {
    for (const LoweredOp& o : s.programs[rank]) {
      if (o.kind == LoweredKind::send) sends[{rank, o.peer, o.tag}].push_back(o.bytes);
      if (o.kind == LoweredKind::recv) recvs[{o.peer, rank, o.tag}].push_back(o.bytes);
    }
  }
  auto describe = [](const Key& k) {
    return fmt::format("{} -> {} tag {}", std::get<0>(k), std::get<1>(k), std::get<2>(k));
  };
  for (const auto& [key, bytes] : sends) {
    auto it = recvs.find(key);
    const size_t posted = it == recvs.end() ? 0 : it->second.size();
    if (posted != bytes.size()) {
      throw ConfigError(
          fmt::format("unmatched send/recv: {} has {} sends and {} recvs", describe(key), bytes.size(), posted));
    }
    if (it->second != bytes)
      throw ConfigError(fmt::format("send/recv {}: the sizes of sends and recvs differ", describe(key)));
  }
  for (const auto& [key, bytes] : recvs) {
    if (!sends.contains(key))
      throw ConfigError(fmt::format("unmatched send/recv: {} has {} recvs and no send", describe(key), bytes.size()));
  }
}

}  // namespace

void check_schedule(const LoweredSchedule& s) {
  if (s.ranks() == 0) throw ConfigError("the schedule has no ranks");
  for (size_t c = 0; c < s.comms.size(); ++c) {
    std::set<uint32_t> seen;
    for (uint32_t r : s.comms[c].ranks) {
      if (r >= s.ranks() || !seen.insert(r).second) {
        throw ConfigError(fmt::format("communicator {}: rank {} is out of range or listed twice", c, r));
      }
    }
  }
  for (uint32_t rank = 0; rank < s.ranks(); ++rank) {
    for (size_t i = 0; i < s.programs[rank].size(); ++i) check_op(s, rank, s.programs[rank][i], i);
  }
  check_collective_sequences(s);
  check_pairs(s);
}

}  // namespace weft
