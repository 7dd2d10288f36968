#include "workloads/traces/kineto_collectives.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "sim/core/errors.h"
#include "workloads/traces/trace_conventions.h"

namespace weft {
namespace {

// "[0, 1, 3]" -> {0, 1, 3}; empty when it is not such a list.
std::vector<uint32_t> parse_rank_list(const std::string& text) {
  std::vector<uint32_t> ranks;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    if (*p >= '0' && *p <= '9') {
      uint32_t r = 0;
      auto [next, ec] = std::from_chars(p, end, r);
      if (ec != std::errc{} || r >= (1u << 17)) return {};  // as kMaxWorld
      ranks.push_back(r);
      p = next;
    } else {
      ++p;
    }
  }
  return ranks;
}

}  // namespace

KinetoComm KinetoCommResolver::from_args(const CollArgs& a, std::optional<CollectiveOp> kernel_op,
                                         const std::string& where) {
  KinetoComm c;
  auto op = collective_from_name(a.name);
  if (!op) op = kernel_op;
  if (!op) throw ConfigError(fmt::format("{}: collective '{}' is not one weft knows", where, a.name));
  const uint32_t elem = dtype_bytes(a.dtype);
  if (elem == 0 && a.in_nelems) throw ConfigError(fmt::format("{}: dtype '{}' has no known size", where, a.dtype));
  c.op = *op;
  const uint64_t in = a.in_nelems.value_or(0);
  c.bytes = nccl_bytes_from_kineto(c.op, in, a.out_nelems.value_or(in), elem).count();
  if (c.op == CollectiveOp::send_recv) {
    const bool recv = a.name.find("recv") != std::string::npos;
    c.kind = recv ? TraceNodeKind::recv : TraceNodeKind::send;
    const auto peer = recv ? a.src_rank : a.dst_rank;
    if (!peer) throw ConfigError(fmt::format("{}: {} without `{}`", where, a.name, recv ? "Src Rank" : "Dst Rank"));
    c.peer = static_cast<uint32_t>(std::min<uint64_t>(*peer, UINT32_MAX));
    c.bytes = in * elem;
    return c;
  }
  const std::vector<uint32_t> ranks = parse_rank_list(a.pg_ranks);
  if (!ranks.empty()) {
    c.group = a.pg_name.empty() ? a.pg_ranks : a.pg_name;
    groups_[c.group] = ranks;
  } else if (!a.pg_name.empty()) {
    for (const ProcessGroupConfig& pg : ev_.pg_config) {
      if (pg.name == a.pg_name && !pg.ranks.empty()) {
        c.group = pg.name;
        groups_[c.group] = pg.ranks;
      }
    }
  }
  return c;
}

KinetoComm KinetoCommResolver::of_kernel(const GpuEvent& g, const std::string& where) {
  std::optional<CollectiveOp> kernel_op = collective_from_name(ev_.names[g.name]);
  if (g.args >= 0) return from_args(ev_.args[static_cast<size_t>(g.args)], kernel_op, where);
  // The host ops around the launch: args first, else the innermost with a shape.
  const HostCommEvent* with_args = nullptr;
  const HostCommEvent* with_shape = nullptr;
  const HostCommEvent* annotation = nullptr;
  if (g.correlation) {
    if (auto it = ev_.launches.find(*g.correlation); it != ev_.launches.end()) {
      for (const HostCommEvent& h : ev_.host_comms) {
        if (h.tid != it->second.tid || it->second.ts < h.ts || it->second.ts > h.ts + h.dur) continue;
        if (h.args >= 0 && (!with_args || h.ts >= with_args->ts)) with_args = &h;
        if (h.shape_bytes > 0 && (!with_shape || h.ts >= with_shape->ts)) with_shape = &h;
        if (ev_.names[h.name].starts_with("nccl:")) annotation = &h;
      }
    }
  }
  if (with_args) return from_args(ev_.args[static_cast<size_t>(with_args->args)], kernel_op, where);
  if (annotation && (!kernel_op || *kernel_op == CollectiveOp::send_recv)) {
    kernel_op = collective_from_name(ev_.names[annotation->name]);
  }
  if (!kernel_op) throw ConfigError(fmt::format("{}: NCCL kernel '{}' names no collective", where, ev_.names[g.name]));
  if (*kernel_op == CollectiveOp::send_recv) {
    throw ConfigError(
        fmt::format("{}: point-to-point kernel without `Src Rank` / `Dst Rank` args: the peer is "
                    "unknown",
                    where));
  }
  KinetoComm c;
  c.op = *kernel_op;
  c.bytes = with_shape ? with_shape->shape_bytes : 0;
  // record_param_comms' first input of an all-gather is the per-rank shard: nccl-tests' size is x n.
  if (c.op == CollectiveOp::all_gather) c.bytes *= std::max<uint32_t>(ev_.world_size.value_or(1), 1);
  return c;
}

KinetoComm KinetoCommResolver::of_gloo_op(const HostCommEvent& h, const std::string& where) const {
  KinetoComm c;
  c.op = *collective_from_name(std::string_view(ev_.names[h.name]).substr(5));
  if (c.op == CollectiveOp::send_recv) throw ConfigError(where + ": gloo point-to-point ops name no peer");
  if (h.shape_bytes == 0) {
    throw ConfigError(where +
                      ": no size (no Input Dims / Input type): the trace was exported without shapes "
                      "(record_shapes=False, or a torch built without Kineto, whose exporter drops them)");
  }
  c.bytes = h.shape_bytes;
  // The first input of an all-gather is the rank's shard: nccl-tests' size is x n.
  if (c.op == CollectiveOp::all_gather) c.bytes *= std::max<uint32_t>(ev_.world_size.value_or(1), 1);
  return c;
}

}  // namespace weft
