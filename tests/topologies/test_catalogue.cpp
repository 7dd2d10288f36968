#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/catalogue/links.h"
#include "topologies/catalogue/nics.h"

using namespace weft;
using namespace weft::catalogue;

TEST_CASE("PCIe data rates follow GT/s x lanes x encoding", "[catalogue]") {
  // Gen4 x16: 16e9 x 16 x 128/130 = 252,061,538,461.5 b/s (31.5 GB/s), truncated to whole bit/s.
  PcieLink g4 = pcie(4, 16);
  CHECK(g4.line_rate == Bandwidth::gbps(256));
  CHECK(g4.data_rate.bps() == 252'061'538'461);
  CHECK(g4.data_rate.bytes_per_second() == Approx(31.5e9).epsilon(0.001));
  // Gen3 x8: 8e9 x 8 x 128/130 = 63,015,384,615 b/s (7.88 GB/s).
  CHECK(pcie(3, 8).data_rate.bps() == 63'015'384'615);
  // Gen5 x16 is twice gen4 x16: 32e9 x 16 x 128/130 = 504.12 Gb/s (63.0 GB/s).
  CHECK(pcie(5, 16).data_rate.bps() == 504'123'076'923);
  // Gen6 x16, FLIT mode: 64e9 x 16 x 236/256 = 944 Gb/s exactly (118 GB/s).
  CHECK(pcie(6, 16).data_rate == Bandwidth::gbps(944));
}

TEST_CASE("PCIe effective bandwidth charges the TLP and DLLP overhead per max payload", "[catalogue]") {
  // Gen 3-5: 24 B per TLP (4 B STP token with sequence, 16 B 4-DW header, 4 B LCRC) + 4 B DLLP share.
  PcieLink g4 = pcie(4, 16, 256);
  CHECK(g4.tlp_overhead == 28);
  // 252,061,538,461 x 256/284 = 227.21 Gb/s (28.4 GB/s, 90.1 % of the data rate).
  CHECK(g4.effective().bps() == 227'210'400'866);
  // Gen3 x8 at MPS 256: 63,015,384,615 x 256/284 = 56.80 Gb/s (7.10 GB/s).
  CHECK(pcie(3, 8, 256).effective().bytes_per_second() == Approx(7.1003e9).epsilon(1e-4));
  // A larger MPS amortises the overhead: 512/(512+28) > 256/(256+28).
  CHECK(pcie(4, 16, 512).effective() > g4.effective());
  // Gen6 FLIT mode charges only the 16 B header: 944e9 x 256/272 = 888.47 Gb/s.
  PcieLink g6 = pcie(6, 16, 256);
  CHECK(g6.tlp_overhead == 16);
  CHECK(g6.effective().bytes_per_second() * 8 == Approx(888.4706e9).epsilon(1e-6));
}

TEST_CASE("pcie_link carries the PcieLink figures into a LinkSpec", "[catalogue]") {
  LinkSpec s = pcie_link(5, 8, 512);
  CHECK(s.kind == LinkKind::pcie);
  CHECK(s.rate == pcie(5, 8).data_rate);
  CHECK(s.mtu == 512);
  CHECK(s.header_bytes == 28);
  CHECK(s.generation == 5);
  CHECK(s.lanes == 8);
  CHECK(s.latency == latencies().pcie_switch);
  CHECK(s.goodput() == pcie(5, 8, 512).effective());
}

TEST_CASE("NVLink bundles reach the per-GPU totals NVIDIA quotes", "[catalogue]") {
  // H100: 18 links x 25 GB/s = 450 GB/s per direction = 900 GB/s bidirectional.
  LinkSpec h100 = nvlink_link(4, nvlink(4).links_per_gpu);
  CHECK(h100.kind == LinkKind::nvlink);
  CHECK(h100.generation == 4);
  CHECK(h100.rate.bytes_per_second() * 2 == Approx(900e9));
  // B200: 18 x 50 GB/s = 900 GB/s per direction = 1.8 TB/s bidirectional.
  CHECK(nvlink_link(5, 18).rate.bytes_per_second() * 2 == Approx(1.8e12));
  // V100: 6 x 25 = 150 GB/s per direction (300 bidirectional); A100: 12 x 25 = 300 (600).
  CHECK(nvlink_link(2, 6).rate.bytes_per_second() == Approx(150e9));
  CHECK(nvlink_link(3, 12).rate.bytes_per_second() == Approx(300e9));
  // One packet of 256 B payload + 16 B header: goodput = rate x 256/272.
  CHECK(nvlink_link(4).goodput().bps() == Bandwidth::gbps(200).bps() * 256 / 272);
  CHECK(h100.latency == latencies().nvlink_hop);
}

TEST_CASE("NVSwitch generations", "[catalogue]") {
  CHECK(nvswitch_generations().size() == 4u);
  CHECK(nvswitch(3).ports == 64);
  CHECK(nvswitch(3).reduces);
  CHECK_FALSE(nvswitch(2).reduces);
  for (const NvswitchGeneration& g : nvswitch_generations()) {
    CHECK(nvlink(g.nvlink_generation).generation == g.nvlink_generation);
    CHECK(g.latency > Time());
  }
}

TEST_CASE("InfiniBand and RoCE goodput per packet overhead", "[catalogue]") {
  // NDR: 400e9 x 4096/(4096+26) = 397.48 Gb/s (LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 B).
  LinkSpec ndr = infiniband_link("NDR", 10);
  CHECK(ndr.kind == LinkKind::infiniband);
  CHECK(ndr.header_bytes == 26);
  CHECK(ndr.goodput().bps() == 400'000'000'000ULL * 4096 / 4122);
  CHECK(ndr.latency == Time::ns(50));  // 10 m x 5 ns/m; no switch latency on the cable
  CHECK(infiniband("edr").data_rate == Bandwidth::gbps(100));
  // A 2048 B path MTU: 26 B of headers per 2048 B (the network.mtu key reaches InfiniBand too).
  CHECK(infiniband_link("NDR", 10, 2048).goodput().bps() == 400'000'000'000ULL * 2048 / 2074);
  CHECK(infiniband("Xdr").data_rate == Bandwidth::gbps(800));

  CHECK(roce_overhead_bytes() == 82);
  // 400G, MTU 4096: 400e9 x 4096/4178 = 392.15 Gb/s.
  CHECK(ethernet_link(400, 4096).goodput().bps() == Approx(392.149e9).epsilon(1e-5));
  // 100G, MTU 1024: 100e9 x 1024/1106 = 92.59 Gb/s.
  LinkSpec e100 = ethernet_link(100, 1024, 2);
  CHECK(e100.goodput().bps() == Approx(92.586e9).epsilon(1e-5));
  CHECK(e100.kind == LinkKind::ethernet);
  CHECK(e100.latency == Time::ns(10));
  CHECK(ethernet_speeds_gbps().size() == 8u);
}

TEST_CASE("every GPU entry is complete and self-consistent", "[catalogue]") {
  std::set<std::string> names;
  for (const GpuSpec& g : gpus()) {
    INFO(g.name);
    CHECK(names.insert(std::string(g.name)).second);
    CHECK(g.memory > Bytes(0));
    CHECK(g.memory_bandwidth > 0);
    CHECK(g.fp32_flops > 0);
    CHECK(g.bf16_flops >= g.fp32_flops);  // tensor cores beat the FP32 pipes
    CHECK((g.fp8_flops == 0 || g.fp8_flops >= g.bf16_flops));
    CHECK((g.tf32_flops == 0 || g.tf32_flops >= g.fp32_flops));
    CHECK(g.tdp_watts > 0);
    CHECK(pcie(g.pcie_generation, g.pcie_lanes).data_rate > Bandwidth());
    CHECK((g.nvlink_generation == 0) == (g.nvlink_links == 0));
    if (g.nvlink_generation != 0) CHECK(g.nvlink_links <= nvlink(g.nvlink_generation).links_per_gpu);
  }
  CHECK(names.size() == 16u);
  // Case-insensitive lookup; the flagship GPUs carry their generation's full link count.
  CHECK(gpu("H100-SXM").nvlink_links == nvlink(4).links_per_gpu);
  CHECK(gpu("h800").nvlink_links == 8);  // NVLink 400 GB/s: 8 of Hopper's 18 links
  CHECK(gpu("b200").nvlink_links == nvlink(5).links_per_gpu);
  CHECK(gpu("h200").memory_bandwidth == 4.8e12);
}

TEST_CASE("every NIC entry has a rate and a host link", "[catalogue]") {
  for (const NicSpec& n : nics()) {
    INFO(n.name);
    CHECK(n.ports >= 1);
    CHECK(n.port_rate > Bandwidth());
    CHECK(n.latency > Time());
    // The host link carries the ports: PCIe effective bandwidth at MPS 256 >= the network rate.
    CHECK(pcie(n.pcie_generation, n.pcie_lanes).effective().bps() >= n.port_rate.bps() * n.ports);
  }
  CHECK(nic("CX7").port_rate == Bandwidth::gbps(400));
  CHECK_FALSE(nic("efa").roce);
  CHECK_FALSE(nic("efa").infiniband);
}

TEST_CASE("catalogue lookups reject bad input with what is allowed", "[catalogue]") {
  CHECK_THROWS_WITH(pcie(4, 0), Catch::Contains("0 lanes") && Catch::Contains("1, 2, 4, 8 or 16"));
  CHECK_THROWS_AS(pcie(4, 3), ConfigError);
  CHECK_THROWS_WITH(pcie(2, 16), Catch::Contains("generation 2") && Catch::Contains("3, 4, 5 or 6"));
  CHECK_THROWS_AS(pcie(7, 16), ConfigError);
  CHECK_THROWS_WITH(pcie(4, 16, 100), Catch::Contains("100") && Catch::Contains("power of two"));
  CHECK_THROWS_AS(pcie(4, 16, 8192), ConfigError);

  CHECK_THROWS_WITH(gpu("h100-smx"), Catch::Contains("unknown 'h100-smx'") && Catch::Contains("rtx-4090") &&
                                         Catch::Contains("did you mean 'h100-sxm'?"));
  CHECK_THROWS_WITH(nic("cx9"), Catch::Contains("cx7") && Catch::Contains("did you mean"));
  CHECK_THROWS_WITH(infiniband("ndx"), Catch::Contains("edr, hdr, ndr, xdr") && Catch::Contains("did you mean 'ndr'?"));
  CHECK_THROWS_WITH(ethernet(37), Catch::Contains("37") && Catch::Contains("400"));
  CHECK_THROWS_AS(ethernet_link(100, 1500), ConfigError);
  CHECK_THROWS_WITH(infiniband_link("ndr", 3, 1500),
                    Catch::Contains("infiniband: MTU 1500") && Catch::Contains("2048"));
  CHECK_THROWS_AS(infiniband_link("hdr", -1), ConfigError);
  CHECK_THROWS_WITH(nvlink_link(1, 4), Catch::Contains("generation 1") && Catch::Contains("2, 3, 4 or 5"));
  CHECK_THROWS_AS(nvlink_link(4, 0), ConfigError);
  CHECK_THROWS_AS(nvswitch(5), ConfigError);
}
