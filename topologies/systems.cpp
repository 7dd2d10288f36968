#include "topologies/systems.h"

#include <fmt/format.h>
#include <array>
#include <charconv>

#include "sim/core/errors.h"
#include "sim/core/field_table.h"
#include "sim/core/names.h"
#include "sim/core/units.h"

namespace weft {
namespace {

// --- Presets. Wiring facts are from the vendors' system guides named beside each. -------------

NodeSpec hgx(std::string gpu, int nvswitch_generation, int nvswitches, std::string nic, int gpus_per_pcie_switch) {
  NodeSpec n;
  n.layout = NodeLayout::nvswitch;
  n.gpu = std::move(gpu);
  n.gpus = 8;
  n.nvswitch_generation = nvswitch_generation;
  n.nvswitches = nvswitches;
  n.gpus_per_pcie_switch = gpus_per_pcie_switch;  // each with its GPUs' NICs beside them
  n.cpu_sockets = 2;
  n.nic = std::move(nic);
  n.nics = 8;  // one scale-out NIC per GPU (compute fabric)
  return n;
}

NetworkSpec rail_network(NetworkTechnology technology, int radix) {
  NetworkSpec net;
  net.shape = NetworkShape::rail_optimized;
  net.technology = technology;
  net.radix = radix;
  return net;
}

// DGX H100 user guide: 8 H100 SXM5, 4 third-generation NVSwitch chips (18 NVLink4 links per GPU),
// 8 ConnectX-7 400 Gb/s compute NICs, 2 Intel Xeon 8480C sockets, PCIe gen 5. DGX SuperPOD H100
// reference architecture: rail-optimised NDR InfiniBand on QM9700 (64 x 400G) switches. Each GPU
// shares a PCIe switch with its own ConnectX-7 only (PIX in `nvidia-smi topo -m`; user guide table 6).
ClusterSpec dgx_h100() {
  return {"dgx-h100", hgx("h100-sxm", 3, 4, "cx7", 1), 1, rail_network(NetworkTechnology::infiniband, 64)};
}

// HGX H200: the H100 baseboard with H200 GPUs (141 GB HBM3e); commonly deployed with Spectrum-X
// RoCE at 400G per GPU (NVIDIA Spectrum-X reference architecture), 64-port 800G switches split 2x400G
// modelled as radix 64.
ClusterSpec hgx_h200() {
  return {"hgx-h200", hgx("h200", 3, 4, "cx7", 1), 1, rail_network(NetworkTechnology::roce, 64)};
}

// DGX A100 user guide: 8 A100 SXM4 80 GB, 6 second-generation NVSwitch chips (12 NVLink3 links per
// GPU, 2 per switch), 8 ConnectX-6 HDR 200 Gb/s compute NICs, 4 PCIe gen 4 switches each with 2 GPUs
// and 2 NICs, 2 AMD EPYC 7742 sockets. SuperPOD A100 RA: rail-optimised HDR on QM8700 (40 x 200G).
ClusterSpec dgx_a100() {
  return {"dgx-a100", hgx("a100-80gb", 2, 6, "cx6", 2), 1, rail_network(NetworkTechnology::infiniband, 40)};
}

// DGX B200 user guide: 8 B200, 2 NVLink 5 switch chips (8 x 18 = 144 links = 2 x 72 ports),
// 8 ConnectX-7 400 Gb/s compute NICs, 2 Intel Xeon 8570 sockets; NDR rail-optimised fabric.
ClusterSpec dgx_b200() {
  return {"dgx-b200", hgx("b200", 4, 2, "cx7", 1), 1, rail_network(NetworkTechnology::infiniband, 64)};
}

// GB200 NVL72 (NVIDIA product page / GB200 NVL72 reference): 18 compute trays of 2 Grace CPUs and
// 4 B200-class GPUs, 9 NVLink switch trays of 2 chips (18 chips), every GPU with one NVLink5 link to
// each chip; 4 ConnectX-7 400G NICs per tray (one per GPU) for scale-out.
ClusterSpec gb200_nvl72() {
  NodeSpec n;
  n.layout = NodeLayout::nvl_rack;
  n.gpu = "gb200";
  n.gpus = 72;
  n.gpus_per_host = 4;
  n.nvswitch_generation = 4;
  n.nvswitches = 18;
  n.gpus_per_pcie_switch = 0;
  n.cpu_sockets = 2;
  n.nic = "cx7";
  n.nics = 4;
  return {"gb200-nvl72", n, 1, rail_network(NetworkTechnology::infiniband, 64)};
}

// DGX-1 with V100 system architecture white paper: 8 V100 SXM2 in an NVLink hybrid cube mesh, 4 PCIe
// gen 3 switches (2 GPUs each), 4 x 100 Gb/s EDR InfiniBand NICs (ConnectX-4 in the original; the
// catalogue's nearest is ConnectX-6, run at 100 Gb/s here), 2 Xeon sockets.
ClusterSpec dgx1_v100() {
  NodeSpec n;
  n.layout = NodeLayout::cube_mesh;
  n.gpu = "v100";
  n.gpus = 8;
  n.gpus_per_pcie_switch = 2;
  n.cpu_sockets = 2;
  n.nic = "cx6";
  n.nics = 4;
  NetworkSpec net = rail_network(NetworkTechnology::infiniband, 36);  // EDR Switch-IB 2: 36 ports
  net.port_gbps = 100;
  return {"dgx1-v100", n, 1, net};
}

// A consumer box: 8 RTX 4090 in x8 slots of a two-socket board (PCIe 4.0 x8 each, no PCIe switch),
// peer-to-peer disabled by the GeForce driver, one 25 GbE NIC, nodes joined by one Ethernet switch.
ClusterSpec pcie_4090() {
  NodeSpec n;
  n.layout = NodeLayout::pcie;
  n.gpu = "rtx-4090";
  n.gpus = 8;
  n.pcie_generation = 4;
  n.pcie_lanes = 8;
  n.gpus_per_pcie_switch = 0;
  n.cpu_sockets = 2;
  n.p2p = false;
  n.nic = "eth-25g";
  n.nics = 1;
  NetworkSpec net;
  net.shape = NetworkShape::single_switch;
  net.technology = NetworkTechnology::ethernet;
  return {"pcie-4090x8", n, 1, net};
}

// 8 RTX 3090 on PCIe 4.0 x16 behind two PCIe switches, NVLink bridges on pairs (0-1, 2-3, ...),
// PCIe P2P off (GeForce); one 100 GbE RoCE NIC.
ClusterSpec pcie_3090_nvlink() {
  NodeSpec n;
  n.layout = NodeLayout::pcie;
  n.gpu = "rtx-3090";
  n.gpus = 8;
  n.pcie_generation = 4;
  n.pcie_lanes = 16;
  n.gpus_per_pcie_switch = 4;
  n.cpu_sockets = 2;
  n.nvlink_bridges = true;
  n.p2p = false;
  n.nic = "eth-100g";
  n.nics = 1;
  NetworkSpec net;
  net.shape = NetworkShape::single_switch;
  net.technology = NetworkTechnology::roce;
  return {"pcie-3090x8-nvlink", n, 1, net};
}

// A workstation with two RTX 2080 Ti joined by an NVLink bridge (Turing whitepaper: 2 NVLink 2 links),
// both on the CPU's PCIe 3.0 x16 slots; one 10 GbE port.
ClusterSpec pcie_2080ti_pair() {
  NodeSpec n;
  n.layout = NodeLayout::pcie;
  n.gpu = "rtx-2080ti";
  n.gpus = 2;
  n.gpus_per_pcie_switch = 0;
  n.cpu_sockets = 1;
  n.nvlink_bridges = true;
  n.nic = "eth-10g";
  n.nics = 1;
  NetworkSpec net;
  net.shape = NetworkShape::single_switch;
  net.technology = NetworkTechnology::ethernet;
  return {"pcie-2080ti-nvlink", n, 1, net};
}

// AWS p4de.24xlarge (AWS instance page): 8 A100 80 GB on NVSwitch, 400 Gb/s of EFA as 4 x 100G.
ClusterSpec aws_p4de() {
  NodeSpec n = hgx("a100-80gb", 2, 6, "efa", 2);
  n.nics = 4;
  // aws-ofi-nccl sets NCCL_PROTO=simple at init when the EFA endpoint cannot deliver 128-byte
  // aligned writes in order (v1.8.1 src/platform-aws.c configure_nccl_proto; exempted on p5 only,
  // aws/aws-ofi-nccl#280); a p4d log shows it: "Setting FI_OPT_EFA_SENDRECV_IN_ORDER_ALIGNED_128_BYTES
  // not supported. ... Setting NCCL_PROTO to "simple"" (aws/aws-ofi-nccl#889).
  n.nccl_proto = "Simple";
  NetworkSpec net;
  net.shape = NetworkShape::fat_tree;
  net.technology = NetworkTechnology::roce;  // EFA's SRD is RDMA over Ethernet: the RoCE overheads are close
  return {"aws-p4de", n, 1, net};
}

// AWS p5.48xlarge (AWS instance page): 8 H100 on NVSwitch, 3,200 Gb/s of EFA (32 x 100G), modelled
// as one 400G EFA port per GPU.
ClusterSpec aws_p5() {
  NodeSpec n = hgx("h100-sxm", 3, 4, "efa", 1);
  NetworkSpec net;
  net.shape = NetworkShape::fat_tree;
  net.technology = NetworkTechnology::roce;
  net.port_gbps = 400;
  return {"aws-p5", n, 1, net};
}

constexpr std::array kPresets = {
    SystemPreset{"dgx-h100", "DGX H100: 8x H100 SXM, 4 NVSwitch gen3 (NVLS), 8x 400G NDR IB, rail-optimised", dgx_h100},
    SystemPreset{"hgx-h200", "HGX H200: 8x H200, 4 NVSwitch gen3 (NVLS), 8x 400G RoCE, rail-optimised", hgx_h200},
    SystemPreset{"dgx-a100", "DGX A100: 8x A100 80GB, 6 NVSwitch gen2, 8x 200G HDR IB, rail-optimised", dgx_a100},
    SystemPreset{"dgx-b200", "DGX B200: 8x B200, 2 NVLink5 switch chips, 8x 400G NDR IB, rail-optimised", dgx_b200},
    SystemPreset{"gb200-nvl72", "GB200 NVL72 rack: 72 GPUs in one NVLink5 domain, 4x 400G IB per tray", gb200_nvl72},
    SystemPreset{"dgx1-v100", "DGX-1 V100: 8x V100 in an NVLink2 hybrid cube mesh, 4x 100G EDR IB", dgx1_v100},
    SystemPreset{"pcie-4090x8", "8x RTX 4090 on PCIe 4.0 x8, no P2P, 25 GbE TCP", pcie_4090},
    SystemPreset{"pcie-3090x8-nvlink", "8x RTX 3090 on PCIe 4.0 x16 with NVLink bridge pairs, 100G RoCE",
                 pcie_3090_nvlink},
    SystemPreset{"pcie-2080ti-nvlink", "2x RTX 2080 Ti on PCIe 3.0 x16 with an NVLink bridge, 10 GbE",
                 pcie_2080ti_pair},
    SystemPreset{"aws-p4de", "AWS p4de.24xlarge: 8x A100 80GB on NVSwitch, 4x 100G EFA", aws_p4de},
    SystemPreset{"aws-p5", "AWS p5.48xlarge: 8x H100 on NVSwitch, 3200G EFA as 8x 400G", aws_p5},
};

// --- Field overrides ----------------------------------------------------------------------------

NodeLayout to_layout(std::string_view key, std::string_view text) {
  if (text == "nvswitch") return NodeLayout::nvswitch;
  if (text == "cube-mesh") return NodeLayout::cube_mesh;
  if (text == "nvl-rack") return NodeLayout::nvl_rack;
  if (text == "pcie") return NodeLayout::pcie;
  throw ConfigError(
      fmt::format("{}: '{}' is not a layout (expected nvswitch, cube-mesh, nvl-rack or pcie)", key, text));
}

std::string_view layout_name(NodeLayout layout) { return to_string(layout); }

NetworkShape to_shape(std::string_view /*key*/, std::string_view text) { return parse_network_shape(text); }
NetworkTechnology to_technology(std::string_view /*key*/, std::string_view text) {
  return parse_network_technology(text);
}
std::string_view shape_name(NetworkShape shape) { return to_string(shape); }
std::string_view technology_name(NetworkTechnology technology) { return to_string(technology); }

using F = Field<ClusterSpec>;
using C = ClusterSpec;
using N = NodeSpec;
using W = NetworkSpec;

// One line per knob: key, unit, what it is (the structs' comments in nodes.h and clusters.h).
constexpr std::array kFields = {
    field<C, &C::nodes>("nodes", "", "nodes of the system (racks for nvl-rack)"),
    choice<C, to_layout, layout_name, &C::node, &N::layout>("node.layout", "nvswitch | cube-mesh | nvl-rack | pcie"),
    field<C, &C::node, &N::gpu>("node.gpu", "", "catalogue GPU (h100-sxm, rtx-4090, ...)"),
    field<C, &C::node, &N::gpus>("node.gpus", "", "GPUs in the node (in the rack for nvl-rack)"),
    field<C, &C::node, &N::gpus_per_host>("node.gpus_per_host", "", "nvl-rack: GPUs per compute tray"),
    field<C, &C::node, &N::nvlink_generation>("node.nvlink_generation", "", "NVLink generation (0 = none)"),
    field<C, &C::node, &N::nvlink_links>("node.nvlink_links", "", "NVLink links per GPU"),
    field<C, &C::node, &N::nvswitch_generation>("node.nvswitch_generation", "", "NVSwitch generation (0 = none)"),
    field<C, &C::node, &N::nvswitches>("node.nvswitches", "", "NVSwitch chips per node (per rack for nvl-rack)"),
    field<C, &C::node, &N::nvlink_bridges>("node.nvlink_bridges", "", "pcie: NVLink bridges GPU 2i <-> 2i+1"),
    field<C, &C::node, &N::pcie_generation>("node.pcie_generation", "", "PCIe generation (0 = the GPU's)"),
    field<C, &C::node, &N::pcie_lanes>("node.pcie_lanes", "lanes", "PCIe lanes per GPU"),
    field<C, &C::node, &N::max_payload>("node.max_payload", "bytes", "PCIe max payload size (MPS)"),
    field<C, &C::node, &N::gpus_per_pcie_switch>("node.gpus_per_pcie_switch", "",
                                                 "GPUs per PCIe switch (0 = on the CPU's root complex)"),
    field<C, &C::node, &N::cpu_sockets>("node.cpu_sockets", "", "CPU sockets (1 or 2)"),
    field<C, &C::node, &N::p2p>("node.p2p", "", "PCIe peer-to-peer between GPUs (false: staged through the host)"),
    field<C, &C::node, &N::nic>("node.nic", "", "catalogue NIC (cx7, eth-100g, ...; \"\" for none)"),
    field<C, &C::node, &N::nics>("node.nics", "", "NICs per node (per host for nvl-rack)"),
    field<C, &C::node, &N::nic_ports>("node.nic_ports", "", "ports per NIC, each its own network plane"),
    field<C, &C::node, &N::nccl_proto>("node.nccl_proto", "",
                                       "NCCL_PROTO the platform's net plugin sets (\"\" = NCCL's default)"),
    choice<C, to_shape, shape_name, &C::network, &W::shape>("network.shape",
                                                            "single-switch | fat-tree | rail-optimized"),
    choice<C, to_technology, technology_name, &C::network, &W::technology>("network.technology",
                                                                           "infiniband | roce | ethernet"),
    field<C, &C::network, &W::port_gbps>("network.port_gbps", "Gb/s", "link rate (0 = the NIC's port rate)"),
    field<C, &C::network, &W::radix>("network.radix", "ports", "ports per switch"),
    field<C, &C::network, &W::oversubscription>("network.oversubscription", "", "leaf downlinks per uplink"),
    field<C, &C::network, &W::tiers>("network.tiers", "", "switch tiers (0 = the fewest that fit)"),
    field<C, &C::network, &W::mtu>("network.mtu", "bytes", "RDMA MTU"),
    field<C, &C::network, &W::nic_cable_metres>("network.nic_cable_metres", "m", "cable from NIC to leaf"),
    field<C, &C::network, &W::switch_cable_metres>("network.switch_cable_metres", "m", "cable between switch tiers"),
    field<C, &C::network, &W::sharp>("network.sharp", "", "SHARP in-network reduction (InfiniBand HDR and later)"),
};

constexpr auto kFieldKeys = [] {
  std::array<std::string_view, kFields.size()> keys{};
  for (size_t i = 0; i < kFields.size(); ++i) keys[i] = kFields[i].key;
  return keys;
}();

constexpr auto kPresetNames = [] {
  std::array<std::string_view, kPresets.size()> names{};
  for (size_t i = 0; i < kPresets.size(); ++i) names[i] = kPresets[i].name;
  return names;
}();

}  // namespace

std::span<const SystemPreset> system_presets() { return kPresets; }

ClusterSpec system_spec(std::string_view name) {
  for (const SystemPreset& p : kPresets) {
    if (p.name == name) return p.spec();
  }
  throw ConfigError(fmt::format("system: unknown '{}' (known: {}){}", name, join_names(kPresetNames),
                                did_you_mean(name, kPresetNames)));
}

std::span<const std::string_view> override_keys() { return kFieldKeys; }

std::span<const Field<ClusterSpec>> system_fields() { return kFields; }

void set_field(ClusterSpec& spec, std::string_view key, std::string_view value) {
  for (const Field<ClusterSpec>& f : kFields) {
    if (f.key == key) return f.set(spec, key, value);
  }
  throw ConfigError(
      fmt::format("system: no field '{}' (fields: {}){}", key, join_names(kFieldKeys), did_you_mean(key, kFieldKeys)));
}

ClusterSpec resolve_system(std::string_view name, int nodes, std::span<const std::string> sets,
                           std::string_view set_option) {
  ClusterSpec spec = system_spec(name);
  if (nodes > 0) spec.nodes = nodes;
  for (const std::string& set : sets) {
    const size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError(fmt::format("{0}: '{1}' is not KEY=VALUE (e.g. {0} node.pcie_lanes=8)", set_option, set));
    }
    set_field(spec, std::string_view(set).substr(0, eq), std::string_view(set).substr(eq + 1));
  }
  return spec;
}

}  // namespace weft
