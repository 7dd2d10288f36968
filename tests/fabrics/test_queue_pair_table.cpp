// QueuePairTable (sim/queue_pair.h): each key finds its own value, values keep their addresses as the
// table grows, and keys that differ in one field only (the sender, or the entropy's low or high bits:
// a stream index, a stripe, a communicator) never share a value.
#include <catch2/catch.hpp>
#include <vector>

#include "sim/queue_pair.h"

using namespace weft;

TEST_CASE("QueuePairTable: one value per key, stable through growth", "[queue_pair]") {
  QueuePairTable<uint64_t> table;
  std::vector<std::pair<QueuePairKey, uint64_t*>> seen;
  uint64_t n = 0;
  for (NodeIndex src = 0; src < 40; ++src) {
    for (uint64_t stream = 0; stream < 50; ++stream) {
      // Entropies as the fabrics form them: a communicator in the high bits, a stripe in the low ones.
      for (uint64_t entropy : {stream, (uint64_t{3} << 32) + stream, (uint64_t{1} << 63) | (stream << 8) | 2}) {
        QueuePairKey key{src, entropy};
        uint64_t& value = table[key];
        CHECK(value == 0);  // fresh
        value = ++n;
        seen.emplace_back(key, &value);
      }
    }
  }
  REQUIRE(n == 6000);  // the table grew from 64 slots many times over
  uint64_t expected = 0;
  for (auto& [key, address] : seen) {
    ++expected;
    CHECK(&table[key] == address);  // the same value, where it was
    CHECK(*address == expected);
  }
}
