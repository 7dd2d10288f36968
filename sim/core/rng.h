// Reproducible random streams: one scenario seed, one stream per component derived from
// (seed, stable name). Own distributions, because std:: distributions differ between libraries.
#pragma once

#include <cstdint>
#include <string_view>

namespace weft {

// SplitMix64 step (Steele, Lea, Flood 2014): used to spread a seed into generator state.
constexpr uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// FNV-1a, 64-bit: a stable hash of a component name (same value on every platform and run).
constexpr uint64_t stable_hash(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

// xoshiro256** (Blackman & Vigna 2018).
class Rng {
 public:
  Rng(uint64_t seed, std::string_view stream_name);

  uint64_t next_u64();
  // Uniform in [0, bound), without modulo bias; bound > 0.
  uint64_t uniform_below(uint64_t bound);
  // Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

 private:
  uint64_t s_[4];
};

}  // namespace weft
