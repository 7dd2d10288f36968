// Credit-based link-level flow control (InfiniBand per VL; NVLink and PCIe links too): per link and
// priority, the bytes the far end can still take, counted in blocks (64 B by default). A packet
// takes its wire bytes, rounded up to blocks, when it starts on the link; they come back one link
// latency after it leaves the far end's buffer. A credit link never drops.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/engine.h"
#include "sim/packet/packet_config.h"
#include "topologies/topology.h"

namespace weft::packet {

class Egress;
struct EgressPort;

class CreditState {
 public:
  // `egress` is woken when credits come back; it may be constructed after this object.
  CreditState(Engine& engine, const CreditConfig& config, size_t links, Egress& egress);

  // Gives every priority of the port its advertised buffer: buffer_per_vl, or (0) enough for line
  // rate over the credit loop plus two of the largest packets. Throws ConfigError when that cannot
  // hold one packet.
  void set_up(const EgressPort& port);

  // Wire bytes rounded up to whole blocks.
  uint32_t blocks(uint32_t wire) const { return static_cast<uint32_t>(round_up(wire, config_.block_bytes)); }
  bool covers(LinkId link, uint8_t priority, uint32_t wire) const {
    return credits_[link][priority] >= static_cast<int64_t>(round_up(wire, config_.block_bytes));
  }
  // Takes the credits for a packet of `wire` bytes; returns what it took (bytes).
  uint32_t take(LinkId link, uint8_t priority, uint32_t wire) {
    uint32_t charged = blocks(wire);
    credits_[link][priority] -= charged;
    return charged;
  }
  // The packet left the far end's buffer: its credits reach the sender `latency` later.
  void give_back(LinkId link, uint8_t priority, uint32_t charged, Time latency);

 private:
  static uint64_t round_up(uint64_t bytes, uint64_t block) { return (bytes + block - 1) / block * block; }

  Engine& engine_;
  const CreditConfig& config_;
  Egress& egress_;
  std::vector<std::array<int64_t, kPriorities>> credits_;  // by LinkId: bytes the far end can take
};

}  // namespace weft::packet
