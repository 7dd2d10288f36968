// Every knob of the packet-level fabric, with defaults from the sources in
// ../shared/reference/fabric_models.md (cited beside each default in packet_config.cpp), named
// profiles, and validate(): a bad value is a ConfigError naming the field and the allowed range,
// never a silent clamp.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/core/units.h"

namespace weft::packet {

inline constexpr int kPriorities = 8;  // 802.1p classes / InfiniBand data VLs modelled

enum class Transport : uint8_t {
  rdma,   // RoCEv2 / InfiniBand reliable connection: rate-paced, DCQCN on Ethernet when enabled
  dctcp,  // window-based, DCTCP's reaction to ECN (plain Ethernet clusters without RDMA)
};
enum class Retransmit : uint8_t { go_back_n, selective };
enum class Scheduler : uint8_t { strict, dwrr };

// RED-style marking at dequeue: probability 0 below kmin, pmax * (q - kmin) / (kmax - kmin) up to
// kmax, 1 above. Thresholds are given for a 25 Gb/s port and scale linearly with the port rate
// (HPCC ns-3 run.py: kmin = 100 KB * bw/25, kmax = 400 KB * bw/25).
struct EcnConfig {
  bool enabled = true;
  Bytes kmin_at_25g{100'000};
  Bytes kmax_at_25g{400'000};
  double pmax = 0.2;
  Bytes kmin(Bandwidth port) const;  // scaled to the port's rate
  Bytes kmax(Bandwidth port) const;
};

// DCQCN (Zhu et al., SIGCOMM 2015): reaction point at the sender, notification point at the receiver.
struct DcqcnConfig {
  bool enabled = true;
  double g = 1.0 / 256;         // alpha EWMA gain
  Time alpha_update_period;     // K: alpha decays by (1 - g) each period without a CNP
  Time rate_increase_timer;     // T
  Bytes byte_counter;           // B
  int fast_recovery_steps = 5;  // F
  Bandwidth rate_ai;            // additive increase step (at 25 Gb/s; scaled with the line rate)
  Bandwidth rate_hai;           // hyper increase step (at 25 Gb/s; scaled with the line rate)
  Bandwidth min_rate;
  double initial_alpha = 1.0;
  Time cnp_interval;            // notification point: at most one CNP per flow per interval
  Time rate_decrease_interval;  // at most one rate cut per interval
};

// PFC (IEEE 802.1Qbb) per ingress port x priority. A pause frame carries `quanta` (512 bit times
// each) and is refreshed at half that while the ingress stays above XON.
struct PfcConfig {
  bool enabled = true;
  bool dynamic = true;      // XOFF = alpha * free shared buffer (else the static xoff)
  double alpha = 1.0 / 8;   // dynamic threshold factor (HPCC ns-3 fork)
  Bytes xoff{100'000};      // static threshold per ingress port and priority
  Bytes xon_offset{3'000};  // resume when below XOFF - xon_offset (HPCC: 3 KB)
  Bytes headroom{0};        // 0 = computed per port: 2 MTU + 2 * rate * (link latency) + pause frame
  uint16_t quanta = 65535;
};

// Credit-based link-level flow control (InfiniBand per VL; NVLink and PCIe links too).
struct CreditConfig {
  Bytes buffer_per_vl{0};     // receiver buffer advertised per port and VL; 0 = rate x credit loop + MTU
  uint32_t block_bytes = 64;  // credits are counted in 64-byte blocks
};

struct LossyConfig {
  Retransmit mode = Retransmit::go_back_n;
  Time rto;                 // retransmission timeout
  uint32_t ack_every = 16;  // receiver acknowledges every N packets (and the last)
};

struct DctcpConfig {
  double g = 1.0 / 16;           // alpha EWMA gain (Alizadeh et al., SIGCOMM 2010)
  uint32_t initial_window = 10;  // packets
  Bytes k_at_10g{30'000};        // marking threshold at 10 Gb/s, scaled with the rate (HPCC run.py)
};

struct SwitchConfig {
  Bytes buffer{32'000'000};  // shared buffer per switch (Tomahawk/Spectrum class: tens of MB)
  Scheduler scheduler = Scheduler::strict;
  std::array<uint32_t, kPriorities> dwrr_quantum{};  // bytes per round; 0 = one MTU
  // InfiniBand and datacenter Ethernet switches (NVIDIA Quantum, Spectrum; Broadcom Tomahawk)
  // forward cut-through: a packet goes on once its header is in. false: store-and-forward, as
  // ns-3's switches do.
  bool cut_through = true;
};

struct PacketConfig {
  Transport transport = Transport::rdma;
  EcnConfig ecn;
  DcqcnConfig dcqcn;
  PfcConfig pfc;         // Ethernet links; with pfc.enabled = false they drop (lossy)
  CreditConfig credits;  // InfiniBand, NVLink, PCIe and generic links
  LossyConfig lossy;
  DctcpConfig dctcp;
  SwitchConfig switches;
  uint8_t control_priority = 6;  // CNPs and ACKs (NVIDIA cnp_802p_prio 6)
  Time queue_sample_interval;    // 0 = no queue-depth samples
  Time deadlock_timeout;         // no packet moved for this long while some wait: report a deadlock
};

// Profiles: "roce" (PFC + ECN + DCQCN, NVIDIA ConnectX defaults), "roce-paper" (DCQCN paper
// parameters), "roce-lossy" (no PFC: ECN + DCQCN + go-back-N), "ib" (credits only, no ECN/DCQCN),
// "tcp" (DCTCP over lossy Ethernet). Throws ConfigError listing them for an unknown name.
PacketConfig packet_profile(std::string_view name);
std::string_view default_packet_profile();  // "roce"

// Throws ConfigError for the first bad field ("packet.ecn: kmin (500 KB) above kmax (400 KB)").
void validate(const PacketConfig& config);

}  // namespace weft::packet
