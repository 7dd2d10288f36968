// Profiles and checks for the packet fabric. Every default names its source; the facts are collected
// in ../shared/reference/fabric_models.md (§2.1 DCQCN, §2.2 PFC, §2.3 InfiniBand). "Assumption" marks
// the few values no source fixes.
#include "sim/packet/packet_config.h"

#include <fmt/format.h>
#include <array>
#include <cmath>
#include <string>

#include "sim/core/errors.h"
#include "sim/core/names.h"

namespace weft::packet {
namespace {

constexpr uint64_t kReferenceRate = 25'000'000'000;  // bit/s: ECN thresholds and DCQCN steps are quoted at 25 G

Bandwidth mbps(uint64_t v) { return Bandwidth::bps(v * 1'000'000); }

// value_at_25g * port / 25 Gb/s, rounded down; the product needs more than 64 bits at Tb/s rates.
Bytes scale_to_port(Bytes at_25g, Bandwidth port) {
  return Bytes(static_cast<uint64_t>(uint128{at_25g.count()} * port.bps() / kReferenceRate));
}

// --- Profiles -------------------------------------------------------------------------------------

// NVIDIA ConnectX-4 and later firmware defaults (`mlxconfig` ROCE_CC parameters; NVIDIA DOCA "DCQCN CC
// parameters"; Mellanox community DOC-2790).
DcqcnConfig nvidia_dcqcn() {
  DcqcnConfig d;
  d.enabled = true;
  // dce_tcp_g = 1019 in 1/1024 units is the weight of the *old* alpha (DOC-2790: alpha <- (G/1024)
  // alpha [+ (1024 - G)/1024 with a CNP]), so the EWMA gain is g = (1024 - 1019)/1024 = 5/1024.
  d.g = 5.0 / 1024;
  // dce_tcp_rtt = 1 us: the firmware updates alpha every microsecond. Taken as given: with g = 5/1024
  // alpha decays with a time constant of ~205 us, comparable to the 300 us rate-increase timer, so
  // the set is self-consistent (the HPCC ns-3 "dcqcn" profile pairs the same 1 us with g = 1/256).
  d.alpha_update_period = Time::us(1);
  d.rate_increase_timer = Time::us(300);  // rpg_time_reset
  d.byte_counter = Bytes(32'767);         // rpg_byte_reset ("given in bytes", mstflint mlxcfg text)
  d.fast_recovery_steps = 1;              // rpg_threshold; HPCC mix/config.txt FAST_RECOVERY_TIMES 1
  // rpg_ai_rate / rpg_hai_rate are absolute in the firmware; like HPCC run.py (AI = 5 bw/25,
  // HAI = 50 bw/25 Mb/s) we read them as the 25 Gb/s point and scale with the line rate.
  d.rate_ai = mbps(5);
  d.rate_hai = mbps(50);
  d.min_rate = mbps(1);                    // rpg_min_rate
  d.initial_alpha = 1023.0 / 1024;         // initial_alpha_value, set at a flow's first CNP
  d.cnp_interval = Time::us(4);            // min_time_between_cnps
  d.rate_decrease_interval = Time::us(4);  // rate_reduce_monitor_period
  return d;
}

// "roce": lossless RoCEv2 with NVIDIA NIC defaults and HPCC ns-3 fork switch settings.
PacketConfig roce() {
  PacketConfig c;
  c.transport = Transport::rdma;
  // HPCC ns-3 mix/config.txt KMIN_MAP/KMAX_MAP/PMAX_MAP: 25G 100/400 KB, Pmax 0.2 (run.py scales by bw/25).
  c.ecn = {.enabled = true, .kmin_at_25g = Bytes(100'000), .kmax_at_25g = Bytes(400'000), .pmax = 0.2};
  c.dcqcn = nvidia_dcqcn();
  c.pfc.enabled = true;
  c.pfc.dynamic = true;                  // HPCC USE_DYNAMIC_PFC_THRESHOLD 1
  c.pfc.alpha = 1.0 / 8;                 // HPCC switch-mmu.cc pfc_a_shift 3
  c.pfc.xoff = Bytes(100'000);           // static mode only; assumption (htsim uses 15 MTU)
  c.pfc.xon_offset = Bytes(3'000);       // HPCC switch-mmu.cc resume_offset 3 KB
  c.pfc.headroom = Bytes(0);             // computed per port from rate and link latency
  c.pfc.quanta = 65535;                  // 802.1Qbb: largest pause, refreshed while paused
  c.credits.buffer_per_vl = Bytes(0);    // computed: rate x credit loop + MTU (§2.3 rule of thumb)
  c.credits.block_bytes = 64;            // IBA Vol. 1 §7.9: credits count 64-byte blocks
  c.lossy.mode = Retransmit::go_back_n;  // RoCE NICs without selective repeat; HPCC fork go-back-N
  // Assumption: of the order of the microsecond-granularity RTO that fixes incast collapse
  // (Vasudevan et al., SIGCOMM'09); NIC ACK timeouts (4.096 us x 2^k, NCCL_IB_TIMEOUT) are far longer.
  c.lossy.rto = Time::ms(1);
  c.lossy.ack_every = 16;  // assumption: coalesced ACKs (the HPCC fork ACKs every packet)
  c.dctcp = {.g = 1.0 / 16, .initial_window = 10, .k_at_10g = Bytes(30'000)};  // see tcp()
  c.switches.buffer = Bytes(32'000'000);  // HPCC mix/config.txt BUFFER_SIZE 32 (MB)
  c.switches.scheduler = Scheduler::strict;
  c.switches.dwrr_quantum = {};      // one MTU each
  c.control_priority = 6;            // NVIDIA cnp_802p_prio 6
  c.queue_sample_interval = Time();  // off
  // Assumption: ~7 maximal pauses at 25 Gb/s (65535 quanta = 1.34 ms), 30 at 100 Gb/s: a healthy
  // fabric never stalls this long, a cyclic buffer dependency stalls forever.
  c.deadlock_timeout = Time::ms(10);
  return c;
}

// "roce-paper": the DCQCN paper's parameters (Zhu et al., SIGCOMM 2015), thresholds and steps quoted at
// 40 GbE and expressed at 25 Gb/s (x 25/40).
PacketConfig roce_paper() {
  PacketConfig c = roce();
  // Kmin 5 KB, Kmax 200 KB, Pmax 1 % at 40 GbE [R in the reference; the DCQCN-validation repo runs 5/100 KB].
  c.ecn = {.enabled = true, .kmin_at_25g = Bytes(3'125), .kmax_at_25g = Bytes(125'000), .pmax = 0.01};
  DcqcnConfig& d = c.dcqcn;
  d.g = 1.0 / 256;                          // htsim dcqcn fork, HPCC EWMA_GAIN 0.00390625
  d.alpha_update_period = Time::us(55);     // K; htsim fork _cc_update_period
  d.rate_increase_timer = Time::us(55);     // T; HPCC run.py "dcqcn_paper" t_inc
  d.byte_counter = Bytes(10'000'000);       // B; htsim fork _B
  d.fast_recovery_steps = 5;                // F; htsim fork _F, HPCC FastRecoveryTimes
  d.rate_ai = mbps(25);                     // R_AI 40 Mb/s at 40 GbE
  d.rate_hai = mbps(50);                    // not fixed by the paper: HPCC run.py HAI = 50 bw/25 Mb/s
  d.min_rate = mbps(100);                   // not in the paper: HPCC mix/config.txt MIN_RATE
  d.initial_alpha = 1.0;                    // paper: alpha starts at 1
  d.cnp_interval = Time::us(50);            // N; htsim fork _cnp_interval, Spirent CnpInterval 0.05 ms
  d.rate_decrease_interval = Time::us(50);  // HPCC run.py "dcqcn_paper" t_dec: one cut per CNP
  return c;
}

// "roce-lossy": no PFC, so congested queues drop and the sender goes back N (IRN-style deployments).
PacketConfig roce_lossy() {
  PacketConfig c = roce();
  c.pfc.enabled = false;
  return c;
}

// "ib": InfiniBand reliable connection; links are credit-based, so nothing is marked or dropped.
PacketConfig ib() {
  PacketConfig c = roce();
  c.ecn.enabled = false;
  c.dcqcn.enabled = false;
  return c;
}

// "tcp": DCTCP over lossy Ethernet (Alizadeh et al., SIGCOMM 2010; HPCC run.py "dctcp" profile).
PacketConfig tcp() {
  PacketConfig c = roce();
  c.transport = Transport::dctcp;
  c.pfc.enabled = false;
  c.dcqcn.enabled = false;
  // DCTCP marks every packet above one threshold K: kmin = kmax = K, pmax = 1. K = 30 KB at 10 G
  // (HPCC run.py K = 30 bw/10 KB), i.e. 75 KB at the 25 G reference rate.
  const Bytes k = Bytes(c.dctcp.k_at_10g.count() * 25 / 10);
  c.ecn = {.enabled = true, .kmin_at_25g = k, .kmax_at_25g = k, .pmax = 1.0};
  c.lossy.mode = Retransmit::go_back_n;
  return c;
}

struct Profile {
  std::string_view name;
  std::string_view description;
  PacketConfig (*make)();
};

constexpr std::array<Profile, 5> kProfiles{{
    {"roce", "PFC + ECN + DCQCN, NVIDIA ConnectX firmware defaults, HPCC ns-3 switch settings", roce},
    {"roce-paper", "PFC + ECN + DCQCN with the DCQCN paper's parameters (Zhu et al. 2015)", roce_paper},
    {"roce-lossy", "ECN + DCQCN without PFC: drops and go-back-N", roce_lossy},
    {"ib", "InfiniBand: credit flow control only, no ECN or DCQCN", ib},
    {"tcp", "DCTCP over lossy Ethernet (Alizadeh et al. 2010)", tcp},
}};

constexpr std::array<std::string_view, kProfiles.size()> kProfileNames = [] {
  std::array<std::string_view, kProfiles.size()> names{};
  for (size_t i = 0; i < kProfiles.size(); ++i) names[i] = kProfiles[i].name;
  return names;
}();

// --- Checks ---------------------------------------------------------------------------------------

std::string show(Time t) {
  if (t.ps() % 1'000'000 == 0) return fmt::format("{} us", t.ps() / 1'000'000);
  if (t.ps() % 1'000 == 0) return fmt::format("{} ns", t.ps() / 1'000);
  return fmt::format("{} ps", t.ps());
}

[[noreturn]] void fail(const std::string& message) { throw ConfigError(message); }

bool in_unit_interval(double x) { return x > 0.0 && x <= 1.0; }  // (0, 1]; false for NaN

void check_positive(Time t, std::string_view field, std::string_view when) {
  if (t <= Time()) fail(fmt::format("packet.{}: {} must be > 0{}", field, show(t), when));
}

void check_ecn(const EcnConfig& e) {
  if (!e.enabled) return;
  if (e.kmin_at_25g > e.kmax_at_25g) {
    fail(fmt::format("packet.ecn: kmin ({} B) is above kmax ({} B); need kmin <= kmax (both at 25 Gb/s)",
                     e.kmin_at_25g.count(), e.kmax_at_25g.count()));
  }
  if (!in_unit_interval(e.pmax)) fail(fmt::format("packet.ecn.pmax: {} is outside (0, 1]", e.pmax));
}

void check_dcqcn_timers(const DcqcnConfig& d) {
  constexpr std::string_view kWhen = " while DCQCN is enabled";
  check_positive(d.alpha_update_period, "dcqcn.alpha_update_period", kWhen);
  check_positive(d.rate_increase_timer, "dcqcn.rate_increase_timer", kWhen);
  // 0 is meaningful for these two: a CNP for every marked packet, a cut for every CNP.
  if (d.cnp_interval < Time()) fail(fmt::format("packet.dcqcn.cnp_interval: {} must be >= 0", show(d.cnp_interval)));
  if (d.rate_decrease_interval < Time()) {
    fail(fmt::format("packet.dcqcn.rate_decrease_interval: {} must be >= 0", show(d.rate_decrease_interval)));
  }
}

void check_dcqcn(const DcqcnConfig& d) {
  if (!d.enabled) return;
  if (!in_unit_interval(d.g)) fail(fmt::format("packet.dcqcn.g: {} is outside (0, 1]", d.g));
  check_dcqcn_timers(d);
  if (d.byte_counter == Bytes()) fail("packet.dcqcn.byte_counter: 0 B must be > 0 while DCQCN is enabled");
  if (d.fast_recovery_steps < 0) {
    fail(fmt::format("packet.dcqcn.fast_recovery_steps: {} must be >= 0", d.fast_recovery_steps));
  }
  if (d.rate_ai == Bandwidth()) fail("packet.dcqcn.rate_ai: 0 b/s must be > 0 while DCQCN is enabled");
  if (d.rate_hai == Bandwidth()) fail("packet.dcqcn.rate_hai: 0 b/s must be > 0 while DCQCN is enabled");
  if (d.min_rate == Bandwidth()) fail("packet.dcqcn.min_rate: 0 b/s must be > 0 while DCQCN is enabled");
  if (!(d.initial_alpha >= 0.0 && d.initial_alpha <= 1.0)) {
    fail(fmt::format("packet.dcqcn.initial_alpha: {} is outside [0, 1]", d.initial_alpha));
  }
}

void check_pfc(const PfcConfig& p) {
  if (!p.enabled) return;
  if (p.dynamic && !(p.alpha > 0.0 && std::isfinite(p.alpha))) {
    fail(fmt::format("packet.pfc.alpha: {} must be > 0 with the dynamic threshold", p.alpha));
  }
  if (!p.dynamic && p.xon_offset >= p.xoff) {
    fail(
        fmt::format("packet.pfc: xon_offset ({} B) is not below xoff ({} B); need xon_offset < xoff with the "
                    "static threshold",
                    p.xon_offset.count(), p.xoff.count()));
  }
  if (p.quanta == 0) fail("packet.pfc.quanta: 0 is outside [1, 65535] (512 bit times each)");
}

void check_transport(const PacketConfig& c) {
  if (c.credits.block_bytes == 0) fail("packet.credits.block_bytes: 0 must be > 0");
  if (c.lossy.ack_every == 0) fail("packet.lossy.ack_every: 0 must be >= 1");
  const bool may_drop = !c.pfc.enabled || c.transport == Transport::dctcp;
  if (may_drop) check_positive(c.lossy.rto, "lossy.rto", " when links can drop (pfc disabled or transport dctcp)");
  if (c.transport != Transport::dctcp) return;
  if (!in_unit_interval(c.dctcp.g)) fail(fmt::format("packet.dctcp.g: {} is outside (0, 1]", c.dctcp.g));
  if (c.dctcp.initial_window == 0) fail("packet.dctcp.initial_window: 0 must be >= 1 packet");
}

void check_node(const PacketConfig& c) {
  if (c.control_priority >= kPriorities) {
    fail(fmt::format("packet.control_priority: {} is outside [0, {}]", c.control_priority, kPriorities - 1));
  }
  // Any DWRR quantum is valid: 0 means one MTU, and the deficit carries over between rounds.
  if (c.switches.buffer == Bytes()) fail("packet.switches.buffer: 0 B must be > 0");
  if (c.queue_sample_interval < Time()) {
    fail(fmt::format("packet.queue_sample_interval: {} must be >= 0 (0 = off)", show(c.queue_sample_interval)));
  }
  check_positive(c.deadlock_timeout, "deadlock_timeout", "");
}

}  // namespace

Bytes EcnConfig::kmin(Bandwidth port) const { return scale_to_port(kmin_at_25g, port); }
Bytes EcnConfig::kmax(Bandwidth port) const { return scale_to_port(kmax_at_25g, port); }

PacketConfig packet_profile(std::string_view name) {
  for (const Profile& p : kProfiles) {
    if (p.name == name) return p.make();
  }
  throw ConfigError(fmt::format("packet: unknown profile '{}' (known: {}){}", name, join_names(kProfileNames),
                                did_you_mean(name, kProfileNames)));
}

// The DCQCN paper's parameters are the default: in this model the ConnectX firmware defaults
// ("roce") leave two 100 Gb/s flows on one bottleneck at about half its rate (2 x 300 MB take 98 ms
// where 49 ms is ideal; the paper's set takes 51 ms), an effect to calibrate on hardware (weft
// calibrate) before making it the default.
std::string_view default_packet_profile() { return "roce-paper"; }

void validate(const PacketConfig& config) {
  check_ecn(config.ecn);
  check_dcqcn(config.dcqcn);
  check_pfc(config.pfc);
  check_transport(config);
  check_node(config);
}

}  // namespace weft::packet
