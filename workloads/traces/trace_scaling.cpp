#include "workloads/traces/trace_scaling.h"

#include <fmt/format.h>

#include <numeric>

#include "sim/core/errors.h"

namespace weft {

namespace {

void check_data_parallel(const Workload& w) {
  for (size_t c = 0; c < w.communicators.size(); ++c) {
    if (w.communicators[c].ranks.size() != w.ranks()) {
      throw ConfigError(
          fmt::format("workload '{}': communicator {} has {} of {} ranks: not a purely data-parallel "
                      "trace, cannot rescale it",
                      w.name, c, w.communicators[c].ranks.size(), w.ranks()));
    }
  }
  for (uint32_t r = 0; r < w.ranks(); ++r) {
    for (uint32_t i = 0; i < w.programs[r].ops.size(); ++i) {
      const OpKind k = w.programs[r].ops[i].kind;
      if (k == OpKind::send || k == OpKind::recv) {
        throw ConfigError(
            fmt::format("workload '{}': rank {} op {} is a {}: point-to-point traffic (pipeline "
                        "parallelism) cannot be rescaled by replicating ranks",
                        w.name, r, i, k == OpKind::send ? "send" : "recv"));
      }
    }
  }
}

}  // namespace

Workload scale_data_parallel(const Workload& w, uint32_t ranks) {
  if (ranks == 0) throw ConfigError(fmt::format("workload '{}': cannot rescale to 0 ranks", w.name));
  if (w.ranks() == 0) throw ConfigError(fmt::format("workload '{}': has no ranks to replicate", w.name));
  check_data_parallel(w);
  Workload out = w;
  out.name = fmt::format("{}@{}", w.name, ranks);
  out.programs.clear();
  for (uint32_t r = 0; r < ranks; ++r) out.programs.push_back(w.programs[r % w.ranks()]);
  out.gpu_of_rank.resize(ranks);
  std::iota(out.gpu_of_rank.begin(), out.gpu_of_rank.end(), 0u);
  for (Communicator& c : out.communicators) {
    c.ranks.resize(ranks);
    std::iota(c.ranks.begin(), c.ranks.end(), 0u);
    c.group = CommGroup::dp;
  }
  // model_flops is the whole step's useful work: it grows with the replicas.
  out.model_flops = w.model_flops * static_cast<double>(ranks) / static_cast<double>(w.ranks());
  return out;
}

}  // namespace weft
