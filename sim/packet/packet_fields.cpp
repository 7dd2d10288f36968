#include "sim/packet/packet_fields.h"

#include <array>

namespace weft::packet {
namespace {

constexpr std::array<std::string_view, 2> kTransports{"rdma", "dctcp"};
constexpr std::array<std::string_view, 2> kRetransmits{"go-back-n", "selective"};
constexpr std::array<std::string_view, 2> kSchedulers{"strict", "dwrr"};

using P = PacketConfig;

// One line per knob; the meaning and sources of each value are in packet_config.h/.cpp.
constexpr std::array kFields = {
    field<P, &P::ecn, &EcnConfig::enabled>("ecn.enabled", "", "RED/ECN marking at dequeue"),
    field<P, &P::ecn, &EcnConfig::kmin_at_25g>("ecn.kmin_at_25g", "bytes", "marking starts (at 25 Gb/s, scaled)"),
    field<P, &P::ecn, &EcnConfig::kmax_at_25g>("ecn.kmax_at_25g", "bytes", "marking reaches pmax (at 25 Gb/s)"),
    field<P, &P::ecn, &EcnConfig::pmax>("ecn.pmax", "", "marking probability at kmax"),
    field<P, &P::pfc, &PfcConfig::enabled>("pfc.enabled", "", "PFC on Ethernet links (off: they drop)"),
    field<P, &P::pfc, &PfcConfig::dynamic>("pfc.dynamic", "", "XOFF = alpha x free shared buffer"),
    field<P, &P::pfc, &PfcConfig::alpha>("pfc.alpha", "", "dynamic threshold factor"),
    field<P, &P::pfc, &PfcConfig::xoff>("pfc.xoff", "bytes", "static XOFF per ingress port and priority"),
    field<P, &P::pfc, &PfcConfig::xon_offset>("pfc.xon_offset", "bytes", "resume below XOFF minus this"),
    field<P, &P::pfc, &PfcConfig::headroom>("pfc.headroom", "bytes", "0 = computed per port"),
    field<P, &P::pfc, &PfcConfig::quanta>("pfc.quanta", "", "pause time per frame, in 512-bit quanta"),
    field<P, &P::dcqcn, &DcqcnConfig::enabled>("dcqcn.enabled", "", "DCQCN rate control at RDMA senders"),
    field<P, &P::dcqcn, &DcqcnConfig::g>("dcqcn.g", "", "alpha EWMA gain"),
    field<P, &P::dcqcn, &DcqcnConfig::alpha_update_period>("dcqcn.alpha_update_period", "time", "K"),
    field<P, &P::dcqcn, &DcqcnConfig::rate_increase_timer>("dcqcn.rate_increase_timer", "time", "T"),
    field<P, &P::dcqcn, &DcqcnConfig::byte_counter>("dcqcn.byte_counter", "bytes", "B"),
    field<P, &P::dcqcn, &DcqcnConfig::fast_recovery_steps>("dcqcn.fast_recovery_steps", "", "F"),
    field<P, &P::dcqcn, &DcqcnConfig::rate_ai>("dcqcn.rate_ai", "rate", "additive increase (at 25 Gb/s)"),
    field<P, &P::dcqcn, &DcqcnConfig::rate_hai>("dcqcn.rate_hai", "rate", "hyper increase (at 25 Gb/s)"),
    field<P, &P::dcqcn, &DcqcnConfig::min_rate>("dcqcn.min_rate", "rate", "lowest sending rate"),
    field<P, &P::dcqcn, &DcqcnConfig::initial_alpha>("dcqcn.initial_alpha", "", "alpha of a new flow"),
    field<P, &P::dcqcn, &DcqcnConfig::cnp_interval>("dcqcn.cnp_interval", "time", "at most one CNP per flow per"),
    field<P, &P::dcqcn, &DcqcnConfig::rate_decrease_interval>("dcqcn.rate_decrease_interval", "time",
                                                              "at most one rate cut per"),
    field<P, &P::credits, &CreditConfig::buffer_per_vl>("credits.buffer_per_vl", "bytes",
                                                        "0 = rate x credit loop + MTU"),
    field<P, &P::credits, &CreditConfig::block_bytes>("credits.block_bytes", "bytes", "credit unit"),
    named<P, &kRetransmits, &P::lossy, &LossyConfig::mode>("lossy.mode", "go-back-n | selective"),
    field<P, &P::lossy, &LossyConfig::rto>("lossy.rto", "time", "retransmission timeout"),
    field<P, &P::lossy, &LossyConfig::ack_every>("lossy.ack_every", "packets", "acknowledge every N packets"),
    field<P, &P::dctcp, &DctcpConfig::g>("dctcp.g", "", "alpha EWMA gain"),
    field<P, &P::dctcp, &DctcpConfig::initial_window>("dctcp.initial_window", "packets", "first window"),
    field<P, &P::dctcp, &DctcpConfig::k_at_10g>("dctcp.k_at_10g", "bytes", "marking threshold (at 10 Gb/s)"),
    field<P, &P::switches, &SwitchConfig::buffer>("switch.buffer", "bytes", "shared buffer per switch"),
    named<P, &kSchedulers, &P::switches, &SwitchConfig::scheduler>("switch.scheduler", "strict | dwrr"),
    field<P, &P::switches, &SwitchConfig::cut_through>("switch.cut_through", "",
                                                       "forward once the header is in (false: whole packets)"),
    named<P, &kTransports, &P::transport>("transport", "rdma | dctcp"),
    field<P, &P::control_priority>("control_priority", "", "priority of CNPs and ACKs"),
    field<P, &P::deadlock_timeout>("deadlock_timeout", "time", "no progress this long: report a deadlock"),
    field<P, &P::queue_sample_interval>("queue_sample_interval", "time", "queue-depth samples (0 = off)"),
};

}  // namespace

std::span<const Field<PacketConfig>> packet_fields() { return kFields; }

}  // namespace weft::packet
