// The queue-pair index of the packet fabric's senders (see queue_pairs.h).
#include "sim/packet/queue_pairs.h"

#include "sim/core/rng.h"

namespace weft::packet {

size_t QueuePairs::KeyHash::operator()(const Key& k) const {
  uint64_t state = (static_cast<uint64_t>(k.src) << 32 | k.first_link) ^ (k.entropy * 0x9E3779B97F4A7C15ULL);
  return splitmix64(state);
}

uint32_t QueuePairs::of(NodeIndex src, LinkId first_link, uint64_t entropy) {
  auto [it, added] = index_.try_emplace(Key{src, first_link, entropy}, 0);
  if (added) {
    it->second = static_cast<uint32_t>(queue_pairs_.size());
    queue_pairs_.push_back({{}, first_link});
    feeders_[first_link].queue_pairs.push_back(it->second);
  }
  return it->second;
}

}  // namespace weft::packet
