#include "sim/core/rng.h"

#include "sim/core/errors.h"

namespace weft {
namespace {

constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(uint64_t seed, std::string_view stream_name) {
  uint64_t state = seed ^ stable_hash(stream_name);
  for (uint64_t& word : s_) word = splitmix64(state);
}

uint64_t Rng::next_u64() {
  uint64_t result = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t Rng::uniform_below(uint64_t bound) {
  WEFT_ASSERT(bound > 0);
  // Rejection: draw again when x falls in the last, incomplete copy of [0, bound).
  uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t x;
  do {
    x = next_u64();
  } while (x >= limit);
  return x % bound;
}

}  // namespace weft
