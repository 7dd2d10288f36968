// NVLink interleaving, the same in every fabric: a GPU's traffic to a peer on NVSwitches goes over
// all its NVLinks at once (Router::route's `stripes`), so a transfer travels as one part per path,
// its bytes and its sender's limit in proportion to each path's rate (DGX H100: 5, 4, 4 and 5 links
// to the four NVSwitches), each part in a queue pair of its own so that each keeps its order.
// Groups (multicast, in-switch reduction) travel the same way over their reducing switches
// (sim/group_paths.h), in equal parts.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/fabric.h"
#include "topologies/routing.h"

namespace weft {

// Part i of `transfer` over `stripes` (the last part takes what rounding left).
Transfer stripe_part(const PathSet& stripes, const Transfer& transfer, size_t i);

// Part i of `group` over `n` reducing switches, as one transfer over the union of its links there:
// equal bytes, the sender's limit shared by all its stripes.
Transfer group_part(const GroupTransfer& group, size_t n, size_t i);

// Starts the parts of striped transfers and joins them: the transfer's callback runs once its last
// part arrived. `start_on(path, transfer, on_done)` is the fabric's own start on a given path; the
// parts are made one at a time (nothing allocated per transfer on this path).
class PartJoin {
 public:
  // `transfer` on the path the router gives it, or striped over every NVLink path when it has them.
  template <class StartOn>
  TransferId start(Router& router, const Transfer& transfer, OnTransferDone on_done, StartOn&& start_on) {
    const PathSet* stripes = nullptr;
    const Path& path = router.route(transfer.src, transfer.dst, transfer.entropy, stripes);
    if (stripes == nullptr) return start_on(path, transfer, std::move(on_done));
    return start_striped(*stripes, transfer, std::move(on_done), start_on);
  }

  template <class StartOn>
  TransferId start_striped(const PathSet& stripes, const Transfer& transfer, OnTransferDone on_done,
                           StartOn&& start_on) {
    const uint32_t j = open(static_cast<uint32_t>(stripes.size()), std::move(on_done));
    TransferId first = 0;
    for (size_t i = 0; i < stripes.size(); ++i) {
      const TransferId id = start_on(stripes[i], stripe_part(stripes, transfer, i), part_done(j));
      if (i == 0) first = id;
    }
    return first;
  }

  template <class StartOn>
  TransferId start_group(const std::vector<const Path*>& stripes, const GroupTransfer& group, OnTransferDone on_done,
                         StartOn&& start_on) {
    const uint32_t j = open(static_cast<uint32_t>(stripes.size()), std::move(on_done));
    TransferId first = 0;
    for (size_t i = 0; i < stripes.size(); ++i) {
      const TransferId id = start_on(*stripes[i], group_part(group, stripes.size(), i), part_done(j));
      if (i == 0) first = id;
    }
    return first;
  }

 private:
  struct State {
    uint32_t pending = 0;  // parts still on their way
    OnTransferDone on_done;
  };
  uint32_t open(uint32_t parts, OnTransferDone on_done);
  OnTransferDone part_done(uint32_t join);

  std::vector<State> states_;
  std::vector<uint32_t> free_;
};

}  // namespace weft
