// NodeSpec checks and defaults: what validate() refuses, and the catalogue values a spec's zeros
// stand for. Messages name the field, its value and what is allowed.
#include "topologies/node_checks.h"

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "topologies/catalogue/links.h"

namespace weft {
namespace {

using node_spec::gpu_of;
using node_spec::links_per_switch;
using node_spec::nic_of;
using node_spec::resolved;

[[noreturn]] void fail(const std::string& what) { throw ConfigError("node: " + what); }

// A catalogue lookup whose ConfigError gets the "node: " prefix.
template <class F>
auto lookup(F&& f) -> decltype(f()) {
  return at(SourceLocation{}, "node", f);
}

}  // namespace

namespace node_spec {

const catalogue::GpuSpec& gpu_of(const NodeSpec& s) {
  return lookup([&]() -> const catalogue::GpuSpec& { return catalogue::gpu(s.gpu); });
}

const catalogue::NicSpec& nic_of(const NodeSpec& s) {
  return lookup([&]() -> const catalogue::NicSpec& { return catalogue::nic(s.nic); });
}

// The spec with its "0 = catalogue value" fields taken from the GPU, and no NICs when none is named.
NodeSpec resolved(const NodeSpec& spec) {
  const catalogue::GpuSpec& gpu = gpu_of(spec);
  NodeSpec s = spec;
  if (s.nvlink_generation == 0) s.nvlink_generation = gpu.nvlink_generation;
  if (s.nvlink_links == 0) s.nvlink_links = gpu.nvlink_links;
  if (s.pcie_generation == 0) s.pcie_generation = gpu.pcie_generation;
  if (s.nic.empty()) s.nics = 0;
  return s;
}

// The NVSwitch generation that switches NVLink `nvlink` (0 when none does), for error messages.
}  // namespace node_spec

namespace {

int nvswitch_for(int nvlink) {
  for (const auto& g : catalogue::nvswitch_generations()) {
    if (g.nvlink_generation == nvlink) return g.generation;
  }
  return 0;
}

}  // namespace

namespace node_spec {
// Links from one GPU to each of `switches` NVSwitch chips: as even as possible, the extra links on
// the outermost chips first (0, last, 1, last-1, ...). DGX H100's 18 links over 4 chips come out
// 5/4/4/5, as in NVIDIA's DGX H100 diagrams (Hot Chips 34, 2022, "NVLink-Network Switch").
std::vector<int> links_per_switch(int links, int switches) {
  std::vector<int> n(static_cast<size_t>(switches), links / switches);
  for (int k = 0; k < links % switches; ++k) ++n[static_cast<size_t>(k % 2 == 0 ? k / 2 : switches - 1 - k / 2)];
  return n;
}

}  // namespace node_spec

namespace {
// --- validation ------------------------------------------------------------------------------

void check_counts(const NodeSpec& s) {
  if (s.gpus < 1) fail(fmt::format("gpus = {}; expected at least 1", s.gpus));
  if (s.cpu_sockets != 1 && s.cpu_sockets != 2) fail(fmt::format("cpu_sockets = {}; expected 1 or 2", s.cpu_sockets));
  if (s.gpus_per_pcie_switch < 0) {
    fail(fmt::format("gpus_per_pcie_switch = {}; expected 0 (GPUs on the CPU root complex) or more",
                     s.gpus_per_pcie_switch));
  }
  if (s.nics < 0) fail(fmt::format("nics = {}; expected 0 or more", s.nics));
  if (s.nic_ports < 1) fail(fmt::format("nic_ports = {}; expected 1 or more", s.nic_ports));
  if (s.pcie_lanes != 1 && s.pcie_lanes != 2 && s.pcie_lanes != 4 && s.pcie_lanes != 8 && s.pcie_lanes != 16) {
    fail(fmt::format("pcie_lanes = {}; expected 1, 2, 4, 8 or 16", s.pcie_lanes));
  }
  const std::pair<const char*, int> zero_means_default[] = {{"nvlink_generation", s.nvlink_generation},
                                                            {"nvlink_links", s.nvlink_links},
                                                            {"nvswitch_generation", s.nvswitch_generation},
                                                            {"nvswitches", s.nvswitches},
                                                            {"pcie_generation", s.pcie_generation}};
  for (auto [field, value] : zero_means_default) {
    if (value < 0) fail(fmt::format("{} = {}; expected 0 (the catalogue value or none) or more", field, value));
  }
}

void check_pcie(const NodeSpec& s, const catalogue::GpuSpec& gpu) {
  if (s.pcie_lanes > gpu.pcie_lanes) {
    fail(fmt::format("pcie_lanes = {}; the {} has {} lanes (expected at most {})", s.pcie_lanes, gpu.name,
                     gpu.pcie_lanes, gpu.pcie_lanes));
  }
  if (s.pcie_generation > gpu.pcie_generation) {
    fail(fmt::format("pcie_generation = {}; the {} is a PCIe {} device (expected {} or lower)", s.pcie_generation,
                     gpu.name, gpu.pcie_generation, gpu.pcie_generation));
  }
  lookup([&] { return catalogue::pcie(s.pcie_generation, s.pcie_lanes, s.max_payload); });  // generation, MPS
  if (s.nics > 0) nic_of(s);  // throws for an unknown NIC name
}

void check_nvlink(const NodeSpec& s, const catalogue::GpuSpec& gpu) {
  if (gpu.nvlink_generation == 0) {
    fail(fmt::format("the {} has no NVLink; layout {}{} needs it (use layout pcie without nvlink_bridges)", gpu.name,
                     to_string(s.layout), s.nvlink_bridges ? " with nvlink_bridges" : ""));
  }
  lookup([&]() -> const catalogue::NvlinkGeneration& { return catalogue::nvlink(s.nvlink_generation); });
  if (s.nvlink_links < 1 || s.nvlink_links > gpu.nvlink_links) {
    fail(fmt::format("nvlink_links = {}; the {} has {} NVLink links (expected 1 to {})", s.nvlink_links, gpu.name,
                     gpu.nvlink_links, gpu.nvlink_links));
  }
}

// NVSwitch layouts: enough chips of the generation that switches the GPUs' NVLink, enough ports.
void check_nvswitches(const NodeSpec& s, int gpus_per_domain) {
  if (s.nvswitches < 1) fail(fmt::format("nvswitches = 0; layout {} needs at least 1", to_string(s.layout)));
  if (s.nvswitch_generation == 0) {
    fail(fmt::format("nvswitch_generation = 0; layout {} needs one (NVLink {} is switched by generation {})",
                     to_string(s.layout), s.nvlink_generation, nvswitch_for(s.nvlink_generation)));
  }
  const auto& sw =
      lookup([&]() -> const catalogue::NvswitchGeneration& { return catalogue::nvswitch(s.nvswitch_generation); });
  if (sw.nvlink_generation != s.nvlink_generation) {
    fail(fmt::format("nvswitch_generation = {} switches NVLink {}, but the GPUs use NVLink {} (expected {})",
                     s.nvswitch_generation, sw.nvlink_generation, s.nvlink_generation,
                     nvswitch_for(s.nvlink_generation)));
  }
  if (s.nvlink_links < s.nvswitches) {
    fail(fmt::format("nvlink_links = {} < nvswitches = {}; every GPU needs a link to every NVSwitch chip",
                     s.nvlink_links, s.nvswitches));
  }
  int busiest = links_per_switch(s.nvlink_links, s.nvswitches)[0] * gpus_per_domain;
  if (busiest > sw.ports) {
    fail(fmt::format("nvswitches = {}: a chip would need {} ports, NVSwitch generation {} has {}", s.nvswitches,
                     busiest, s.nvswitch_generation, sw.ports));
  }
}

void check_layout(const NodeSpec& s, const catalogue::GpuSpec& gpu) {
  bool switched = s.layout == NodeLayout::nvswitch || s.layout == NodeLayout::nvl_rack;
  if (!switched && (s.nvswitches != 0 || s.nvswitch_generation != 0)) {
    fail(
        fmt::format("nvswitches = {}, nvswitch_generation = {} with layout {}; NVSwitch chips exist only in "
                    "layouts nvswitch and nvl-rack (expected 0)",
                    s.nvswitches, s.nvswitch_generation, to_string(s.layout)));
  }
  if (s.nvlink_bridges && s.layout != NodeLayout::pcie) {
    fail(fmt::format("nvlink_bridges with layout {}; bridges exist only in layout pcie", to_string(s.layout)));
  }
  if (s.layout != NodeLayout::pcie || s.nvlink_bridges) check_nvlink(s, gpu);
  switch (s.layout) {
    case NodeLayout::nvswitch:
      check_nvswitches(s, s.gpus);
      break;
    case NodeLayout::nvl_rack:
      if (s.gpus_per_host < 1 || s.gpus % s.gpus_per_host != 0) {
        fail(
            fmt::format("gpus = {} with gpus_per_host = {}; layout nvl-rack needs whole compute trays (gpus a "
                        "multiple of gpus_per_host >= 1)",
                        s.gpus, s.gpus_per_host));
      }
      check_nvswitches(s, s.gpus);
      break;
    case NodeLayout::cube_mesh:
      if (s.gpus != 8) fail(fmt::format("gpus = {}; layout cube-mesh has exactly 8", s.gpus));
      if (s.nvlink_links != 6) fail(fmt::format("nvlink_links = {}; layout cube-mesh wires 6 per GPU", s.nvlink_links));
      break;
    case NodeLayout::pcie:
      if (s.nvlink_bridges && s.gpus % 2 != 0) {
        fail(fmt::format("gpus = {} with nvlink_bridges; bridges join GPU pairs (expected an even count)", s.gpus));
      }
      break;
  }
}

}  // namespace

void validate(const NodeSpec& spec) {
  check_counts(spec);
  NodeSpec s = resolved(spec);
  const catalogue::GpuSpec& gpu = gpu_of(s);
  check_pcie(s, gpu);
  check_layout(s, gpu);
}

}  // namespace weft
