// Link catalogue: the rates, packet overheads and latencies of NVLink, NVSwitch, PCIe, InfiniBand
// and Ethernet, each number with its source beside it in links.cpp. Lookups throw ConfigError
// naming what is known when asked for something that is not.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "sim/core/units.h"
#include "topologies/topology.h"

namespace weft::catalogue {

// One NVLink generation, per link and per direction.
struct NvlinkGeneration {
  int generation = 0;          // 2..5
  Bandwidth link_rate;         // data rate per link per direction
  int links_per_gpu = 0;       // on the flagship GPU of that generation
  uint32_t payload_bytes = 0;  // payload per packet/flit group the overhead applies to
  uint16_t header_bytes = 0;   // per-packet overhead on the wire (headers + CRC)
  std::string_view first_gpu;  // e.g. "V100"
};
std::span<const NvlinkGeneration> nvlink_generations();
const NvlinkGeneration& nvlink(int generation);
// A LinkSpec for `links` NVLink links of one generation bundled into one cable (GPU <-> NVSwitch
// or GPU <-> GPU); latency is the per-hop NVLink latency.
LinkSpec nvlink_link(int generation, int links = 1);

struct NvswitchGeneration {
  int generation = 0;  // 1..4
  int ports = 0;       // NVLink ports per switch chip
  int nvlink_generation = 0;
  bool reduces = false;           // in-switch reduction and multicast (NVLS), generation 3 and later
  Time latency;                   // port-to-port
  std::string_view first_system;  // e.g. "DGX-2"
};
std::span<const NvswitchGeneration> nvswitch_generations();
const NvswitchGeneration& nvswitch(int generation);

// One PCIe link of a generation and lane count, per direction.
struct PcieLink {
  int generation = 0;           // 3..6
  int lanes = 0;                // 1, 2, 4, 8, 16
  Bandwidth line_rate;          // GT/s x lanes, before encoding
  Bandwidth data_rate;          // after 128b/130b (gen 3-5) or FLIT/FEC (gen 6)
  uint32_t max_payload = 256;   // bytes per TLP (MPS)
  uint16_t tlp_overhead = 0;    // bytes per TLP: framing, sequence, header, LCRC (+ DLLP share)
  Bandwidth effective() const;  // data_rate * max_payload / (max_payload + tlp_overhead)
};
// Throws ConfigError for a generation outside 3..6, lanes not in {1,2,4,8,16}, or a max payload
// that is not a power of two in 128..4096.
PcieLink pcie(int generation, int lanes, uint32_t max_payload = 256);
LinkSpec pcie_link(int generation, int lanes, uint32_t max_payload = 256);

// InfiniBand 4x port speeds.
struct InfinibandSpeed {
  std::string_view name;  // "edr", "hdr", "ndr", "xdr"
  Bandwidth data_rate;    // 4x port, per direction, after encoding
  double lane_signalling_gbps = 0;
  std::string_view encoding;
};
std::span<const InfinibandSpeed> infiniband_speeds();
const InfinibandSpeed& infiniband(std::string_view name);
// LRH + BTH + ICRC + VCRC per packet of `mtu` payload bytes (an IBA path MTU: 256 ... 4096).
LinkSpec infiniband_link(std::string_view name, double cable_metres = 3, uint32_t mtu = 4096);

// Ethernet at 10/25/40/50/100/200/400/800 Gb/s carrying RoCEv2.
std::span<const int> ethernet_speeds_gbps();
Bandwidth ethernet(int gbps);
// Per-packet wire overhead of RoCEv2 over Ethernet, IPv4, untagged: Ethernet + IP + UDP + BTH +
// ICRC + FCS + preamble/SFD + inter-frame gap.
uint16_t roce_overhead_bytes();
// RoCEv2 link with the given RDMA MTU (256..4096).
LinkSpec ethernet_link(int gbps, uint32_t mtu = 4096, double cable_metres = 3);

// Latencies of the parts a path crosses.
struct Latencies {
  Time ib_switch;           // port-to-port, InfiniBand (Quantum class)
  Time ethernet_switch;     // port-to-port, shallow-buffer cut-through (Spectrum / Tomahawk class)
  Time deep_buffer_switch;  // port-to-port, VOQ chassis (Jericho class)
  Time nic;                 // one NIC traversal (host to wire or wire to host)
  Time cable_per_metre;     // propagation in fibre or copper
  Time pcie_switch;         // PCIe switch traversal
  Time pcie_root_complex;   // CPU root complex traversal
  Time nvswitch;            // NVSwitch traversal
  Time nvlink_hop;          // GPU NVLink port to port (serdes + controller)
  Time cpu_interconnect;    // socket to socket (UPI / Infinity Fabric)
};
const Latencies& latencies();

// Inter-socket links (UPI / xGMI), per direction.
Bandwidth cpu_interconnect_rate();

}  // namespace weft::catalogue
