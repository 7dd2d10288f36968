#include "executor/nccl_tests_measured.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <fstream>

#include "collectives/network_calibration.h"
#include "scenarios/nccl_tests_compare.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// "Ring/LL x4" -> {ring, ll}; "pairwise p2p" -> {p2p, ""}: the names the calibration's series use.
std::pair<std::string, std::string> algorithm_of(const std::string& label) {
  const size_t slash = label.find('/'), space = label.find(' ');
  if (slash == std::string::npos) return {"p2p", ""};
  return {lowercase(label.substr(0, slash)), lowercase(label.substr(slash + 1, space - slash - 1))};
}

}  // namespace

bool looks_like_json(const std::string& path) {
  std::ifstream in(path);
  char c = 0;
  while (in.get(c)) {
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{';
  }
  return false;
}

Measured measured_from_nccl_tests(const std::string& log_path, const CollectiveRequest& request) {
  const Comparison c = compare_nccl_tests(log_path, request, false);
  CollectiveRequest sized = request;
  sized.nodes = c.nodes;
  const PreparedCollective prepared = prepare_collective(sized);
  const std::string link = link_class(prepared.topology.gpus(), prepared.topology);
  Measured m;
  m.schedule_name = log_path;
  m.ranks = static_cast<uint32_t>(c.log.ranks);
  m.gpu = std::string(prepared.system->node.gpu);
  m.executor = "nccl-tests";
  m.mode = "nccl-choice";
  m.repeats = 1;
  m.environment = {{"host", fmt::format("{} x{}", c.system, c.nodes)}, {"nccl", c.log.nccl_version}};
  uint32_t id = 0;
  for (const ComparedRow& r : c.rows) {
    MeasuredOp o;
    o.id = id;
    o.op.id = id;
    o.op.kind = LoweredKind::collective;
    o.op.bytes = r.measured.bytes;
    o.op.op = c.op;
    o.op.instance = id++;
    std::tie(o.op.algorithm, o.op.protocol) = algorithm_of(r.predicted.algorithm);
    o.op.link = link;
    o.comm_ranks = m.ranks;
    o.executed = "nccl-tests " + c.op;
    o.start_us = {0.0};
    o.end_us = {r.measured_us};
    m.ops.push_back(std::move(o));
  }
  return m;
}

}  // namespace weft
