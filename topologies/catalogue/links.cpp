// Link catalogue data. Each number names its source; "[unverified: ...]" marks a recollection or an
// assumption to calibrate, "[R]" a figure the shared reference (fabric_models.md) itself marks as
// recalled rather than checked.
#include "topologies/catalogue/links.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/names.h"

namespace weft::catalogue {
namespace {

// 1 GB/s (decimal) = 8 Gb/s.
constexpr Bandwidth gbytes_per_s(uint64_t v) { return Bandwidth::gbps(8 * v); }

// NVLink per link and direction; links per GPU and totals from NVIDIA's NVLink spec table
// (nvidia.com/en-us/data-center/nvlink: 300 / 600 / 900 GB/s and 1.8 TB/s per GPU, bidirectional),
// as collected in fabric_models.md 2.6.
// Packet overhead: NVLink 1/2 move 16-byte flits, a packet being one header flit (carrying the CRC)
// and up to 16 data flits, so 256 B of payload cost 272 B on the wire [unverified: recollection of
// Foley & Danskin, "Ultra-Performance Pascal GPU and NVLink Interconnect", IEEE Micro 37(2), 2017].
// NVIDIA has not published the packet format of NVLink 3-5; we keep 256 B + 16 B for them as a
// documented assumption [unverified: assumption, calibrate with nvbandwidth].
constexpr NvlinkGeneration kNvlink[] = {
    // 25 GB/s per link per direction: Alibaba Cloud ACK doc on V100 NVLink 2 (fabric_models.md 2.6).
    {2, gbytes_per_s(25), 6, 256, 16, "V100"},
    // 12 links x 25 GB/s = 300 GB/s per direction = 600 GB/s bidirectional (NVIDIA A100 datasheet).
    {3, gbytes_per_s(25), 12, 256, 16, "A100"},
    // 25 GB/s nominal; NVIDIA's NVLink health check expects 26,562 MB/s per link on H100
    // (docs.nvidia.com/health-validation/reference/checks/nvlink). We keep the nominal figure.
    {4, gbytes_per_s(25), 18, 256, 16, "H100"},
    // 50 GB/s nominal (53,125 MB/s expected link speed, same NVIDIA page); 18 x 100 GB/s = 1.8 TB/s.
    {5, gbytes_per_s(50), 18, 256, 16, "B200"},
};

// Per-traversal NVSwitch latency: NVIDIA publishes none. 300 ns is an assumption of the order of a
// single-chip cut-through switch [unverified: assumption, calibrate].
constexpr Time kNvswitchLatency = Time::ns(300);

constexpr NvswitchGeneration kNvswitch[] = {
    // 18 NVLink 2 ports per chip, 12 chips in DGX-2 [unverified: NVIDIA NVSwitch whitepaper (2018)
    // recollection].
    {1, 18, 2, false, kNvswitchLatency, "DGX-2"},
    // 36 NVLink 3 ports per chip, 6 chips in DGX A100 [unverified: NVIDIA HGX A100 material recollection].
    {2, 36, 3, false, kNvswitchLatency, "DGX A100"},
    // 64 NVLink 4 ports with SHARP reduction and multicast engines (nvidia.com/en-us/data-center/nvlink;
    // developer.nvidia.com blog "Upgrading Multi-GPU Interconnectivity with the Third-Generation NVSwitch").
    {3, 64, 4, true, kNvswitchLatency, "DGX H100"},
    // 72 NVLink 5 ports per chip: 72 GPUs x 18 links / 18 switch chips (9 trays x 2) in GB200 NVL72
    // (NVIDIA GB200 NVL72 page). The "144 ports" in fabric_models.md 2.6 are per tray of two chips.
    {4, 72, 5, true, kNvswitchLatency, "GB200 NVL72"},
};

// InfiniBand 4x ports: fabric_models.md 2.3 (infiniband.jp 2022 table; aicplight glossary).
// HDR/NDR lanes run 256b/257b transcoding + RS(544,514) FEC over PAM4 like 200/400GbE:
// 50 x 257/256 x 544/514 = 53.125 Gb/s [unverified: the reference marks the HDR+ encodings [R]].
constexpr InfinibandSpeed kInfiniband[] = {
    {"edr", Bandwidth::gbps(100), 25.78125, "64b/66b, NRZ"},
    {"hdr", Bandwidth::gbps(200), 53.125, "256b/257b + RS(544,514) FEC, PAM4"},
    {"ndr", Bandwidth::gbps(400), 106.25, "256b/257b + RS(544,514) FEC, PAM4"},
    {"xdr", Bandwidth::gbps(800), 212.5, "FEC, PAM4 [R]"},
};

// IEEE 802.3 Ethernet MAC rates (10GBASE-R ... 800GBASE-R), per direction after line coding.
constexpr std::array<int, 8> kEthernetGbps = {10, 25, 40, 50, 100, 200, 400, 800};

// RoCEv2, IPv4, untagged: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 = 62 B of headers,
// plus preamble/SFD 8 + inter-frame gap 12 on the wire = 82 B (fabric_models.md 2.4; IEEE 802.3,
// IBTA RoCEv2 Annex A17).
constexpr uint16_t kRoceOverhead = 82;

// InfiniBand packet without GRH: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 B (IBA Vol. 1, fabric_models.md 2.3).
constexpr uint16_t kIbHeaders = 26;

constexpr Latencies kLatencies = {
    // NVIDIA has quoted ~130 ns for Quantum (HDR) switches; third-party pages give 150 ns and 330 ns for
    // Quantum-2 (fabric_models.md 2.3, 2.7) [unverified: NVIDIA QM8700 user manual recollection].
    .ib_switch = Time::ns(130),
    // Shallow-buffer cut-through (Spectrum / Tomahawk class): 300-800 ns [R] (fabric_models.md 2.7);
    // we take 600 ns [unverified: midpoint-ish choice].
    .ethernet_switch = Time::ns(600),
    // Deep-buffer VOQ chassis (Jericho class): "several us" [R] (fabric_models.md 2.7) [unverified: 3 us].
    .deep_buffer_switch = Time::us(3),
    // ConnectX-6 VPI: "sub-600ns latency" (docs.nvidia.com/networking/display/ConnectX6EN/Introduction;
    // Lenovo Press LP1195); consistent with ~1-2 us one-way ib_write_lat, two NICs (fabric_models.md 2.7).
    .nic = Time::ns(600),
    // ~5 ns/m in fibre (fabric_models.md 2.7, besthub/Cisco): light at c/1.47 covers 1 m in 4.9 ns.
    .cable_per_metre = Time::ns(5),
    // Broadcom PEX89048 (PCIe 5 switch): 115 ns port to port (HighPoint Rocket 1600 note citing the
    // Broadcom figure, highpoint-tech.com/post/the-latency-war).
    .pcie_switch = Time::ns(115),
    // [unverified: assumption] about half of the ~0.5 us device-to-host-memory PCIe read round trip
    // measured by Neugebauer et al., "Understanding PCIe performance for end host networking", SIGCOMM'18.
    .pcie_root_complex = Time::ns(200),
    .nvswitch = kNvswitchLatency,
    // [unverified: assumption] serdes + link controller of two NVLink ports; NVIDIA publishes no figure.
    .nvlink_hop = Time::ns(100),
    // [unverified: assumption] remote minus local DRAM latency on two-socket Xeon / EPYC is ~50-100 ns.
    .cpu_interconnect = Time::ns(100),
};

// Intel Xeon 4th gen (Sapphire Rapids): UPI 2.0 at 16 GT/s, up to 4 links (Intel product brief). A UPI
// link carries 2 bytes per transfer per direction (Intel quotes 20.8 GB/s for 10.4 GT/s UPI 1.0), so
// 32 GB/s; we assume 3 links between the sockets = 96 GB/s per direction [unverified: arithmetic on
// Intel's per-link convention; measured cross-socket copies reach less].
constexpr Bandwidth kCpuInterconnect = gbytes_per_s(3 * 32);

// PCIe. Gen 3-5: 128b/130b (PCI-SIG; Intel AN 708). Gen 6 (FLIT mode): 256-byte flits of 236 B TLP
// bytes + 6 B DLP + 8 B CRC + 6 B FEC (PCIe 6.0 base spec, as summarised e.g. at
// muditbhargava66.github.io notes "Gen6 vs Legacy PCIe"), so 236/256 of the line carries TLPs.
constexpr uint64_t kPcieGtPerLane[] = {8, 16, 32, 64};  // GT/s, generations 3..6

// Bytes per TLP besides its payload. Intel "Understanding PCI Express Throughput" (AN 708; intel.com
// .../docs/programmable/683541/current/protocol-overhead.html): framing + 2 B sequence + 3-4 DW header
// + 4 B LCRC, 5 DW with a 3-DW header. Gen 3+ folds the sequence number into the 4-byte STP token, so
// with the 4-DW header of 64-bit DMA addresses: 4 STP + 16 header + 4 LCRC = 24 B.
constexpr uint16_t kTlpBytes = 24;
// DLLPs (Ack, UpdateFC) are 2 DW = 8 B (AN 708). Assumption: one Ack and one UpdateFC per 4 TLPs,
// 16 B / 4 = 4 B per TLP [unverified: Ack coalescing is implementation-defined]. SKP ordered sets
// (~0.03 %) are ignored.
constexpr uint16_t kDllpShare = 4;
// FLIT mode: no per-TLP framing, sequence or LCRC (the flit's CRC covers it) and DLLPs ride in the DLP
// bytes, so a TLP adds only its 4-DW header [unverified: detail from PCIe 6.0 summaries].
constexpr uint16_t kFlitTlpBytes = 16;

Time cable(double metres, std::string_view what) {
  if (!(metres >= 0)) throw ConfigError(fmt::format("{}: cable of {} m; expected a length >= 0", what, metres));
  return Time::ps(std::llround(static_cast<double>(kLatencies.cable_per_metre.ps()) * metres));
}

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

bool is_power_of_two(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

// An InfiniBand path MTU (IBA Vol. 1, 256 to 4096 bytes, powers of two), as InfiniBand and RoCEv2 use.
uint32_t path_mtu(uint32_t mtu, std::string_view what) {
  if (mtu < 256 || mtu > 4096 || !is_power_of_two(mtu)) {
    throw ConfigError(fmt::format("{} {}; expected 256, 512, 1024, 2048 or 4096", what, mtu));
  }
  return mtu;
}

}  // namespace

std::span<const NvlinkGeneration> nvlink_generations() { return kNvlink; }

const NvlinkGeneration& nvlink(int generation) {
  for (const NvlinkGeneration& g : kNvlink) {
    if (g.generation == generation) return g;
  }
  throw ConfigError(fmt::format("nvlink: generation {}; expected 2, 3, 4 or 5", generation));
}

LinkSpec nvlink_link(int generation, int links) {
  const NvlinkGeneration& g = nvlink(generation);
  if (links < 1) throw ConfigError(fmt::format("nvlink: {} links; expected at least 1", links));
  LinkSpec spec;
  spec.kind = LinkKind::nvlink;
  spec.rate = Bandwidth::bps(g.link_rate.bps() * static_cast<uint64_t>(links));
  spec.latency = kLatencies.nvlink_hop;
  spec.mtu = g.payload_bytes;
  spec.header_bytes = g.header_bytes;
  spec.generation = static_cast<uint8_t>(g.generation);
  return spec;
}

std::span<const NvswitchGeneration> nvswitch_generations() { return kNvswitch; }

const NvswitchGeneration& nvswitch(int generation) {
  for (const NvswitchGeneration& g : kNvswitch) {
    if (g.generation == generation) return g;
  }
  throw ConfigError(fmt::format("nvswitch: generation {}; expected 1, 2, 3 or 4", generation));
}

Bandwidth PcieLink::effective() const {
  uint128 scaled = static_cast<uint128>(data_rate.bps()) * max_payload / (max_payload + tlp_overhead);
  return Bandwidth::bps(static_cast<uint64_t>(scaled));
}

PcieLink pcie(int generation, int lanes, uint32_t max_payload) {
  if (generation < 3 || generation > 6) {
    throw ConfigError(fmt::format("pcie: generation {}; expected 3, 4, 5 or 6", generation));
  }
  if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16) {
    throw ConfigError(fmt::format("pcie: {} lanes; expected 1, 2, 4, 8 or 16", lanes));
  }
  if (max_payload < 128 || max_payload > 4096 || !is_power_of_two(max_payload)) {
    throw ConfigError(fmt::format(
        "pcie: max payload {} B; expected a power of two from 128 to 4096 (128, 256, ..., 4096)", max_payload));
  }
  PcieLink link;
  link.generation = generation;
  link.lanes = lanes;
  uint64_t line_bps = kPcieGtPerLane[generation - 3] * 1'000'000'000ULL * static_cast<uint64_t>(lanes);
  link.line_rate = Bandwidth::bps(line_bps);
  bool flit = generation >= 6;
  link.data_rate = Bandwidth::bps(flit ? line_bps * 236 / 256 : line_bps * 128 / 130);
  link.max_payload = max_payload;
  link.tlp_overhead = flit ? kFlitTlpBytes : kTlpBytes + kDllpShare;
  return link;
}

LinkSpec pcie_link(int generation, int lanes, uint32_t max_payload) {
  PcieLink p = pcie(generation, lanes, max_payload);
  LinkSpec spec;
  spec.kind = LinkKind::pcie;
  spec.rate = p.data_rate;
  spec.latency = kLatencies.pcie_switch;
  spec.mtu = p.max_payload;
  spec.header_bytes = p.tlp_overhead;
  spec.generation = static_cast<uint8_t>(p.generation);
  spec.lanes = static_cast<uint8_t>(p.lanes);
  return spec;
}

std::span<const InfinibandSpeed> infiniband_speeds() { return kInfiniband; }

const InfinibandSpeed& infiniband(std::string_view name) {
  std::vector<std::string_view> known;
  for (const InfinibandSpeed& s : kInfiniband) {
    if (iequals(s.name, name)) return s;
    known.push_back(s.name);
  }
  throw ConfigError(
      fmt::format("infiniband: unknown speed '{}' (known: {}){}", name, join_names(known), did_you_mean(name, known)));
}

// Switch port-to-port latency is not included: the cluster builder adds latencies().ib_switch to the
// links that enter a switch, so a NIC-to-NIC cable is not charged for a switch it does not cross.
LinkSpec infiniband_link(std::string_view name, double cable_metres, uint32_t mtu) {
  LinkSpec spec;
  spec.kind = LinkKind::infiniband;
  spec.rate = infiniband(name).data_rate;
  spec.latency = cable(cable_metres, "infiniband");
  spec.mtu = path_mtu(mtu, "infiniband: MTU");
  spec.header_bytes = kIbHeaders;
  return spec;
}

std::span<const int> ethernet_speeds_gbps() { return kEthernetGbps; }

Bandwidth ethernet(int gbps) {
  if (std::ranges::find(kEthernetGbps, gbps) == kEthernetGbps.end()) {
    throw ConfigError(fmt::format("ethernet: {} Gb/s; expected one of {} Gb/s", gbps, fmt::join(kEthernetGbps, ", ")));
  }
  return Bandwidth::gbps(static_cast<uint64_t>(gbps));
}

uint16_t roce_overhead_bytes() { return kRoceOverhead; }

// As for InfiniBand, switch latency is added by the cluster builder, not here.
LinkSpec ethernet_link(int gbps, uint32_t mtu, double cable_metres) {
  LinkSpec spec;
  spec.kind = LinkKind::ethernet;
  spec.rate = ethernet(gbps);
  spec.mtu = path_mtu(mtu, "ethernet: RoCE MTU");  // RoCEv2 uses the InfiniBand path MTUs
  spec.header_bytes = kRoceOverhead;
  spec.latency = cable(cable_metres, "ethernet");
  return spec;
}

const Latencies& latencies() { return kLatencies; }

Bandwidth cpu_interconnect_rate() { return kCpuInterconnect; }

}  // namespace weft::catalogue
