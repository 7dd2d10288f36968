// The single-GPU calibration sweep and the calibrated re-layout of a lowered schedule.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "executor/lower.h"
#include "executor/schedule_check.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/gemm_waves.h"

namespace weft {
namespace {

// A single-rank collective does no transfer: NCCL still launches a kernel. weft has no model of it;
// this placeholder is what calibration replaces [unverified: order of magnitude of a kernel launch
// plus NCCL's enqueue, a few microseconds].
constexpr Time kSingleRankCollective = Time::us(5);
// Host <-> device copies: PCIe payload rate per lane (PCI-SIG: gen 3 8 GT/s 128b/130b = 0.985 GB/s,
// doubling per generation) x lanes x 0.8 [unverified: typical pinned-memory cudaMemcpy efficiency].
constexpr double kPcieLaneGBps[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
constexpr double kPcieEfficiency = 0.8;

Time seconds_to_time(double s) { return Time::ps(static_cast<int64_t>(std::ceil(s * 1e12))); }

// The sweep's one program, laid out back to back: each op starts when the previous one ends.
struct SweepProgram {
  Lowered& out;
  std::vector<LoweredOp>& ops;
  Time now;

  void add(LoweredOp o, Time t) {
    o.id = static_cast<uint32_t>(ops.size());
    o.duration_ps = t.ps();
    out.predicted.ops.push_back({0, o.id, now.ps(), now.ps(), (now + t).ps()});
    now += t;
    ops.push_back(std::move(o));
  }
};

// bf16 GEMMs: n x n x n for n = 256, 512, ... up to max_gemm, then (max_gemm/2)^2 x k for k = 256,
// 1024, ... up to max_gemm/2.
void add_gemms(SweepProgram& program, const catalogue::GpuSpec& gpu, const Efficiencies& eff, uint64_t max_gemm) {
  std::vector<GemmShape> shapes;
  for (uint64_t n = 256; n <= max_gemm; n *= 2) shapes.push_back({n, n, n, "bf16"});
  for (uint64_t k = 256; k <= max_gemm / 2; k *= 4) shapes.push_back({max_gemm / 2, max_gemm / 2, k, "bf16"});
  for (const GemmShape& g : shapes) {
    LoweredOp o;
    o.kind = LoweredKind::compute;
    o.label = fmt::format("gemm {}x{}x{}", g.m, g.n, g.k);
    o.flops = g.flops();
    o.gemm = g;
    const double bytes = 2.0 * static_cast<double>(g.m * g.k + g.k * g.n + g.m * g.n);
    // Timed with its tile waves and its output's write, as the training model times its GEMMs
    // (workloads/gemm_waves.h).
    const GemmDevice device =
        gemm_device(gpu, compute_rate(gpu, Precision::bf16, OpClass::gemm, eff), gemm_output_bytes(Precision::bf16));
    const double work = gemm_cost(g.m, g.n, g.k, device);
    program.add(o, op_time(gpu, Precision::bf16, OpClass::gemm, work, bytes, eff));
  }
}

// Copies of 1, 4, 16, ... MiB up to max_copy each way: d2d at half the HBM rate (it reads and writes
// HBM), h2d and d2h at the PCIe rate.
void add_copies(SweepProgram& program, const catalogue::GpuSpec& gpu, const Efficiencies& eff, uint64_t max_copy) {
  const double pcie = kPcieLaneGBps[std::clamp(gpu.pcie_generation, 0, 6)] * gpu.pcie_lanes * kPcieEfficiency * 1e9;
  for (const char* dir : {"d2d", "h2d", "d2h"}) {
    for (uint64_t b = 1 << 20; b <= max_copy; b *= 4) {
      LoweredOp o;
      o.kind = LoweredKind::copy;
      o.direction = dir;
      o.bytes = b;
      o.label = fmt::format("copy {} {} MiB", dir, b >> 20);
      const double rate = std::string_view(dir) == "d2d" ? gpu.memory_bandwidth * eff.memory / 2 : pcie;
      program.add(o, seconds_to_time(static_cast<double>(b) / rate));
    }
  }
}

// Single-rank all-reduces of 8, 64, ... B up to 64 KiB: what calibration learns NCCL's launch costs from.
void add_launch_collectives(SweepProgram& program) {
  uint64_t instance = 0;
  for (uint64_t b = 8; b <= 64 * 1024; b *= 8) {
    LoweredOp o;
    o.kind = LoweredKind::collective;
    o.stream = 1;
    o.op = "all_reduce";
    o.bytes = b;
    o.dtype = "float32";
    o.instance = instance++;
    o.algorithm = "ring";
    o.protocol = "simple";
    o.channels = 1;
    o.link = "self";
    o.label = fmt::format("launch all_reduce {} B", b);
    if (!program.ops.empty()) o.deps = {static_cast<uint32_t>(program.ops.size() - 1)};
    program.add(o, kSingleRankCollective);
  }
}

// (rank, id) -> picoseconds: the prediction's durations, replaced by the profile's where it has one.
std::map<std::pair<uint32_t, uint32_t>, int64_t> calibrated_durations(const LoweredSchedule& s, const Predicted& p,
                                                                      const NetworkProfile& profile) {
  std::map<std::pair<uint32_t, uint32_t>, int64_t> dur;
  for (const PredictedOp& o : p.ops) dur[{o.rank, o.id}] = o.end_ps - o.start_ps;
  for (uint32_t r = 0; r < s.ranks(); ++r) {
    for (const LoweredOp& o : s.programs[r]) {
      const uint32_t members =
          o.kind == LoweredKind::collective ? static_cast<uint32_t>(s.comms[o.comm].ranks.size()) : 2;
      if (auto us = calibrated_us(profile, o, members)) dur[{r, o.id}] = std::llround(*us * 1e6);
    }
  }
  return dur;
}

// prev[rank][id]: the op before it on its stream, -1 for a stream's first.
std::vector<std::vector<int32_t>> stream_predecessors(const LoweredSchedule& s) {
  std::vector<std::vector<int32_t>> prev(s.ranks());
  for (uint32_t r = 0; r < s.ranks(); ++r) {
    std::map<uint32_t, int32_t> last;
    for (const LoweredOp& o : s.programs[r]) {
      auto it = last.find(o.stream);
      prev[r].push_back(it == last.end() ? -1 : it->second);
      last[o.stream] = static_cast<int32_t>(o.id);
    }
  }
  return prev;
}

// ps per [rank][id]; ready and end are -1 until known.
struct Layout {
  std::vector<std::vector<int64_t>> ready, start, end;
};

// An op is ready when its stream predecessor and deps have ended; an instance (collective or pair)
// starts when all its members are ready.
// `dur`: (rank, id) -> ps; an op it lacks takes 0.
Layout lay_out(const LoweredSchedule& s, std::map<std::pair<uint32_t, uint32_t>, int64_t> dur) {
  const std::vector<std::vector<int32_t>> prev = stream_predecessors(s);
  Layout l;
  size_t placed = 0, total = 0;
  for (const auto& prog : s.programs) {
    l.ready.emplace_back(prog.size(), -1);
    l.start.emplace_back(prog.size(), 0);
    l.end.emplace_back(prog.size(), -1);
    total += prog.size();
  }
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> waiting;
  for (bool progress = true; progress;) {
    progress = false;
    for (uint32_t r = 0; r < s.ranks(); ++r) {
      for (const LoweredOp& o : s.programs[r]) {
        if (l.ready[r][o.id] >= 0) continue;
        int64_t t = prev[r][o.id] < 0 ? 0 : l.end[r][prev[r][o.id]];
        bool ok = prev[r][o.id] < 0 || t >= 0;
        for (uint32_t d : o.deps) {
          ok = ok && l.end[r][d] >= 0;
          t = std::max(t, l.end[r][d]);
        }
        if (!ok) continue;
        l.ready[r][o.id] = t;
        progress = true;
        const bool shared =
            o.kind == LoweredKind::collective || o.kind == LoweredKind::send || o.kind == LoweredKind::recv;
        auto& members = waiting[shared ? instance_key(r, o) : fmt::format("o{}.{}", r, o.id)];
        members.emplace_back(r, o.id);
        const size_t need = o.kind == LoweredKind::collective ? s.comms[o.comm].ranks.size() : shared ? 2 : 1;
        if (members.size() < need) continue;
        int64_t begin = 0;
        for (auto [mr, mi] : members) begin = std::max(begin, l.ready[mr][mi]);
        for (auto [mr, mi] : members) {
          l.start[mr][mi] = begin;
          l.end[mr][mi] = begin + dur[{mr, mi}];
          ++placed;
        }
      }
    }
  }
  if (placed != total) throw ConfigError("the calibrated layout is stuck: an op waits for partners that never come");
  return l;
}

}  // namespace

Lowered lower_gpu_sweep(const std::string& gpu_name, uint64_t max_gemm, uint64_t max_copy) {
  const catalogue::GpuSpec& gpu = catalogue::gpu(gpu_name);
  const ComputeProfile profile = default_compute_profile();
  const Efficiencies eff = profile.resolve(gpu.name);
  Lowered out;
  LoweredSchedule& s = out.schedule;
  s.name = fmt::format("single-GPU calibration sweep ({})", gpu.name);
  s.source = fmt::format("weft lower --gpu-sweep {}", gpu.name);
  s.gpu = std::string(gpu.name);
  s.comms.push_back({{0}, "other", "self"});
  SweepProgram program{out, s.programs.emplace_back(), Time()};
  add_gemms(program, gpu, eff, max_gemm);
  add_copies(program, gpu, eff, max_copy);
  add_launch_collectives(program);
  check_schedule(s);
  out.predicted.schedule_name = s.name;
  out.predicted.fingerprint = fingerprint(s);
  out.predicted.model = "weft compute model (default profile), PCIe and HBM rates, 5 us per single-rank collective";
  out.predicted.step_ps = program.now.ps();
  return out;
}

Predicted recalibrated(const LoweredSchedule& s, const Predicted& p, const NetworkProfile& profile,
                       const std::string& name) {
  const Layout l = lay_out(s, calibrated_durations(s, p, profile));
  Predicted out = p;
  out.model = name;
  out.ops.clear();
  out.step_ps = 0;
  for (uint32_t r = 0; r < s.ranks(); ++r) {
    for (uint32_t i = 0; i < s.programs[r].size(); ++i) {
      out.ops.push_back({r, i, l.ready[r][i], l.start[r][i], l.end[r][i]});
      out.step_ps = std::max(out.step_ps, l.end[r][i]);
    }
  }
  return out;
}

}  // namespace weft
