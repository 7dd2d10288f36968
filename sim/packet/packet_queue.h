// A FIFO of packet indices: one egress queue (one priority of one port). A ring buffer that grows
// by doubling, so a queue allocates only while it reaches a new depth. Inline: it is on every hop.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace weft::packet {

class PacketQueue {
 public:
  bool empty() const { return size_ == 0; }
  uint32_t front() const { return slots_[head_]; }
  void push(uint32_t p) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) % slots_.size()] = p;
    ++size_;
  }
  uint32_t pop() {
    uint32_t p = slots_[head_];
    head_ = (head_ + 1) % slots_.size();
    --size_;
    return p;
  }

 private:
  void grow() {
    std::vector<uint32_t> bigger(std::max<size_t>(16, slots_.size() * 2));
    for (size_t i = 0; i < size_; ++i) bigger[i] = slots_[(head_ + i) % slots_.size()];
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<uint32_t> slots_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace weft::packet
