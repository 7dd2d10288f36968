#include "sim/same_flow_links.h"

#include "sim/core/rng.h"

namespace weft {

// Two successive SplitMix64 outputs from the flow's index: consecutive indices to well-spread keys.
uint128 SameFlowLinks::flow_key(uint32_t flow) {
  uint64_t state = flow;
  const uint64_t high = splitmix64(state);
  return static_cast<uint128>(high) << 64U | splitmix64(state);
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
