#include "executor/lower.h"

#include "collectives/network_calibration.h"
#include "sim/core/names.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "collectives/plan.h"
#include "collectives/sweep.h"
#include "executor/schedule_check.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/training.h"

namespace weft {
namespace {

// self: one rank; intra: every rank's GPU in one host; inter: the data crosses the network.
std::string link_class(const std::vector<uint32_t>& ranks, const Workload& w, const Topology& topology) {
  std::vector<NodeIndex> gpus;
  for (uint32_t r : ranks) gpus.push_back(topology.gpus()[w.gpu_of_rank[r]]);
  return weft::link_class(gpus, topology);  // the simulator's classes, so calibrated series match
}

std::string dtype_for(uint64_t bytes, uint32_t element) {
  if (element == 4 && bytes % 4 == 0) return "float32";
  if (element == 2 && bytes % 2 == 0) return "bf16";
  return "uint8";
}

// The tuner's choice as the schedule records it, the one the simulation ran (a catalogue system's:
// a simple topology's collectives are recorded as the ring they run, by the caller). A plan the
// tuner cannot make is the same ConfigError the simulation gives.
void record_choice(LoweredOp& o, CollectiveOp op, const Topology& topology, const ClusterSpec& spec,
                   const std::vector<uint32_t>& gpus) {
  if (op == CollectiveOp::all_to_all || op == CollectiveOp::send_recv) {
    o.algorithm = "p2p";
    o.protocol = "simple";
    o.channels = 1;
    return;
  }
  if (gpus.size() < 2) {
    o.algorithm = "ring";
    o.protocol = "simple";
    o.channels = 1;
    return;
  }
  const CollectivePlan plan = plan_collective(op, Bytes(o.bytes), topology, spec, gpus);
  o.algorithm = lowercase(to_string(plan.choice.algorithm));
  o.protocol = lowercase(to_string(plan.choice.protocol));
  o.channels = std::max<uint32_t>(1, plan.choice.channels);
}

LoweredOp lower_op(const Workload& w, uint32_t rank, uint32_t index, uint32_t element, const Topology& topology) {
  const Program& p = w.programs[rank];
  const Op& op = p.ops[index];
  LoweredOp o;
  o.id = index;
  o.stream = op.stream;
  o.deps.assign(p.deps.begin() + op.first_dep, p.deps.begin() + op.first_dep + op.dep_count);
  if (op.label < w.labels.size()) o.label = w.labels[op.label];
  o.group = lowercase(to_string(op.group));
  switch (op.kind) {
    case OpKind::compute:
      o.kind = LoweredKind::compute;
      o.duration_ps = op.duration.ps();
      o.flops = op.flops;
      break;
    case OpKind::collective:
      o.kind = LoweredKind::collective;
      o.op = std::string(to_string(op.collective));
      o.bytes = op.bytes.count();
      o.dtype = dtype_for(o.bytes, element);
      o.comm = op.comm;
      o.link = link_class(w.communicators[op.comm].ranks, w, topology);
      break;
    case OpKind::send:
    case OpKind::recv:
      o.kind = op.kind == OpKind::send ? LoweredKind::send : LoweredKind::recv;
      o.peer = op.peer;
      o.tag = op.tag;
      o.bytes = op.bytes.count();
      o.link = link_class({rank, op.peer}, w, topology);
      break;
  }
  return o;
}

}  // namespace

const Scenario& pick_variant(const Scenario& s, const std::string& name) {
  if (name.empty() || name == s.baseline) return s;
  std::vector<std::string> names{s.baseline};
  for (const ScenarioVariant& v : s.compare) {
    if (v.name == name) return *v.scenario;
    names.push_back(v.name);
  }
  throw ConfigError(fmt::format("--variant '{}': the scenario has '{}'", name, fmt::join(names, "', '")));
}

std::optional<GemmShape> equivalent_gemm(double flops, Time duration, const catalogue::GpuSpec* gpu,
                                         const ComputeProfile& profile) {
  if (!gpu || flops <= 0 || duration <= Time()) return std::nullopt;
  const double gemm_rate = peak_flops(*gpu, Precision::bf16) * profile.resolve(gpu->name).gemm;
  if (flops / duration.seconds() < 0.5 * gemm_rate) return std::nullopt;
  const double side = std::cbrt(flops / 2);
  const auto n = static_cast<uint64_t>(std::max(1.0, std::round(side / 64))) * 64;
  return GemmShape{n, n, n, "bf16"};
}

Lowered lower_workload(const Workload& w, const Topology& topology, const ClusterSpec& spec, const std::string& gpu,
                       const ComputeProfile& profile, const ReplayOptions& options) {
  validate(w);
  Lowered out;
  LoweredSchedule& s = out.schedule;
  s.name = w.name;
  s.gpu = gpu;
  const catalogue::GpuSpec* gpu_spec = gpu.empty() ? nullptr : &catalogue::gpu(gpu);
  for (const Communicator& c : w.communicators) {
    s.comms.push_back({c.ranks, lowercase(to_string(c.group)), link_class(c.ranks, w, topology)});
  }
  std::map<std::tuple<uint32_t, CollectiveOp, uint64_t>, LoweredOp> choices;  // one plan per (comm, op, size)
  for (uint32_t rank = 0; rank < w.ranks(); ++rank) {
    auto& ops = s.programs.emplace_back();
    std::map<uint32_t, uint64_t> per_comm;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t> per_pair;
    for (uint32_t i = 0; i < w.programs[rank].ops.size(); ++i) {
      const Op& op = w.programs[rank].ops[i];
      LoweredOp o = lower_op(w, rank, i, 2, topology);
      if (o.kind == LoweredKind::collective) {
        o.instance = per_comm[o.comm]++;
        auto [it, fresh] = choices.try_emplace({op.comm, op.collective, o.bytes}, o);
        if (fresh) {
          std::vector<uint32_t> gpus;
          for (uint32_t r : w.communicators[op.comm].ranks) gpus.push_back(w.gpu_of_rank[r]);
          record_choice(it->second, op.collective, topology, spec, gpus);
        }
        o.algorithm = it->second.algorithm;
        o.protocol = it->second.protocol;
        o.channels = it->second.channels;
      } else if (o.kind == LoweredKind::send) {
        o.instance = per_pair[{rank, o.peer, o.tag}]++;
      } else if (o.kind == LoweredKind::recv) {
        o.instance = per_pair[{o.peer, rank, o.tag}]++;
      } else {
        o.gemm = equivalent_gemm(op.flops, op.duration, gpu_spec, profile);
      }
      ops.push_back(std::move(o));
    }
  }
  check_schedule(s);
  const ReplayResult r = replay(w, topology, spec, options);
  Predicted& p = out.predicted;
  p.schedule_name = s.name;
  p.fingerprint = fingerprint(s);
  p.model = fmt::format("weft replay ({} fabric, {} collectives)", options.fabric, to_string(options.collectives));
  p.step_ps = r.step_time.ps();
  for (uint32_t rank = 0; rank < w.ranks(); ++rank) {
    for (uint32_t i = 0; i < r.ops.timings()[rank].size(); ++i) {
      const OpTiming& t = r.ops.timings()[rank][i];
      p.ops.push_back({rank, i, t.issued.ps(), t.started.ps(), t.ended.ps()});
    }
  }
  return out;
}

namespace {

// `workload: collectives:` — one communicator of every rank, the collectives one after another on one
// stream, each timed as `weft run` times it (alone on the fabric, placed after the previous one).
Lowered lower_collectives(const Scenario& sc) {
  const Topology topology = build_system(sc.system);
  const auto ranks = static_cast<uint32_t>(topology.gpus().size());
  Workload w;
  w.name = sc.name;
  Communicator all;
  for (uint32_t r = 0; r < ranks; ++r) {
    all.ranks.push_back(r);
    w.gpu_of_rank.push_back(r);
  }
  w.add_communicator(all);
  Lowered out;
  LoweredSchedule& s = out.schedule;
  s.name = sc.name;
  s.gpu = sc.system.preset.empty() ? "" : sc.system.cluster.node.gpu;
  s.comms.push_back({all.ranks, "other", link_class(all.ranks, w, topology)});
  s.programs.resize(ranks);
  SimulationOptions sim{sc.simulation()};
  Time now;
  for (size_t i = 0; i < sc.collectives().size(); ++i) {
    const CollectiveSpec& c = sc.collectives()[i];
    LoweredOp o;
    o.id = static_cast<uint32_t>(i);
    o.kind = LoweredKind::collective;
    o.stream = 1;
    if (i > 0) o.deps = {o.id - 1};
    o.op = std::string(to_string(c.op));
    o.bytes = c.size.count();
    o.dtype = dtype_for(o.bytes, 4);  // nccl-tests' default type, float
    o.instance = i;
    o.root = c.ring.root;
    o.link = s.comms[0].link;
    const SweepRow row = sc.system.preset.empty()
                             ? measure_collective(c.op, c.size, c.ring, topology, sim)
                             : measure_planned(c.op, c.size, topology, sc.system.cluster, PlanOptions{}, sim);
    if (sc.system.preset.empty()) {
      o.algorithm = c.op == CollectiveOp::all_to_all ? "p2p" : "ring";
      o.protocol = "simple";
      o.channels = c.ring.channels;
    } else {
      record_choice(o, c.op, topology, sc.system.cluster, all.ranks);
    }
    for (uint32_t r = 0; r < ranks; ++r) {
      s.programs[r].push_back(o);
      out.predicted.ops.push_back({r, o.id, now.ps(), now.ps(), (now + row.time).ps()});
    }
    now += row.time;
  }
  check_schedule(s);
  out.predicted.schedule_name = s.name;
  out.predicted.fingerprint = fingerprint(s);
  out.predicted.model = fmt::format("weft {} fabric, each collective alone (as weft run)", sc.fabric);
  out.predicted.step_ps = now.ps();
  return out;
}

}  // namespace

Lowered lower_scenario(const Scenario& all, const std::string& variant) {
  const Scenario& sc = pick_variant(all, variant);
  Lowered out;
  if (sc.training()) {
    const TrainingWorkload& t = *sc.training();
    const Workload w = t.trace ? load_trace_workload(*t.trace, t.gpu, sc.system.ranks)
                               : generate_training(t.spec, catalogue::gpu(t.gpu), t.profile);
    const Topology topology = build_system(sc.system);
    ReplayOptions options;
    options.simulation() = sc.simulation();
    options.collectives = t.timing;
    out = lower_workload(w, topology, sc.system.cluster, t.gpu, t.profile, options);
  } else if (!sc.collectives().empty()) {
    out = lower_collectives(sc);
  } else {
    throw ConfigError(
        fmt::format("{}: a traffic pattern has no ranks' programs to lower; use a training step "
                    "(workload: model: or trace:) or workload: collectives:",
                    sc.source));
  }
  out.schedule.source = sc.source + (variant.empty() ? "" : fmt::format(" (variant {})", variant));
  return out;
}

}  // namespace weft
