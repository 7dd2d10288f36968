// The bundled price book: every figure with its source and date. "estimate" marks a figure from
// market reports or reseller listings rather than a published list price, "[unverified: ...]" a
// recollection not checked against its source. Prices are USD at purchase (or per hour of rent),
// without support contracts, tax or installation. A scenario's `cost: prices:` section overrides
// any entry (scenarios/cost_section.h): a buyer's own quote always wins.
#include "cost/prices.h"

#include <fmt/format.h>
#include <array>
#include <charconv>
#include <regex>

#include "sim/core/errors.h"
#include "sim/core/names.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/catalogue/nics.h"
#include "topologies/systems.h"

namespace weft::cost {
namespace {

struct Row {
  std::string_view key;
  double usd;
  double usd_per_hour;
  double watts;  // < 0: the GPU catalogue's TDP
  std::string_view source;
  std::string_view power_source;
};

constexpr std::string_view kGpuTdp = "GPU catalogue TDP (topologies/catalogue/gpus.cpp, vendor datasheets)";
constexpr std::string_view kH100Range =
    "estimate: $25,000-30,000 per H100 (Raymond James, reported by Barron's, 2023-08)";
constexpr std::string_view kPassive =
    "passive copper, no electronics in the data path (NVIDIA LinkX DAC specifications)";
// NVIDIA LinkX cable overview (docs.nvidia.com, 2024-08): a twin-port 800G OSFP transceiver is a
// 17 W part, so ~8.5 W per 400G end; slower optics scale down [estimate].
constexpr std::string_view kOpticPower =
    "estimate scaled from NVIDIA's 17 W twin-port 800G OSFP (LinkX overview, 2024)";
constexpr std::string_view kCableListings = "estimate: public reseller listings of DAC/AOC/transceivers, 2024";
// luxoptx.com, "800G optical module cost analysis" (2025): 400G QSFP-DD $600-800, 800G OSFP-DR8
// $1,100-1,400 at volume.
constexpr std::string_view kOpticVolume = "estimate: 2025 volume prices (luxoptx.com 800G cost analysis)";
constexpr std::string_view kSwitchPort = "estimate: a switch model's price / its ports (entries above), or listings";

constexpr Row kRows[] = {
    // --- Integrated systems: one per node, GPUs, NVSwitches, CPUs and compute NICs included.
    {"system.dgx-h100", 317'000, 0, 10'200,
     "Thinkmate quotation for an 8x H100 SXM system with 8x 400G NICs, 2024-08-22 (web.archive.org copy, cited in "
     "the public 'H100 cluster cost' sheet); SemiAnalysis estimated $270,000 (2023-05)",
     "DGX H100 datasheet: 10.2 kW max"},
    {"system.hgx-h200", 300'000, 0, 10'200, "estimate: OEM 8x H200 HGX servers, 2024 (no list price published)",
     "estimate: the DGX H100 chassis maximum (10.2 kW), same baseboard power"},
    {"system.dgx-a100", 199'000, 0, 6'500, "NVIDIA launch price 'starting at $199,000', GTC 2020-05-14",
     "DGX A100 datasheet: 6.5 kW max"},
    {"system.dgx-b200", 515'000, 0, 14'300, "estimate: reseller listings 2024-2025 (~$500,000)",
     "DGX B200 datasheet: ~14.3 kW max"},
    {"system.gb200-nvl72", 3'000'000, 0, 120'000, "estimate: press reports 2024 ($2-3 million per rack)",
     "estimate: ~120 kW per rack (press reports, 2024)"},
    {"system.dgx1-v100", 149'000, 0, 3'500, "NVIDIA launch price of DGX-1 with V100, GTC 2017-05-10",
     "DGX-1 datasheet: 3.5 kW max"},
    // Cloud instances: rent per hour, network and power included.
    {"system.aws-p5", 0, 98.32, 0,
     "AWS on-demand p5.48xlarge, us-east-1, 2023-07 (The Next Platform, 2023-07-27); AWS cut P5 prices in 2025",
     "included in the rent"},
    {"system.aws-p4de", 0, 40.96, 0, "[unverified: AWS on-demand p4de.24xlarge, us-east-1, 2023, recollection]",
     "included in the rent"},
    // --- Servers without GPUs, for nodes priced by parts.
    {"server.sxm", 32'000, 0, 3'000,
     "estimate: non-GPU parts of a DGX H100 (CPUs, memory, NVSwitch baseboard, storage, chassis) at $32,010, "
     "SemiAnalysis 2023-05 as summed in Epoch AI's training-cost-trends notebook",
     "estimate: DGX H100 maximum 10.2 kW less 8 x 700 W GPUs and NICs, rounded down"},
    {"server.2-socket", 12'000, 0, 800,
     "estimate: dual-socket 4U GPU server barebone with 2 CPUs, 512 GB and storage (2021-2024 configurator prices)",
     "estimate: two 250-350 W CPUs, memory and fans"},
    {"server.1-socket", 4'000, 0, 400, "estimate: single-socket workstation board, CPU and memory",
     "estimate: one CPU, memory and fans"},
    // --- GPUs, per card or module.
    {"gpu.v100", 10'000, 0, -1, "estimate: V100 SXM2 32 GB, ~$10,000 (2018 listings)", kGpuTdp},
    {"gpu.a100-40gb", 10'000, 0, -1, "estimate: A100 40 GB SXM4 (2020-2021 reseller listings)", kGpuTdp},
    {"gpu.a100-80gb", 15'000, 0, -1, "estimate: A100 80 GB SXM4 (2021-2023 reseller listings)", kGpuTdp},
    {"gpu.h100-sxm", 30'000, 0, -1, kH100Range, kGpuTdp},
    {"gpu.h100-pcie", 25'000, 0, -1, kH100Range, kGpuTdp},
    {"gpu.h200", 32'000, 0, -1, "estimate: $30,000-35,000 (2024 press reports)", kGpuTdp},
    {"gpu.b200", 40'000, 0, -1, "estimate: NVIDIA's CEO quoted $30,000-40,000 per Blackwell GPU (CNBC, 2024-03)",
     kGpuTdp},
    {"gpu.l40s", 8'000, 0, -1, "estimate: 2024 reseller listings ($7,000-9,000)", kGpuTdp},
    {"gpu.a30", 5'000, 0, -1, "estimate: 2022-2024 reseller listings", kGpuTdp},
    {"gpu.rtx-3090", 1'499, 0, -1, "NVIDIA launch MSRP, 2020-09-01", kGpuTdp},
    {"gpu.rtx-2080ti", 1'199, 0, -1, "NVIDIA Founders Edition launch price, 2018-08-20", kGpuTdp},
    {"gpu.rtx-4090", 1'599, 0, -1, "NVIDIA launch MSRP, 2022-09-20", kGpuTdp},
    {"gpu.rtx-5090", 1'999, 0, -1, "NVIDIA launch MSRP, CES 2025-01-06", kGpuTdp},
    // --- NICs, per card.
    {"nic.cx6", 1'200, 0, 20, "estimate: ConnectX-6 VPI 1x HDR (MCX653105A-HDAT) listings 2023-2024",
     "estimate: ConnectX-6 VPI user manual power tables, ~20 W class"},
    {"nic.cx7", 2'200, 0, 25, "estimate: ConnectX-7 1x NDR OSFP (MCX75310AAS-NEAT) listings 2024",
     "estimate: ConnectX-7 user manual power tables, ~25 W class"},
    {"nic.cx8", 3'500, 0, 40, "estimate: ConnectX-8 SuperNIC, 2025 listings", "estimate: ~40 W with its PCIe switch"},
    {"nic.bf3", 3'000, 0, 150, "estimate: BlueField-3 B3140H listings 2024",
     "estimate: BlueField-3 product brief, 150 W max"},
    {"nic.eth-10g", 250, 0, 5, "estimate: Intel X710-DA2 street price 2024", "estimate: Intel X710 product brief"},
    {"nic.eth-25g", 300, 0, 12, "estimate: Intel E810-XXVDA2 street price 2024", "estimate: Intel E810 product brief"},
    {"nic.eth-100g", 800, 0, 20, "estimate: Intel E810-CQDA2 street price 2024", "estimate: Intel E810 product brief"},
    // --- NVLink bridges (per bridge) and PCIe switches (per chip on its riser or backplane).
    {"nvlink-bridge.rtx-3090", 80, 0, 0, "[unverified: NVIDIA store, GeForce RTX NVLink Bridge for 3090, $79.99, 2020]",
     "passive"},
    {"nvlink-bridge.rtx-2080ti", 80, 0, 0, "[unverified: NVIDIA store, GeForce RTX NVLink Bridge, $79.99, 2018]",
     "passive"},
    {"nvlink-bridge.a30", 200, 0, 0, "estimate: NVIDIA 2-slot NVLink bridge listings", "passive"},
    {"nvlink-bridge.h100-pcie", 250, 0, 0, "estimate: NVIDIA NVLink bridge listings, per bridge", "passive"},
    {"pcie-switch.gen3", 300, 0, 10, "estimate: Broadcom PEX87xx-class switch on a riser", "estimate: ~10 W"},
    {"pcie-switch.gen4", 600, 0, 20, "estimate: Broadcom PEX88xxx-class switch on a riser", "estimate: ~20 W"},
    {"pcie-switch.gen5", 1'000, 0, 25, "estimate: Broadcom PEX89xxx-class switch on a riser", "estimate: ~25 W"},
    // --- Network switches: models, then per-port prices for any other port count.
    {"switch.ib-400g-64p", 36'000, 0, 750,
     "FS.com listing of a Quantum-2 64x 400G NDR switch, 2024-08 (archived; the public 'H100 cluster cost' sheet, "
     "which puts NVIDIA's own QM9700 at ~$50,000)",
     "[unverified: QM9700 user manual, typical power with passive cables, recollection]"},
    {"switch.ib-200g-40p", 20'000, 0, 400, "estimate: QM8700 40x HDR listings 2023-2024", "estimate"},
    {"switch.ib-100g-36p", 10'000, 0, 250, "estimate: SB7800 36x EDR listings 2022-2024", "estimate"},
    {"switch.eth-400g-64p", 40'000, 0, 1'500, "estimate: Spectrum-4 SN5400-class 64x 400GbE listings 2024", "estimate"},
    {"switch-port.ib-100g", 280, 0, 7, kSwitchPort, "estimate"},
    {"switch-port.ib-200g", 500, 0, 10, kSwitchPort, "estimate"},
    {"switch-port.ib-400g", 560, 0, 12, kSwitchPort, "estimate"},
    {"switch-port.ib-800g", 1'200, 0, 25, kSwitchPort, "estimate"},
    {"switch-port.eth-10g", 50, 0, 3, kSwitchPort, "estimate"},
    {"switch-port.eth-25g", 100, 0, 4, kSwitchPort, "estimate"},
    {"switch-port.eth-100g", 300, 0, 8, kSwitchPort, "estimate"},
    {"switch-port.eth-200g", 400, 0, 12, kSwitchPort, "estimate"},
    {"switch-port.eth-400g", 625, 0, 23, kSwitchPort, "estimate"},
    {"switch-port.eth-800g", 2'500, 0, 40,
     "estimate: $150,000-250,000 per 64-port 800G switch (luxoptx.com 800G cost analysis, 2025)", "estimate"},
    // --- Cables (per cable) and transceivers (per module; a link takes two).
    {"cable.dac-10g", 20, 0, 0, kCableListings, kPassive},
    {"cable.dac-25g", 30, 0, 0, kCableListings, kPassive},
    {"cable.dac-100g", 80, 0, 0, kCableListings, kPassive},
    {"cable.dac-200g", 150, 0, 0, kCableListings, kPassive},
    {"cable.dac-400g", 300, 0, 0, kCableListings, kPassive},
    {"cable.dac-800g", 500, 0, 0, kCableListings, kPassive},
    {"cable.aoc-10g", 40, 0, 2, kCableListings, kOpticPower},
    {"cable.aoc-25g", 60, 0, 2.4, kCableListings, kOpticPower},
    {"cable.aoc-100g", 200, 0, 7, kCableListings, kOpticPower},
    {"cable.aoc-200g", 400, 0, 10, kCableListings, kOpticPower},
    {"cable.aoc-400g", 900, 0, 17, kCableListings, kOpticPower},
    {"cable.aoc-800g", 1'600, 0, 34, kCableListings, kOpticPower},
    {"optic.10g", 25, 0, 1, kCableListings, kOpticPower},
    {"optic.25g", 40, 0, 1.2, kCableListings, kOpticPower},
    {"optic.100g", 150, 0, 3.5, kCableListings, kOpticPower},
    {"optic.200g", 350, 0, 5, kCableListings, kOpticPower},
    {"optic.400g", 700, 0, 8.5, kOpticVolume, kOpticPower},
    {"optic.800g", 1'250, 0, 17, kOpticVolume, kOpticPower},
};

constexpr std::array kCategories = {
    Category{"system", "a whole integrated system per node (DGX, HGX, GB200 rack, cloud instance): preset name"},
    Category{"server", "a server without GPUs: sxm, 1-socket, 2-socket, nvl-rack"},
    Category{"gpu", "one GPU card or module: catalogue GPU name"},
    Category{"nic", "one NIC card: catalogue NIC name"},
    Category{"nvswitch", "an NVSwitch chip: gen1..gen4 (always inside its server or system)"},
    Category{"pcie-switch", "a PCIe switch: gen3..gen6"},
    Category{"nvlink-bridge", "one NVLink bridge: catalogue GPU name"},
    Category{"switch", "a network switch: ib|eth-<Gb/s>g-<ports>p, e.g. ib-400g-64p"},
    Category{"switch-port", "one port of a switch without its own entry: ib|eth-<Gb/s>g"},
    Category{"cable", "one network cable: dac|aoc-<Gb/s>g"},
    Category{"optic", "one transceiver (two per optical link): <Gb/s>g"},
};

template <class Names>
void require_known(std::string_view what, std::string_view name, const Names& known) {
  for (std::string_view k : known) {
    if (k == name) return;
  }
  std::vector<std::string_view> list(std::begin(known), std::end(known));
  throw ConfigError(fmt::format("no {} '{}' (known: {}){}", what, name, join_names(list), did_you_mean(name, list)));
}

void check_pattern(std::string_view key, std::string_view name, const char* pattern, std::string_view example) {
  if (!std::regex_match(name.begin(), name.end(), std::regex(pattern))) {
    throw ConfigError(fmt::format("'{}' does not name an item (expected e.g. {})", key, example));
  }
}

}  // namespace

PriceBook default_prices() {
  PriceBook book;
  for (const Row& r : kRows) {
    PriceEntry e{r.usd, r.usd_per_hour, r.watts, std::string(r.source), std::string(r.power_source)};
    if (r.watts < 0) e.watts = catalogue::gpu(r.key.substr(r.key.find('.') + 1)).tdp_watts;
    book.entries.emplace(std::string(r.key), std::move(e));
  }
  return book;
}

std::span<const Category> categories() { return kCategories; }

void check_item_key(std::string_view key) {
  const size_t dot = key.find('.');
  std::vector<std::string_view> names;
  for (const Category& c : kCategories) names.push_back(c.name);
  if (dot == std::string_view::npos) {
    throw ConfigError(
        fmt::format("'{}' does not name an item (expected category.name, categories: {})", key, join_names(names)));
  }
  const std::string_view category = key.substr(0, dot);
  const std::string_view name = key.substr(dot + 1);
  require_known("price category", category, names);
  if (category == "gpu" || category == "nvlink-bridge") {
    std::vector<std::string_view> gpus;
    for (const catalogue::GpuSpec& g : catalogue::gpus()) gpus.push_back(g.name);
    require_known("GPU", name, gpus);
  } else if (category == "nic") {
    std::vector<std::string_view> nics;
    for (const catalogue::NicSpec& n : catalogue::nics()) nics.push_back(n.name);
    require_known("NIC", name, nics);
  } else if (category == "system") {
    std::vector<std::string_view> presets;
    for (const SystemPreset& p : system_presets()) presets.push_back(p.name);
    require_known("system", name, presets);
  } else if (category == "server") {
    require_known("server", name, std::array<std::string_view, 4>{"sxm", "1-socket", "2-socket", "nvl-rack"});
  } else if (category == "nvswitch") {
    check_pattern(key, name, "gen[1-4]", "nvswitch.gen3");
  } else if (category == "pcie-switch") {
    check_pattern(key, name, "gen[3-6]", "pcie-switch.gen4");
  } else if (category == "switch") {
    check_pattern(key, name, "(ib|eth)-[0-9]+g-[0-9]+p", "switch.ib-400g-64p");
  } else if (category == "switch-port") {
    check_pattern(key, name, "(ib|eth)-[0-9]+g", "switch-port.eth-400g");
  } else if (category == "cable") {
    check_pattern(key, name, "(dac|aoc)-[0-9]+g", "cable.dac-400g");
  } else {
    check_pattern(key, name, "[0-9]+g", "optic.400g");
  }
}

std::optional<PriceEntry> find_price(const PriceBook& book, std::string_view key) {
  if (auto it = book.entries.find(key); it != book.entries.end()) return it->second;
  if (!key.starts_with("switch.")) return std::nullopt;
  // switch.<tech>-<rate>g-<ports>p -> switch-port.<tech>-<rate>g x ports
  const size_t dash = key.rfind('-');
  if (dash == std::string_view::npos || !key.ends_with('p')) return std::nullopt;
  int ports = 0;
  const std::string_view count = key.substr(dash + 1, key.size() - dash - 2);
  auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), ports);
  if (ec != std::errc() || end != count.data() + count.size() || ports <= 0) return std::nullopt;
  const std::string port_key = fmt::format("switch-port.{}", key.substr(7, dash - 7));
  auto port = book.entries.find(port_key);
  if (port == book.entries.end()) return std::nullopt;
  PriceEntry e = port->second;
  e.usd *= ports;
  e.usd_per_hour *= ports;
  e.watts *= ports;
  e.source = fmt::format("{} x {}: {}", ports, port_key, e.source);
  e.power_source = fmt::format("{} x {}: {}", ports, port_key, e.power_source);
  return e;
}

}  // namespace weft::cost
