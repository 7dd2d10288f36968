#include "bench/validation_rows.h"

#include <fmt/format.h>
#include <regex>
#include <string_view>

#include "collectives/nccl_model.h"
#include "sim/core/errors.h"

namespace weft::bench {
namespace {

// A published system and how the catalogue describes it. `sets` hold only facts of the machine as its
// vendor or the source describes it (NICs, slots, P2P), never anything read from its timings.
struct SystemDescription {
  const char* needle;  // a part of the `system` column
  const char* preset;  // "" when weft cannot describe it
  std::vector<std::string> sets;
  const char* why;  // the source of the description, or why there is none
  // How the source's own benchmark script ran nccl-tests, when its rows' notes do not say: -g (GPUs per
  // host thread) and NCCL_ALGO. 1 and "" when the source does not run it that way.
  uint32_t gpus_per_thread = 1;
  const char* algorithm = "";
};

// Azure's AI-benchmarking-guide (@8fd0c6e, Benchmarks/NCCLBandwidth.py) runs
// `NCCL_ALGO=<algo> ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8 -n 40` in one process, and its
// results pages publish "the NCCL AllReduce (NVLS algorithm) tests in-place" column. The A100 has no
// NVLink SHARP, so NVLS cannot be what ran there (the rows' notes): -g 8 only.
constexpr uint32_t kAzureGpusPerThread = 8;

const std::vector<SystemDescription>& descriptions() {
  static const std::vector<SystemDescription> kTable = {
      // DeepSeek-V3's technical report (arXiv:2412.19437, section 3.1): H800 nodes of 8 GPUs on
      // NVLink/NVSwitch, one 400 Gb/s InfiniBand NIC (CX7) per GPU, the row's nic column too.
      {"DeepEP", "dgx-h100", {"node.gpu=h800"}, "H800 nodes with 8x 400G IB, as DGX H100 with H800s"},
      {"DGX H100", "dgx-h100", {}, "the preset"},
      // Azure ND H100 v5 / ND A100 v4 (learn.microsoft.com, sizes): HGX H100 / A100 boards with 8 x 400G
      // NDR / 8 x 200G HDR InfiniBand, the wiring of the DGX presets.
      {"Azure ND H100 v5", "dgx-h100", {}, "HGX H100 with 8x 400G NDR IB, as DGX H100", kAzureGpusPerThread, "NVLS"},
      {"Azure ND A100 v4", "dgx-a100", {}, "HGX A100 with 8x 200G HDR IB, as DGX A100", kAzureGpusPerThread},
      {"Azure ND H200 v5", "hgx-h200", {}, "the preset", kAzureGpusPerThread, "NVLS"},
      {"H200", "hgx-h200", {}, "the preset"},
      // AWS p6-b200 (AWS instance page): 8 B200 on NVLink5 switches, the DGX B200 board; EFA unused on one node.
      {"p6-b200", "dgx-b200", {}, "HGX B200, as DGX B200 (one node: EFA unused)"},
      {"p5.48xlarge", "aws-p5", {}, "the preset"},
      {"p4de", "aws-p4de", {}, "the preset"},
      // The row's own columns: NVLink4 + NVSwitch, H20 GPUs (18 NVLink4 links, as H100 SXM).
      {"H20", "dgx-h100", {"node.gpu=h20"}, "HGX H20: the H100 board with H20 GPUs"},
      {"A100 node", "dgx-a100", {}, "the preset"},
      // The row's nic column: one 100G IB NIC per node; the node's NVLink topology is not stated, so
      // the DGX-1 hybrid cube mesh is an assumption.
      {"V100 cluster", "dgx1-v100", {"node.nics=1"}, "DGX-1 V100 with one 100G EDR NIC per node (mesh assumed)"},
      {"V100-SXM2", "dgx1-v100", {}, "the preset"},
      {"2080 Ti", "pcie-2080ti-nvlink", {}, "the preset"},
      // The row: P2P enabled by the patched driver, on an EPYC 7773X (one socket, 128 PCIe 4.0 lanes:
      // every GPU in an x16 slot of the root complex).
      {"RTX 4090",
       "pcie-4090x8",
       {"node.p2p=true", "node.pcie_lanes=16", "node.cpu_sockets=1"},
       "RTX 4090s in x16 slots of one EPYC socket, P2P on"},
  };
  return kTable;
}

const SystemDescription& description_of(const std::string& system) {
  for (const SystemDescription& d : descriptions()) {
    if (system.find(d.needle) != std::string::npos) return d;
  }
  throw ConfigError("not in the catalogue: no preset describes this system");
}

// The algorithm a measurement forced: the label names exactly one ("Ring", "NVLS",
// "Ring (NCCL_NVLS_ENABLE=0)"); labels that describe a mix or hearsay force nothing.
std::optional<Algorithm> forced_algorithm(std::string label) {
  if (const size_t paren = label.find('('); paren != std::string::npos) label.resize(paren);
  while (!label.empty() && label.back() == ' ') label.pop_back();
  if (label.empty() || label.find_first_of(" ,/") != std::string::npos) return std::nullopt;
  try {
    return parse_algorithm(label);
  } catch (const ConfigError&) {
    return std::nullopt;
  }
}

// A whole number or a decimal from a column, or a ConfigError naming the column and the text.
double number(const Row& r, const char* column) {
  const std::string& text = r.at(column);
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  if (text.empty() || used != text.size()) {
    throw ConfigError(fmt::format("column {}: expected a number, got '{}'", column, text));
  }
  return value;
}

double measured_time_us(const Row& r, CollectiveOp op, uint64_t bytes, uint32_t gpus) {
  if (!r.at("time_us").empty()) return number(r, "time_us");
  if (r.at("busbw_GBps").empty()) throw ConfigError("the row has neither time_us nor busbw_GBps");
  const double busbw = number(r, "busbw_GBps");
  if (busbw <= 0) throw ConfigError("busbw_GBps is 0 and time_us is empty: no time to compare with");
  return bytes * bus_bandwidth_factor(op, gpus) / (busbw * 1e3);  // nccl-tests' definition of busbw
}

// The notes' figure before or after `label`, e.g. "4096 tokens/batch", "hidden 7168", "top-8 experts".
uint32_t note_figure(const Row& r, const std::string& pattern, const char* what) {
  std::smatch m;
  if (!std::regex_search(r.at("notes"), m, std::regex(pattern))) {
    throw ConfigError(fmt::format("DeepEP row: the notes do not give the {}", what));
  }
  return static_cast<uint32_t>(std::stoul(m[1].str()));
}

// DeepEP's benchmark shape from the notes; 256 experts is its tests' default (--num-experts,
// tests/legacy/test_internode.py), which the README's tables use. Normal rows publish DeepEP's
// "bottleneck bandwidth": the bytes it counts per rank over the kernel's time.
DescribedRow describe_ep_row(const Row& r, DescribedRow out) {
  EpCase ep;
  const std::string& op = r.at("collective");
  ep.phase = op.starts_with("moe_combine") ? EpPhase::combine : EpPhase::dispatch;
  ep.kernel = op.find("low-latency") != std::string::npos ? EpKernel::low_latency : EpKernel::normal;
  ep.routing.tokens = note_figure(r, R"((\d+) tokens/batch)", "tokens per batch");
  ep.routing.hidden = note_figure(r, R"(hidden (\d+))", "hidden size");
  ep.routing.topk = note_figure(r, R"(top-(\d+) experts)", "top-k experts");
  if (r.at("notes").find("groups") != std::string::npos) {
    ep.routing.topk_groups = note_figure(r, R"(top-(\d+) groups)", "top-k groups");
  }
  out.gpus = static_cast<uint32_t>(number(r, "gpus"));
  const auto per_node = static_cast<uint32_t>(number(r, "gpus_per_node"));
  out.spec = resolve_system(out.preset, static_cast<int>(number(r, "nodes")), out.sets, "--set");
  ep.exchange = ep_exchange(ep.kernel, ep.phase, ep.routing, out.gpus, per_node);
  const EpExchange& x = ep.exchange;
  out.bytes = static_cast<uint64_t>(x.counted_bytes);
  out.measured_us = !r.at("time_us").empty() ? number(r, "time_us") : x.counted_bytes / (number(r, "busbw_GBps") * 1e3);
  out.setup += fmt::format("; {} tokens x top-{} of {} experts{}, {} bandwidth counted as DeepEP does",
                           ep.routing.tokens, ep.routing.topk, ep.routing.experts,
                           ep.routing.topk_groups ? fmt::format(" in {} node groups", ep.routing.topk_groups) : "",
                           x.counted_as);
  out.ep = std::move(ep);
  return out;
}

}  // namespace

std::string nccl_version_in(const std::string& notes) {
  static const std::regex kVersion(R"(NCCL (\d+\.\d+\.\d+))");
  std::smatch m;
  return std::regex_search(notes, m, kVersion) ? m[1].str() : "";
}

DescribedRow describe_row(const Row& r) {
  const SystemDescription& d = description_of(r.at("system"));
  if (*d.preset == '\0') throw ConfigError(d.why);
  DescribedRow out;
  out.preset = d.preset;
  out.sets = d.sets;
  out.setup = d.why;
  if (r.at("collective").starts_with("moe_")) return describe_ep_row(r, std::move(out));
  out.op = parse_collective_op(r.at("collective"), "collective");
  if (r.at("bytes").empty()) throw ConfigError("the row has no size");
  out.bytes = static_cast<uint64_t>(number(r, "bytes"));
  out.gpus = static_cast<uint32_t>(number(r, "gpus"));
  const int nodes = static_cast<int>(number(r, "nodes"));
  const int per_node = static_cast<int>(number(r, "gpus_per_node"));
  if (nodes == 1 && per_node < system_spec(d.preset).node.gpus) {
    out.sets.push_back(fmt::format("node.gpus={}", per_node));  // the GPUs the run used
  }
  out.spec = resolve_system(d.preset, nodes, out.sets, "--set");
  std::optional<Algorithm> algorithm = forced_algorithm(r.at("algorithm_if_known"));
  if (!algorithm && *d.algorithm != '\0') algorithm = parse_algorithm(d.algorithm);
  if (algorithm) {
    out.plan.overrides.algorithm = algorithm;
    out.setup += fmt::format("; NCCL_ALGO={} as measured", to_string(*algorithm));
  }
  if (const std::string v = nccl_version_in(r.at("notes")); !v.empty()) {
    try {
      out.plan.version = nccl_version(v).name;
      out.setup += v == out.plan.version ? fmt::format("; NCCL {}", v)
                                         : fmt::format("; NCCL {} (the tuning.cc of {})", v, out.plan.version);
    } catch (const ConfigError&) {
      out.setup += fmt::format("; NCCL {} not in the tuner: newest constants", v);
    }
  }
  // One process driving several GPUs (nccl-tests -g N): NCCL launches their kernels one after the other
  // from one thread (group.cc doLaunches); the prediction charges it (collectives/host_issue.h).
  static const std::regex kGpusPerThread(R"(-g ([0-9]+))");
  std::smatch g;
  out.gpus_per_thread = std::regex_search(r.at("notes"), g, kGpusPerThread)
                            ? static_cast<uint32_t>(std::stoul(g[1].str()))
                            : d.gpus_per_thread;
  if (out.gpus_per_thread > 1) {
    out.setup += fmt::format("; -g {0}: one thread launches {0} GPUs' kernels in turn", out.gpus_per_thread);
  }
  out.measured_us = measured_time_us(r, out.op, out.bytes, out.gpus);
  return out;
}

}  // namespace weft::bench
