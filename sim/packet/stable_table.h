// A table of T addressed by a 32-bit index, grown one element at a time, whose elements never
// move: they live in chunks of 2^kChunkBits, so references stay valid as the table grows and an
// index is found with a shift and a mask. The packet and flow tables are read this way several
// times per hop, where a std::deque's indexing costs a division.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace weft::packet {

template <typename T, uint32_t kChunkBits>
class StableTable {
 public:
  // Appends a default T; returns its index.
  uint32_t add() {
    if ((size_ & kChunkMask) == 0) chunks_.push_back(std::make_unique<T[]>(kChunk));
    return size_++;
  }
  T& operator[](uint32_t i) { return chunks_[i >> kChunkBits][i & kChunkMask]; }
  const T& operator[](uint32_t i) const { return chunks_[i >> kChunkBits][i & kChunkMask]; }
  uint32_t size() const { return size_; }

 private:
  static constexpr uint32_t kChunk = 1u << kChunkBits;
  static constexpr uint32_t kChunkMask = kChunk - 1;

  std::vector<std::unique_ptr<T[]>> chunks_;
  uint32_t size_ = 0;
};

}  // namespace weft::packet
