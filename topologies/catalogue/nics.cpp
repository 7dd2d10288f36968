// NIC catalogue data. Port rates are per port and direction; "ports" counts the ports weft uses, not
// the cage count. "[unverified: ...]" marks a recollection or an assumption to calibrate.
#include "topologies/catalogue/nics.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/names.h"

namespace weft::catalogue {
namespace {

// ConnectX-6 VPI: "sub-600ns latency" (docs.nvidia.com/networking/display/ConnectX6EN/Introduction;
// Lenovo Press LP1195). Later ConnectX parts publish no comparable figure; we assume the same
// [unverified: assumption for CX-7, CX-8 and BlueField-3].
constexpr Time kConnectxLatency = Time::ns(600);

constexpr NicSpec kNics[] = {
    // ConnectX-6 VPI user manual (docs.nvidia.com/networking, ConnectX-6 VPI / EN): up to 200 Gb/s HDR
    // InfiniBand or 200GbE per port, RoCE, PCIe Gen 3/4 x16 (200 Gb/s needs Gen 4 x16). One port used.
    {.name = "cx6",
     .description = "NVIDIA ConnectX-6 VPI, 1 x HDR 200 Gb/s / 200GbE",
     .ports = 1,
     .port_rate = Bandwidth::gbps(200),
     .infiniband = true,
     .roce = true,
     .pcie_generation = 4,
     .pcie_lanes = 16,
     .latency = kConnectxLatency},
    // NVIDIA ConnectX-7 datasheet: up to 400 Gb/s NDR InfiniBand or 400GbE, RoCE, PCIe Gen5 x16; the
    // single-port OSFP card of DGX H100.
    {.name = "cx7",
     .description = "NVIDIA ConnectX-7, 1 x NDR 400 Gb/s / 400GbE",
     .ports = 1,
     .port_rate = Bandwidth::gbps(400),
     .infiniband = true,
     .roce = true,
     .pcie_generation = 5,
     .pcie_lanes = 16,
     .latency = kConnectxLatency},
    // NVIDIA ConnectX-8 SuperNIC datasheet: up to 800 Gb/s XDR InfiniBand or 800GbE, RoCE, PCIe Gen6
    // (x16 to the host; the part has a built-in PCIe switch with up to 48 lanes).
    {.name = "cx8",
     .description = "NVIDIA ConnectX-8 SuperNIC, 1 x XDR 800 Gb/s / 800GbE",
     .ports = 1,
     .port_rate = Bandwidth::gbps(800),
     .infiniband = true,
     .roce = true,
     .pcie_generation = 6,
     .pcie_lanes = 16,
     .latency = kConnectxLatency},
    // NVIDIA BlueField-3 DPU datasheet: 400 Gb/s total as 1 x 400 or 2 x 200 Gb/s, InfiniBand NDR or
    // Ethernet with RoCE, PCIe Gen5 x16. We model the 1 x 400 Gb/s configuration.
    {.name = "bf3",
     .description = "NVIDIA BlueField-3 DPU, 1 x 400 Gb/s",
     .ports = 1,
     .port_rate = Bandwidth::gbps(400),
     .infiniband = true,
     .roce = true,
     .pcie_generation = 5,
     .pcie_lanes = 16,
     .latency = kConnectxLatency},
    // AWS Elastic Fabric Adapter (docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html): SRD transport
    // over AWS's Ethernet fabric, no RoCE or InfiniBand; p4d instances have 4 x 100 Gb/s EFA, and we model
    // one 100 Gb/s interface. weft treats it as an Ethernet NIC. The host link is not published
    // [unverified: PCIe Gen4 x16 assumed]. Latency: small-message EFA latency is reported at ~10-20 us
    // end to end, much of it in the SRD/libfabric software path [unverified: 5 us per traversal, calibrate].
    // NCCL sees it through aws-ofi-nccl, which reports props->latency = 75 us on p4d, p4de, p5 and p5e
    // ("empirical testing on P5 had shown that NCCL's internal tuner choices work better with this
    // value"; 35 us on p5en/p6-b200, 150 us on p3dn): src/platform-aws.cpp, platform_data_map, at
    // aws/aws-ofi-nccl@2daf7d30.
    {.name = "efa",
     .description = "AWS EFA-class, 1 x 100 Gb/s Ethernet (SRD, no RoCE)",
     .ports = 1,
     .port_rate = Bandwidth::gbps(100),
     .infiniband = false,
     .roce = false,
     .pcie_generation = 4,
     .pcie_lanes = 16,
     .latency = Time::us(5),
     .plugin_latency = Time::us(75)},
    // Plain Ethernet NICs without RDMA (e.g. Intel X710 10GbE and E810-XXV 25GbE on PCIe 3.0 x8, and
    // 100GbE parts on PCIe 3.0 x16; Intel product briefs). Latency is the hardware path only; a kernel
    // TCP stack adds microseconds [unverified: 1 us assumption].
    {.name = "eth-10g",
     .description = "Generic 10GbE NIC, no RDMA",
     .ports = 1,
     .port_rate = Bandwidth::gbps(10),
     .infiniband = false,
     .roce = false,
     .pcie_generation = 3,
     .pcie_lanes = 8,
     .latency = Time::us(1)},
    {.name = "eth-25g",
     .description = "Generic 25GbE NIC, no RDMA",
     .ports = 1,
     .port_rate = Bandwidth::gbps(25),
     .infiniband = false,
     .roce = false,
     .pcie_generation = 3,
     .pcie_lanes = 8,
     .latency = Time::us(1)},
    {.name = "eth-100g",
     .description = "Generic 100GbE NIC, no RDMA",
     .ports = 1,
     .port_rate = Bandwidth::gbps(100),
     .infiniband = false,
     .roce = false,
     .pcie_generation = 3,
     .pcie_lanes = 16,
     .latency = Time::us(1)},
};

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

std::span<const NicSpec> nics() { return kNics; }

const NicSpec& nic(std::string_view name) {
  std::vector<std::string_view> known;
  for (const NicSpec& n : kNics) {
    if (iequals(n.name, name)) return n;
    known.push_back(n.name);
  }
  throw ConfigError(fmt::format("nic: unknown '{}' (known: {}){}", name, join_names(known), did_you_mean(name, known)));
}

}  // namespace weft::catalogue
