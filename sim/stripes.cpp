#include "sim/stripes.h"

#include <algorithm>

namespace weft {

namespace {

uint64_t share(uint64_t value, uint64_t rate, uint64_t total_rate) {
  return static_cast<uint64_t>(static_cast<uint128>(value) * rate / total_rate);
}

}  // namespace

size_t stripes_used(uint64_t bytes, size_t paths) {
  return static_cast<size_t>(std::clamp<uint64_t>(bytes / kNvlinkPacketData, 1, paths));
}

Transfer stripe_part(const PathSet& stripes, const Transfer& transfer, size_t i) {
  const size_t n = stripes.size();
  const size_t used = stripes_used(transfer.bytes.count(), n);
  const auto rate_of = [&](size_t k) { return stripes[stripe_path(transfer.entropy, n, used, k)].bottleneck.bps(); };
  uint64_t total_rate = 0;
  for (size_t k = 0; k < used; ++k) total_rate += rate_of(k);
  const uint64_t rate = rate_of(i);
  Transfer t = transfer;
  if (i + 1 < used) {
    t.bytes = Bytes(share(transfer.bytes.count(), rate, total_rate));
  } else {
    uint64_t placed = 0;
    for (size_t k = 0; k + 1 < used; ++k) placed += share(transfer.bytes.count(), rate_of(k), total_rate);
    t.bytes = Bytes(transfer.bytes.count() - placed);
  }
  // A queue pair per path keeps each stripe's order.
  t.entropy = (1ULL << 62) | (transfer.entropy << 8) | stripe_path(transfer.entropy, n, used, i);
  if (transfer.max_rate > 0) t.max_rate = std::max<uint64_t>(1, share(transfer.max_rate, rate, total_rate));
  return t;
}

Transfer group_part(const GroupTransfer& group, size_t paths, size_t i) {
  const size_t used = stripes_used(group.bytes.count(), paths);
  const uint64_t each = group.bytes.count() / used;
  const uint64_t bytes = i + 1 == used ? group.bytes.count() - each * i : each;
  // Stripe queue pairs are apart from unicast ones (whose entropy is a small stream index), and a
  // multicast from a rank apart from the reductions it takes part in (group_queue_pair).
  const uint64_t qp = group_queue_pair(group, stripe_path(group.entropy, paths, used, i));
  Transfer t{group.srcs.front(), group.dsts.front(), Bytes(bytes), 0, qp, group.tag};
  t.max_rate = group.max_rate / used;  // the sender's limit covers all its stripes
  t.copies = group.copies;
  return t;
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
