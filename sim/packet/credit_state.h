// Credit-based link-level flow control (InfiniBand per VL; NVLink and PCIe links too): per link and
// priority, the bytes the far end can still take, counted in blocks (64 B by default). A packet
// takes its wire bytes, rounded up to blocks, when it starts on the link; they come back one link
// latency after it leaves the far end's buffer. A credit link never drops.
// A return is not an event of its own: it waits in its link's list with the place in the event
// order (time, reserved sequence) its event would have had, counts from that place on, and wakes
// the port there only when the port could use it (Egress::credit_wake): a busy port, the common
// case, looks again when its serialisation ends. So the run is the one an event per return gives,
// with a third fewer events on credit links.
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

class CreditState final : public Engine::SequenceHolder {
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
    settle(link);
    return credits_[link][priority] >= static_cast<int64_t>(round_up(wire, config_.block_bytes));
  }
  // Takes the credits for a packet of `wire` bytes; returns what it took (bytes).
  uint32_t take(LinkId link, uint8_t priority, uint32_t wire) {
    settle(link);
    uint32_t charged = blocks(wire);
    credits_[link][priority] -= charged;
    return charged;
  }
  // The packet left the far end's buffer: its credits reach the sender `latency` later.
  void give_back(LinkId link, uint8_t priority, uint32_t charged, Time latency);
  // The place in the event order of the link's next return not yet counted; false when none.
  bool next_return(LinkId link, Time& at, uint64_t& sequence) const;

  void sequences(std::vector<uint64_t>& out) const override;
  void renumber(const Engine& engine) override;

 private:
  struct Return {
    int64_t at;         // ps
    uint64_t sequence;  // reserved when the credits were given back
    uint32_t charged;
    uint8_t priority;
  };
  struct Returns {  // in order of (at, sequence): one latency after packets left, in turn
    std::vector<Return> items;
    size_t head = 0;
  };
  // Counts the returns whose place in the order the running event has reached.
  void settle(LinkId link) const;

  static uint64_t round_up(uint64_t bytes, uint64_t block) { return (bytes + block - 1) / block * block; }

  Engine& engine_;
  const CreditConfig& config_;
  Egress& egress_;
  mutable std::vector<std::array<int64_t, kPriorities>> credits_;  // by LinkId: bytes the far end can take
  mutable std::vector<Returns> returns_;                           // by LinkId
};

}  // namespace weft::packet
