// A packet of the packet fabric and the pool that recycles them. The fabric names a packet by its
// index in the pool (4 bytes), so an event or a queue slot carries an index, not a copy.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/fabric.h"
#include "sim/packet/stable_table.h"
#include "topologies/routing.h"

namespace weft::packet {

enum class Kind : uint8_t { data, ack, nack, cnp };

struct Packet {
  const Path* path = nullptr;
  TransferId flow_id = 0;  // the flow's id: its slot may be reused once it is finished
  uint32_t flow = 0;
  uint32_t seq = 0;      // data: packet number in its flow; ack/nack: the receiver's next expected
  uint32_t payload = 0;  // bytes (data); 0 for control packets
  uint32_t charged = 0;  // bytes held in the current node's buffer / credits taken
  LinkId in_link = 0;    // the link it arrived on (valid when hop > 0)
  uint16_t hop = 0;      // index in path->links of the link it is queued for or crossing
  uint16_t echo = 0;     // ack: ECN-marked packets acknowledged since the previous ack
  Kind kind = Kind::data;
  uint8_t priority = 0;
  bool ecn = false;   // congestion experienced
  bool read = false;  // left host memory: its consumer reads it, so host links hold no credits for it
};

// Packets in flight, by index. Slots are reused, so a packet's index is valid from acquire() to
// release() only.
class PacketPool {
 public:
  // A packet with every field at its default, counted as in the network until release().
  uint32_t acquire() {
    uint32_t p = 0;
    if (free_.empty()) {
      p = packets_.add();
    } else {
      p = free_.back();
      free_.pop_back();
    }
    ++in_network_;
    packets_[p] = Packet{};
    return p;
  }
  void release(uint32_t p) {
    free_.push_back(p);
    --in_network_;
  }
  Packet& operator[](uint32_t p) { return packets_[p]; }
  const Packet& operator[](uint32_t p) const { return packets_[p]; }
  uint64_t in_network() const { return in_network_; }  // packets queued or on a wire

 private:
  StableTable<Packet, 10> packets_;  // 1024 packets (48 KiB) per chunk
  std::vector<uint32_t> free_;
  uint64_t in_network_ = 0;
};

}  // namespace weft::packet
