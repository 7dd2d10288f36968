#include "workloads/traffic.h"

#include <fmt/format.h>
#include <algorithm>
#include <numeric>
#include <tuple>

#include "sim/core/errors.h"
#include "sim/core/rng.h"
#include "topologies/routing.h"

namespace weft {
namespace {

// A uniformly random derangement: shuffle (Fisher-Yates) until no rank maps to itself. A shuffle
// is a derangement with probability about 1/e (Montmort), so ~2.7 shuffles are expected.
std::vector<uint32_t> derangement(uint32_t n, Rng& rng) {
  std::vector<uint32_t> p(n);
  for (;;) {
    std::iota(p.begin(), p.end(), 0u);
    for (uint32_t i = n - 1; i > 0; --i) std::swap(p[i], p[rng.uniform_below(i + 1)]);
    bool fixed_point = false;
    for (uint32_t i = 0; i < n; ++i) fixed_point |= p[i] == i;
    if (!fixed_point) return p;
  }
}

// For specs built in code rather than read from YAML: the same checks, without a location.
void check_flows(const std::vector<FlowSpec>& flows, uint32_t ranks) {
  for (size_t i = 0; i < flows.size(); ++i) {
    const FlowSpec& f = flows[i];
    if (f.src >= ranks || f.dst >= ranks || f.src == f.dst || f.bytes.count() == 0 ||
        f.priority >= packet::kPriorities) {
      throw ConfigError(
          fmt::format("traffic: flow {} ({} -> {}, {} bytes, priority {}) is not a flow between two "
                      "distinct ranks below {} of at least one byte at a priority below {}",
                      i, f.src, f.dst, f.bytes.count(), f.priority, ranks, packet::kPriorities));
    }
  }
}

template <typename T>
T nearest_rank(const std::vector<T>& sorted, uint64_t percent) {
  uint64_t rank = std::max<uint64_t>(1, (percent * sorted.size() + 99) / 100);  // ceil(p * n / 100)
  return sorted[rank - 1];
}

}  // namespace

std::string_view to_string(TrafficKind kind) {
  switch (kind) {
    case TrafficKind::incast:
      return "incast";
    case TrafficKind::permutation:
      return "permutation";
    case TrafficKind::all_to_all:
      return "all_to_all";
    case TrafficKind::flows:
      return "flows";
  }
  return "?";
}

std::vector<FlowSpec> make_traffic(const TrafficSpec& spec, uint32_t ranks, uint64_t seed) {
  std::vector<FlowSpec> flows;
  switch (spec.kind) {
    case TrafficKind::incast:
      for (size_t k = 0; k < spec.senders.size(); ++k) {
        Time start = spec.start + spec.stagger * static_cast<int64_t>(k);
        flows.push_back({spec.senders[k], spec.receiver, spec.bytes, start, spec.priority});
      }
      break;
    case TrafficKind::permutation: {
      if (ranks < 2) throw ConfigError("traffic: a permutation needs at least 2 ranks");
      Rng rng(spec.seed.value_or(seed), "traffic.permutation");
      std::vector<uint32_t> to = derangement(ranks, rng);
      for (uint32_t r = 0; r < ranks; ++r) flows.push_back({r, to[r], spec.bytes, spec.start, spec.priority});
      break;
    }
    case TrafficKind::all_to_all:
      flows.reserve(static_cast<size_t>(ranks) * (ranks > 0 ? ranks - 1 : 0));
      for (uint32_t s = 0; s < ranks; ++s) {
        for (uint32_t d = 0; d < ranks; ++d) {
          if (s != d) flows.push_back({s, d, spec.bytes, spec.start, spec.priority});
        }
      }
      break;
    case TrafficKind::flows:
      flows = spec.flows;
      break;
  }
  check_flows(flows, ranks);
  return flows;
}

namespace {

// The arrival of each flow's last byte, from the Recorder (a flow's tag is its index). A flow
// between GPUs on NVSwitches arrives as one record per NVLink stripe (sim/stripes.h): the last one
// is its arrival.
class CompletionSink final : public RecorderSink {
 public:
  explicit CompletionSink(size_t flows) : done(flows, Time::max()) {}
  uint8_t hooks() const override { return static_cast<uint8_t>(Hook::transfers); }
  void on_transfer_done(const TransferRecord& r) override {
    done[r.tag] = done[r.tag] == Time::max() ? r.end : std::max(done[r.tag], r.end);
  }

  std::vector<Time> done;  // Time::max() until the flow has arrived
};

// One run: the simulation, and the completion times and counters its Recorder reports.
struct TrafficRun {
  TrafficRun(const std::vector<FlowSpec>& f, const Topology& topology, const SimulationSetup& setup)
      : flows(f), gpus(topology.gpus()), sim(topology, setup), completions(f.size()) {
    sim.recorder().add_sink(completions);
    sim.recorder().add_sink(totals);
  }

  void start(uint32_t i) {
    const FlowSpec& f = flows[i];
    Transfer t{gpus[f.src], gpus[f.dst], f.bytes, f.priority, /*entropy=*/i, /*tag=*/i};
    sim.fabric().start(t, [this] { ++completed; });  // once the whole flow (every stripe) arrived
  }

  FlowOutcome outcome(uint32_t i) {
    const FlowSpec& f = flows[i];
    // The path the fabric gave this flow, or every NVLink path at once when it is striped.
    const PathSet* stripes = nullptr;
    const Path& path = sim.router().route(gpus[f.src], gpus[f.dst], i, stripes);
    Bandwidth rate = path.bottleneck;
    if (stripes != nullptr) {
      uint64_t sum = 0;
      for (const Path& p : *stripes) sum += p.bottleneck.bps();
      rate = Bandwidth::bps(sum);
    }
    Time ideal = path.latency + transmit_time(f.bytes, rate);
    Time fct = completions.done[i] - f.start;
    double slowdown = ideal.ps() > 0 ? static_cast<double>(fct.ps()) / static_cast<double>(ideal.ps()) : 1.0;
    return {f, fct, ideal, slowdown};
  }

  const std::vector<FlowSpec>& flows;
  const std::vector<NodeIndex>& gpus;
  Simulation sim;
  CompletionSink completions;
  size_t completed = 0;  // flows whose last byte arrived
  RunTotals totals{/*per_link=*/true};
};

}  // namespace

TrafficResult run_traffic(const std::vector<FlowSpec>& flows, const Topology& topology, const SimulationSetup& setup) {
  check_flows(flows, static_cast<uint32_t>(topology.gpus().size()));
  TrafficRun run(flows, topology, setup);
  Engine& engine = run.sim.engine();
  for (uint32_t i = 0; i < flows.size(); ++i) engine.schedule_at(flows[i].start, [&run, i] { run.start(i); });
  run.sim.run();
  TrafficResult result;
  result.fabric = run.totals.last.fabric;
  result.events = run.totals.last.events;
  if (run.completed != flows.size()) {
    throw ModelError(fmt::format("traffic: {} of {} flows never completed on the {} fabric{}",
                                 flows.size() - run.completed, flows.size(), setup.fabric,
                                 result.fabric.deadlocked ? " (it reports a PFC deadlock)" : ""));
  }
  for (const LinkStats& l : run.totals.last.links) {
    std::string name = fmt::format("{}->{}", topology.node(topology.link_source(l.link)).name,
                                   topology.node(topology.link_target(l.link)).name);
    result.links.push_back({std::move(name), l});
  }
  std::stable_sort(result.links.begin(), result.links.end(), [](const LinkSummary& a, const LinkSummary& b) {
    return std::tie(b.stats.paused, b.stats.max_queue) < std::tie(a.stats.paused, a.stats.max_queue);
  });
  result.flows.reserve(flows.size());
  for (uint32_t i = 0; i < flows.size(); ++i) result.flows.push_back(run.outcome(i));
  result.summary = summarize(result.flows);
  return result;
}

FctSummary summarize(const std::vector<FlowOutcome>& flows) {
  FctSummary s;
  s.flows = flows.size();
  if (flows.empty()) return s;
  std::vector<Time> fct;
  std::vector<double> slowdown;
  Time first = Time::max();
  Time last;
  double slowdown_sum = 0;
  for (const FlowOutcome& f : flows) {
    fct.push_back(f.fct);
    slowdown.push_back(f.slowdown);
    slowdown_sum += f.slowdown;
    s.bytes += f.flow.bytes;
    first = std::min(first, f.flow.start);
    last = std::max(last, f.flow.start + f.fct);
  }
  std::sort(fct.begin(), fct.end());
  std::sort(slowdown.begin(), slowdown.end());
  s.min = fct.front();
  s.median = nearest_rank(fct, 50);
  s.p99 = nearest_rank(fct, 99);
  s.max = fct.back();
  s.mean_slowdown = slowdown_sum / static_cast<double>(flows.size());
  s.p99_slowdown = nearest_rank(slowdown, 99);
  s.makespan = last - first;
  double seconds = s.makespan.seconds();
  s.goodput_Gbps = seconds > 0 ? static_cast<double>(s.bytes.bits()) / seconds / 1e9 : 0.0;
  return s;
}

}  // namespace weft
