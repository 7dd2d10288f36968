#include "sim/stripes.h"

#include <algorithm>

namespace weft {

std::vector<Transfer> stripe_parts(const PathSet& stripes, const Transfer& transfer) {
  uint64_t total_rate = 0;
  for (const Path& p : stripes) total_rate += p.bottleneck.bps();
  std::vector<Transfer> parts;
  parts.reserve(stripes.size());
  uint64_t placed = 0;
  for (size_t i = 0; i < stripes.size(); ++i) {
    const uint64_t rate = stripes[i].bottleneck.bps();
    const uint64_t share =
        i + 1 == stripes.size()
            ? transfer.bytes.count() - placed
            : static_cast<uint64_t>(static_cast<uint128>(transfer.bytes.count()) * rate / total_rate);
    placed += share;
    Transfer t = transfer;
    t.bytes = Bytes(share);
    t.entropy = (1ULL << 62) | (transfer.entropy << 8) | i;  // a queue pair per stripe keeps its order
    if (transfer.max_rate > 0) {
      t.max_rate =
          std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<uint128>(transfer.max_rate) * rate / total_rate));
    }
    parts.push_back(t);
  }
  return parts;
}

uint32_t PartJoin::open(uint32_t parts, OnTransferDone on_done) {
  uint32_t j;
  if (free_.empty()) {
    j = static_cast<uint32_t>(states_.size());
    states_.emplace_back();
  } else {
    j = free_.back();
    free_.pop_back();
  }
  states_[j] = {parts, std::move(on_done)};
  return j;
}

OnTransferDone PartJoin::part_done(uint32_t join) {
  return [this, join] {
    State& state = states_[join];
    if (--state.pending > 0) return;
    OnTransferDone done = std::move(state.on_done);
    free_.push_back(join);
    done();  // may open joins, which may grow states_: state is not used after this
  };
}

}  // namespace weft
