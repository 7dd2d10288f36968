#include "workloads/program.h"

#include <fmt/format.h>
#include <map>
#include <tuple>

#include "sim/core/errors.h"

namespace weft {

std::string_view to_string(CommGroup g) {
  switch (g) {
    case CommGroup::none:
      return "none";
    case CommGroup::dp:
      return "DP";
    case CommGroup::tp:
      return "TP";
    case CommGroup::pp:
      return "PP";
    case CommGroup::cp:
      return "CP";
    case CommGroup::ep:
      return "EP";
    case CommGroup::other:
      return "other";
  }
  return "?";
}

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::forward:
      return "forward";
    case Phase::backward:
      return "backward";
    case Phase::recompute:
      return "recompute";
    case Phase::optimizer:
      return "optimizer";
    case Phase::other:
      return "other";
  }
  return "?";
}

uint32_t Program::add(Op op, std::initializer_list<uint32_t> after) {
  op.first_dep = static_cast<uint32_t>(deps.size());
  op.dep_count = static_cast<uint32_t>(after.size());
  deps.insert(deps.end(), after.begin(), after.end());
  ops.push_back(op);
  return static_cast<uint32_t>(ops.size() - 1);
}

uint32_t Program::add(Op op, const std::vector<uint32_t>& after) {
  op.first_dep = static_cast<uint32_t>(deps.size());
  op.dep_count = static_cast<uint32_t>(after.size());
  deps.insert(deps.end(), after.begin(), after.end());
  ops.push_back(op);
  return static_cast<uint32_t>(ops.size() - 1);
}

uint32_t Workload::label(std::string_view text) {
  auto [it, added] = label_index.try_emplace(std::string(text), static_cast<uint32_t>(labels.size()));
  if (added) labels.emplace_back(text);
  return it->second;
}

uint32_t Workload::add_communicator(Communicator c) {
  communicators.push_back(std::move(c));
  return static_cast<uint32_t>(communicators.size() - 1);
}

namespace {

void check_op(const Workload& w, uint32_t rank, uint32_t index, const std::vector<std::vector<bool>>& member_of) {
  const Program& p = w.programs[rank];
  const Op& op = p.ops[index];
  auto where = [&] { return fmt::format("workload '{}': rank {} op {}", w.name, rank, index); };
  if (op.first_dep + op.dep_count > p.deps.size()) throw ConfigError(where() + ": dependency list out of range");
  for (uint32_t d = op.first_dep; d < op.first_dep + op.dep_count; ++d) {
    if (p.deps[d] >= index) {
      throw ConfigError(fmt::format("{}: depends on op {}, which is not an earlier op", where(), p.deps[d]));
    }
  }
  if (op.kind == OpKind::collective) {
    if (op.comm >= w.communicators.size()) {
      throw ConfigError(
          fmt::format("{}: communicator {} does not exist ({} defined)", where(), op.comm, w.communicators.size()));
    }
    if (!member_of[op.comm][rank])
      throw ConfigError(fmt::format("{}: not a member of communicator {}", where(), op.comm));
  }
  if ((op.kind == OpKind::send || op.kind == OpKind::recv) && (op.peer >= w.ranks() || op.peer == rank)) {
    throw ConfigError(fmt::format("{}: peer {} is not another rank (0..{})", where(), op.peer, w.ranks() - 1));
  }
}

}  // namespace

void validate(const Workload& w) {
  if (w.gpu_of_rank.size() != w.ranks()) {
    throw ConfigError(
        fmt::format("workload '{}': {} ranks but {} GPU placements", w.name, w.ranks(), w.gpu_of_rank.size()));
  }
  std::vector<std::vector<bool>> member_of(w.communicators.size(), std::vector<bool>(w.ranks(), false));
  for (size_t c = 0; c < w.communicators.size(); ++c) {
    for (uint32_t r : w.communicators[c].ranks) {
      if (r >= w.ranks()) throw ConfigError(fmt::format("workload '{}': communicator {} names rank {}", w.name, c, r));
      member_of[c][r] = true;
    }
  }
  // Sends and recvs pair up by (src, dst, tag) with equal counts and sizes.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint64_t>> sent, received;
  for (uint32_t r = 0; r < w.ranks(); ++r) {
    for (uint32_t i = 0; i < w.programs[r].ops.size(); ++i) {
      check_op(w, r, i, member_of);
      const Op& op = w.programs[r].ops[i];
      if (op.kind == OpKind::send) sent[{r, op.peer, op.tag}].push_back(op.bytes.count());
      if (op.kind == OpKind::recv) received[{op.peer, r, op.tag}].push_back(op.bytes.count());
    }
  }
  if (sent != received) {
    for (const auto& [key, sizes] : sent) {
      auto it = received.find(key);
      if (it == received.end() || it->second != sizes) {
        auto [src, dst, tag] = key;
        throw ConfigError(
            fmt::format("workload '{}': sends from rank {} to rank {} (tag {}) have no matching recvs "
                        "of the same sizes",
                        w.name, src, dst, tag));
      }
    }
    throw ConfigError(fmt::format("workload '{}': a recv has no matching send", w.name));
  }
}

}  // namespace weft
