#include "workloads/traces/kineto_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "sim/core/errors.h"
#include "workloads/traces/kineto_collectives.h"
#include "workloads/traces/kineto_sax.h"
#include "workloads/traces/trace_conventions.h"

namespace weft {

namespace {

// Durations and time differences in a trace: at most 10^12 us (11.6 days) either way, so the
// picoseconds fit an int64 with room to add them; more is a corrupt file.
Time from_us(double us, const std::string& file) {
  if (!(std::fabs(us) <= 1e12)) {
    throw ConfigError(fmt::format("trace file '{}': a time of {} us is out of range (more than 11.6 days)", file, us));
  }
  return Time::ps(std::llround(us * 1e6));
}

struct Window {
  double begin = -1e300, end = 1e300;
  bool contains(double t) const { return t >= begin && t <= end; }
};

class RankMapper {
 public:
  RankMapper(const KinetoEvents& events, KinetoRank& out, std::string path)
      : ev_(events), out_(out), path_(std::move(path)), comms_(events, out.groups) {}
  void run(const KinetoOptions& options);

 private:
  Window select_window(const KinetoOptions& options);
  double launch_time(const GpuEvent& g) const;
  void assign_streams(const std::vector<const GpuEvent*>& kept);
  void emit_gpu(const std::vector<const GpuEvent*>& kept);
  void emit_host_collectives(const Window& window);
  std::vector<const HostCommEvent*> host_collectives(const Window& window) const;
  uint64_t add(TraceNode node);
  TraceNode comm_node(const KinetoComm& c, const std::string& name, int stream);
  void close_segment(int64_t stream);

  struct Segment {
    bool open = false;
    double first_start = 0, last_end = 0;
    double busy = 0;  // us of kernels (one stream runs one kernel at a time)
    uint32_t name = 0;
    std::vector<uint64_t> deps;
  };
  struct Finished {  // an emitted collective, for the wait inference
    uint64_t id;
    double end;
  };

  const KinetoEvents& ev_;
  KinetoRank& out_;
  std::string path_;
  KinetoCommResolver comms_;  // records the process groups it meets in out_.groups
  std::unordered_map<int64_t, int> stream_of_;
  std::map<int64_t, Segment> segments_;             // ordered: segments close in stream-id order
  std::unordered_map<int64_t, double> stream_end_;  // last GPU end seen per trace stream
  std::vector<Finished> collectives_;
  uint64_t last_compute_ = 0;  // id of the last compute op on weft stream 0, 0: none
  uint64_t next_id_ = 1;
};

Window RankMapper::select_window(const KinetoOptions& options) {
  if (options.whole_trace || ev_.steps.empty()) {
    if (options.step && !options.whole_trace) {
      throw ConfigError(
          fmt::format("trace file '{}': step {} asked for, but the trace has no ProfilerStep#N "
                      "annotations",
                      path_, *options.step));
    }
    return {};
  }
  std::vector<StepEvent> steps = ev_.steps;
  // By number, then time: torch 1.13 can label two steps #0, and the earlier is the first.
  std::sort(steps.begin(), steps.end(), [](const StepEvent& a, const StepEvent& b) {
    return a.number != b.number ? a.number < b.number : a.ts < b.ts;
  });
  const StepEvent* chosen = &steps.front();  // the profiler opens each step itself: the first is whole
  if (options.step) {
    auto it = std::find_if(steps.begin(), steps.end(), [&](const StepEvent& s) { return s.number == *options.step; });
    if (it == steps.end()) {
      std::string have;
      for (const StepEvent& s : steps) have += fmt::format("{}{}", have.empty() ? "" : ", ", s.number);
      throw ConfigError(
          fmt::format("trace file '{}': no ProfilerStep#{} (the trace has {})", path_, *options.step, have));
    }
    chosen = &*it;
  }
  out_.step = chosen->number;
  out_.step_start = from_us(chosen->ts - ev_.first_ts, path_);  // from the trace's first event
  out_.step_duration = from_us(chosen->dur, path_);
  return {chosen->ts, chosen->ts + chosen->dur};
}

double RankMapper::launch_time(const GpuEvent& g) const {
  if (g.correlation) {
    if (auto it = ev_.launches.find(*g.correlation); it != ev_.launches.end()) return it->second.ts;
  }
  return g.ts;
}

void RankMapper::assign_streams(const std::vector<const GpuEvent*>& kept) {
  std::unordered_map<int64_t, double> busy;
  std::vector<int64_t> nccl_streams, other_streams;
  for (const GpuEvent* g : kept) {
    if (!g->nccl) busy[g->stream] += g->dur;
  }
  int64_t compute = kept.empty() ? 0 : kept.front()->stream;
  double most = -1;
  for (const GpuEvent* g : kept) {  // first-seen order breaks ties deterministically
    if (!g->nccl && busy[g->stream] > most) {
      most = busy[g->stream];
      compute = g->stream;
    }
  }
  stream_of_[compute] = 0;
  for (const GpuEvent* g : kept) {
    if (g->nccl && !stream_of_.contains(g->stream)) {
      stream_of_[g->stream] = static_cast<int>(stream_of_.size());
    }
  }
  for (const GpuEvent* g : kept) {
    if (!stream_of_.contains(g->stream)) stream_of_[g->stream] = static_cast<int>(stream_of_.size());
  }
  if (stream_of_.size() > 256) throw ConfigError(fmt::format("trace file '{}': more than 256 GPU streams", path_));
}

// A collective or send/recv node, counted by type.
TraceNode RankMapper::comm_node(const KinetoComm& c, const std::string& name, int stream) {
  ++out_.nccl_kernels[c.op];
  TraceNode n;
  n.kind = c.kind;
  n.name = name;
  n.collective = c.op;
  n.size = c.bytes;
  n.peer = c.peer;
  n.group = c.group;
  n.stream = stream;
  return n;
}

uint64_t RankMapper::add(TraceNode node) {
  node.id = next_id_++;
  out_.trace.nodes.push_back(std::move(node));
  return out_.trace.nodes.back().id;
}

void RankMapper::close_segment(int64_t stream) {
  Segment& s = segments_[stream];
  if (!s.open) return;
  // The kernels' busy time, then the gaps between them as a fixed-duration op: the GPU waited for
  // the host there (launches, Python), which a faster GPU does not shorten, so re-costing
  // (compute_scale) scales the kernels only.
  TraceNode n;
  n.kind = TraceNodeKind::compute;
  n.name = ev_.names[s.name];
  n.duration = from_us(s.busy, path_);
  n.deps = std::move(s.deps);
  n.stream = stream_of_.at(stream);
  uint64_t id = add(std::move(n));
  const double gaps = s.last_end - s.first_start - s.busy;
  if (gaps > 0) {
    TraceNode gap;
    gap.kind = TraceNodeKind::compute;
    gap.name = "gpu idle between kernels";
    gap.duration = from_us(gaps, path_);
    gap.fixed_duration = true;
    gap.deps = {id};
    gap.stream = stream_of_.at(stream);
    id = add(std::move(gap));
  }
  if (stream_of_.at(stream) == 0) last_compute_ = id;
  s = Segment{};
}

// Up to this long after a collective ends, a kernel that starts on an idle stream waited for it (us).
constexpr double kWaitWindowUs = 50.0;

void RankMapper::emit_gpu(const std::vector<const GpuEvent*>& kept) {
  for (const GpuEvent* g : kept) {
    const std::string where =
        fmt::format("trace file '{}': GPU event at ts {} us ('{}')", path_, g->ts, ev_.names[g->name].substr(0, 60));
    if (g->nccl) {
      for (auto& [stream, seg] : segments_) close_segment(stream);
      TraceNode n = comm_node(comms_.of_kernel(*g, where), ev_.names[g->name], stream_of_.at(g->stream));
      if (last_compute_ != 0) n.deps.push_back(last_compute_);
      collectives_.push_back({add(std::move(n)), g->ts + g->dur});
      continue;
    }
    // Did this kernel wait for a collective? Its stream idle since before that collective ended.
    const double idle_since = stream_end_.contains(g->stream) ? stream_end_[g->stream] : -1e300;
    std::optional<uint64_t> waited;
    for (const Finished& f : collectives_) {
      if (f.end > idle_since && f.end <= g->ts && g->ts - f.end <= kWaitWindowUs) waited = f.id;
    }
    Segment& s = segments_[g->stream];
    if (waited) {
      close_segment(g->stream);
      s.deps.push_back(*waited);
    }
    if (!s.open) {
      s.open = true;
      s.first_start = g->ts;
      s.name = g->name;
    }
    s.last_end = std::max(s.last_end, g->ts + g->dur);
    s.busy += g->dur;
    stream_end_[g->stream] = std::max(idle_since, g->ts + g->dur);
  }
  for (auto& [stream, seg] : segments_) close_segment(stream);
}

// The host ops that are the collectives of a trace without kernels: those with NCCL-style args
// (record_param_comms, newer torch), else gloo's own `gloo:<op>` ranges (torch 1.13 writes no args;
// their sizes come from Input Dims / Input type). The `c10d::<op>_` wrappers around them would count
// each collective twice.
std::vector<const HostCommEvent*> RankMapper::host_collectives(const Window& window) const {
  std::vector<const HostCommEvent*> with_args, gloo;
  for (const HostCommEvent& h : ev_.host_comms) {
    if (!window.contains(h.ts)) continue;
    if (h.args >= 0 && collective_from_name(ev_.args[static_cast<size_t>(h.args)].name)) with_args.push_back(&h);
    const std::string& name = ev_.names[h.name];
    if (name.starts_with("gloo:") && collective_from_name(std::string_view(name).substr(5))) gloo.push_back(&h);
  }
  return with_args.empty() ? gloo : with_args;
}

// Gloo: collectives run on host threads, no kernel; host time between them is the compute.
void RankMapper::emit_host_collectives(const Window& window) {
  std::vector<const HostCommEvent*> ops = host_collectives(window);
  std::sort(ops.begin(), ops.end(), [](const HostCommEvent* a, const HostCommEvent* b) { return a->ts < b->ts; });
  double cursor = ops.empty() ? 0 : (window.begin > -1e299 ? window.begin : ops.front()->ts);
  uint64_t prev = 0;
  for (const HostCommEvent* h : ops) {
    const std::string where =
        fmt::format("trace file '{}': host op '{}' at ts {} us", path_, ev_.names[h->name], h->ts);
    if (h->ts > cursor) {
      TraceNode gap;
      gap.kind = TraceNodeKind::compute;
      gap.name = "host compute";
      gap.duration = from_us(h->ts - cursor, path_);
      gap.stream = 0;
      if (prev != 0) gap.deps.push_back(prev);
      prev = add(std::move(gap));
    }
    const KinetoComm c = h->args >= 0 ? comms_.from_args(ev_.args[static_cast<size_t>(h->args)], std::nullopt, where)
                                      : comms_.of_gloo_op(*h, where);
    TraceNode n = comm_node(c, ev_.names[h->name], 1);
    if (prev != 0) n.deps.push_back(prev);
    prev = add(std::move(n));  // gloo blocks the calling thread: the next compute waits for it
    cursor = std::max(cursor, h->ts + h->dur);
  }
}

void RankMapper::run(const KinetoOptions& options) {
  out_.rank = ev_.rank;
  out_.world_size = ev_.world_size.value_or(0);
  out_.backend = ev_.backend;
  out_.schema = ev_.schema;
  out_.events = ev_.events;
  for (const ProcessGroupConfig& pg : ev_.pg_config) {
    if (!pg.name.empty() && !pg.ranks.empty()) out_.groups[pg.name] = pg.ranks;
  }
  const Window window = select_window(options);
  std::vector<const GpuEvent*> kept;
  for (const GpuEvent& g : ev_.gpu) {
    if (window.contains(launch_time(g))) kept.push_back(&g);
  }
  std::stable_sort(kept.begin(), kept.end(), [&](const GpuEvent* a, const GpuEvent* b) {
    const double la = launch_time(*a), lb = launch_time(*b);
    return la != lb ? la < lb : a->ts < b->ts;
  });
  const bool any_nccl = std::any_of(kept.begin(), kept.end(), [](const GpuEvent* g) { return g->nccl; });
  if (!any_nccl && (ev_.backend == "gloo" || kept.empty())) {
    emit_host_collectives(window);
    return;
  }
  assign_streams(kept);
  emit_gpu(kept);
}

}  // namespace

KinetoRank read_kineto_file(const std::string& path, const KinetoOptions& options) {
  const KinetoEvents events = parse_kineto_events(path);
  KinetoRank out;
  out.trace.file = path;
  RankMapper(events, out, path).run(options);
  return out;
}

}  // namespace weft
