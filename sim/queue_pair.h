// A queue pair: the transfers one sender issues with the same flow entropy leave in the order they
// were started, one after another (an RDMA QP processes its work requests in order; NCCL posts a
// channel's steps to one connection). Latencies still overlap: the next transfer starts as soon as
// the previous one's last byte has left, not when it arrived.
#pragma once

#include <cstdint>
#include <functional>

#include "sim/core/recorder.h"

namespace weft {

struct QueuePairKey {
  NodeIndex src;
  uint64_t entropy;
  bool operator==(const QueuePairKey&) const = default;
};

struct QueuePairKeyHash {
  size_t operator()(const QueuePairKey& k) const {
    return std::hash<uint64_t>{}(k.entropy * 0x9E3779B97F4A7C15ULL ^ k.src);
  }
};

}  // namespace weft
