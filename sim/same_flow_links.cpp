#include "sim/same_flow_links.h"

namespace weft {
namespace {

// SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014): consecutive indices to well-spread keys.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

}  // namespace

uint128 SameFlowLinks::flow_key(uint32_t flow) {
  return static_cast<uint128>(mix(flow)) << 64U | mix(static_cast<uint64_t>(flow) | 1ULL << 32U);
}

void SameFlowLinks::clear() {
  for (uint32_t slot : filled_) table_[slot] = kEmpty;
  filled_.clear();
  sets_.clear();
}

void SameFlowLinks::grow() {
  table_.assign(table_.empty() ? 256 : 2 * table_.size(), kEmpty);
  filled_.clear();
  const size_t mask = table_.size() - 1;
  for (uint32_t s = 0; s < sets_.size(); ++s) {
    size_t slot = static_cast<uint64_t>(sets_[s].key_sum) & mask;
    while (table_[slot] != kEmpty) slot = (slot + 1) & mask;
    table_[slot] = s;
    filled_.push_back(static_cast<uint32_t>(slot));
  }
}

uint32_t SameFlowLinks::enter(LinkId l, uint128 key_sum, uint32_t flows, uint64_t capacity) {
  if (2 * (sets_.size() + 1) > table_.size()) grow();
  const size_t mask = table_.size() - 1;
  size_t slot = static_cast<uint64_t>(key_sum) & mask;
  for (; table_[slot] != kEmpty; slot = (slot + 1) & mask) {
    Set& s = sets_[table_[slot]];
    if (s.key_sum != key_sum || s.flows != flows) continue;
    if (capacity < s.kept_capacity || (capacity == s.kept_capacity && l < s.kept)) {
      s.kept = l;
      s.kept_capacity = capacity;
    }
    return table_[slot];
  }
  table_[slot] = static_cast<uint32_t>(sets_.size());
  filled_.push_back(static_cast<uint32_t>(slot));
  sets_.push_back({key_sum, flows, l, l, capacity});
  return table_[slot];
}

}  // namespace weft
