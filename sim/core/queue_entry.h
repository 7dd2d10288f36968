// One pending event in the engine's queue: 16 bytes, so that four share a cache line.
#pragma once

#include <cstdint>

#include "sim/core/units.h"

namespace weft {

struct QueueEntry {
  int64_t time;    // ps, never negative
  uint64_t order;  // breaks ties between equal times; unique per entry
  // (time, order) as one integer: entries compare as their keys do.
  uint128 key() const { return static_cast<uint128>(time) << 64 | order; }
};

}  // namespace weft
