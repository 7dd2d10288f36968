// Helpers shared by routing.cpp (inside hosts and domains) and routing_network.cpp (between hosts).
#pragma once

#include <cstdint>

#include "sim/core/recorder.h"
#include "sim/core/rng.h"

namespace weft::routing_detail {

inline constexpr uint16_t kUnreachable = UINT16_MAX;
inline constexpr uint32_t kNoSwitch = UINT32_MAX;

inline uint64_t pair_key(NodeIndex src, NodeIndex dst) { return (static_cast<uint64_t>(src) << 32) | dst; }

// The hash a switch (or a NIC choice) applies to a flow: seed, endpoints, entropy and a salt that
// differs per decision, so that decisions along one path are independent.
inline uint64_t flow_hash(uint64_t seed, NodeIndex src, NodeIndex dst, uint64_t entropy, uint64_t salt) {
  uint64_t state = seed ^ (entropy * 0x9E3779B97F4A7C15ULL) ^ pair_key(src, dst) ^ (salt * 0xD1B54A32D192ED03ULL);
  return splitmix64(state);
}

}  // namespace weft::routing_detail
