// Node builders: one server (or one NVLink rack) added to a Topology from a NodeSpec: its GPUs, the
// NVLink / NVSwitch scale-up fabric, the PCIe tree (CPU sockets, PCIe switches, lanes), and its NIC
// ports, with each GPU's NIC affinity recorded. Cluster builders (clusters.h) cable the NIC ports.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topologies/topology.h"

namespace weft {

enum class NodeLayout : uint8_t {
  nvswitch,   // HGX / DGX: every GPU has links to every NVSwitch chip of the node
  cube_mesh,  // DGX-1: 8 GPUs, NVLink hybrid cube mesh, no NVSwitch
  nvl_rack,   // GB200 NVL72 class: compute trays of `gpus_per_host` GPUs, one NVLink domain per rack
  pcie,       // PCIe box: GPUs on PCIe switches or the root complex, optional NVLink bridges in pairs
};

// The layout as YAML spells it: nvswitch, cube-mesh, nvl-rack, pcie.
std::string_view to_string(NodeLayout layout);

struct NodeSpec {
  NodeLayout layout = NodeLayout::nvswitch;
  std::string gpu = "h100-sxm";  // catalogue::gpu() name
  int gpus = 8;                  // GPUs in the node (in the rack for nvl_rack)
  int gpus_per_host = 8;         // nvl_rack: GPUs per compute tray (a tray is a host)

  // Scale-up. 0 = take the GPU's catalogue value.
  int nvlink_generation = 0;
  int nvlink_links = 0;         // NVLink links per GPU
  int nvswitch_generation = 0;  // 0 = none (cube_mesh, pcie)
  int nvswitches = 0;           // NVSwitch chips per node (per rack for nvl_rack)
  bool nvlink_bridges = false;  // pcie layout: bridges GPU 2i <-> 2i+1 with all the GPU's links

  // PCIe tree.
  int pcie_generation = 0;       // 0 = the GPU's catalogue value
  int pcie_lanes = 16;           // lanes per GPU
  uint32_t max_payload = 256;    // PCIe MPS, bytes
  int gpus_per_pcie_switch = 2;  // 0 = GPUs straight on the CPU root complex
  int cpu_sockets = 2;           // 1 or 2; with 2, PCIe switches alternate between sockets
  bool p2p = true;               // PCIe peer-to-peer between GPUs (off: staged through host memory)

  // Scale-out.
  std::string nic = "cx7";  // catalogue::nic() name; "" or nics = 0 for none
  int nics = 8;             // NICs per node (per host for nvl_rack), on the PCIe switches
  int nic_ports = 1;        // network ports per NIC used as separate planes
  // The NCCL_PROTO the platform's own software sets when the user leaves it unset (a vendor's net
  // plugin that cannot deliver LL/LL128's flags in order): "" = NCCL's default, else a protocol name.
  std::string nccl_proto;
};

// What a cluster builder needs from a node it added.
struct BuiltNode {
  std::vector<NodeIndex> gpus;       // in local order
  std::vector<NodeIndex> nic_ports;  // NIC-major, then port (= plane): nic_ports[n * nic_ports + p]
  int hosts = 1;                     // hosts used (compute trays for nvl_rack)
};

// Throws ConfigError saying which field is wrong and what is allowed (unknown GPU or NIC name,
// zero lanes, GPU count that does not fit the layout, NVSwitch generation without NVLink, ...).
void validate(const NodeSpec& spec);

// Adds one node; its hosts are numbered first_host.., its scale-up domain is `domain`. Node names
// are prefixed with `prefix` (e.g. "n3/gpu5").
BuiltNode add_node(Topology& t, const NodeSpec& spec, int first_host, int domain, const std::string& prefix);

// A topology of one node alone.
Topology build_node(const NodeSpec& spec);

}  // namespace weft
