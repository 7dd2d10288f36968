#include "workloads/step_breakdown.h"

#include <algorithm>

namespace weft {

Time TimeSplit::exposed_total() const {
  Time t;
  for (Time e : exposed) t += e;
  return t;
}

namespace {

struct Edge {
  Time at;
  int8_t delta;   // +1 start, -1 end
  uint8_t group;  // kCommGroups = compute
};

// One rank: a sweep over the start and end of every op's running interval.
TimeSplit split_rank(const Program& program, const std::vector<OpTiming>& timings, Time step,
                     std::array<Time, kCommGroups>& communication) {
  std::vector<Edge> edges;
  edges.reserve(2 * program.ops.size());
  for (size_t i = 0; i < program.ops.size(); ++i) {
    const Op& op = program.ops[i];
    const OpTiming& t = timings[i];
    if (t.ended <= t.started) continue;
    const auto group = static_cast<uint8_t>(op.kind == OpKind::compute ? kCommGroups : static_cast<size_t>(op.group));
    edges.push_back({t.started, +1, group});
    edges.push_back({t.ended, -1, group});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.at < b.at; });
  TimeSplit split;
  std::array<int32_t, kCommGroups + 1> active{};
  Time last;
  for (const Edge& e : edges) {
    const Time span = e.at - last;
    if (span > Time()) {
      int32_t groups = 0;
      for (size_t g = 0; g < kCommGroups; ++g) {
        if (active[g] > 0) {
          ++groups;
          communication[g] += span;
        }
      }
      if (active[kCommGroups] > 0) {
        split.compute += span;
      } else if (groups > 0) {
        for (size_t g = 0; g < kCommGroups; ++g) {
          if (active[g] > 0) split.exposed[g] += Time::ps(span.ps() / groups);
        }
      }
    }
    active[e.group] += e.delta;
    last = e.at;
  }
  split.idle = step - split.compute - split.exposed_total();
  return split;
}

Time mean_of(Time total, size_t n) { return Time::ps(total.ps() / static_cast<int64_t>(std::max<size_t>(1, n))); }

}  // namespace

StepBreakdown breakdown(const Workload& workload, const ReplayResult& result, double peak_flops) {
  StepBreakdown b;
  b.step_time = result.step_time;
  TimeSplit sum;
  std::array<Time, kCommGroups> communication{};
  for (uint32_t r = 0; r < workload.ranks(); ++r) {
    TimeSplit s = split_rank(workload.programs[r], result.ops.timings()[r], result.step_time, communication);
    sum.compute += s.compute;
    sum.idle += s.idle;
    for (size_t g = 0; g < kCommGroups; ++g) sum.exposed[g] += s.exposed[g];
    b.ranks.push_back(s);
  }
  const size_t n = workload.ranks();
  b.mean.compute = mean_of(sum.compute, n);
  b.mean.idle = mean_of(sum.idle, n);
  for (size_t g = 0; g < kCommGroups; ++g) {
    b.mean.exposed[g] = mean_of(sum.exposed[g], n);
    b.communication[g] = mean_of(communication[g], n);
  }
  b.model_flops = workload.model_flops;
  const double seconds = result.step_time.seconds();
  if (seconds > 0 && n > 0) b.tflops_per_gpu = workload.model_flops / seconds / static_cast<double>(n) / 1e12;
  if (peak_flops > 0) b.mfu = b.tflops_per_gpu * 1e12 / peak_flops;
  return b;
}

}  // namespace weft
