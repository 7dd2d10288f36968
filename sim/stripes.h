// NVLink interleaving, the same in every fabric: a GPU's traffic to a peer on NVSwitches goes over
// all its NVLinks at once (Router::route's `stripes`), so a transfer travels as one part per path,
// its bytes and its sender's limit in proportion to each path's rate (DGX H100: 5, 4, 4 and 5 links
// to the four NVSwitches), each part in a queue pair of its own so that each keeps its order.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/fabric.h"
#include "topologies/routing.h"

namespace weft {

// The parts of `transfer` over `stripes`, part i for stripes[i].
std::vector<Transfer> stripe_parts(const PathSet& stripes, const Transfer& transfer);

// Joins the parts of striped transfers: the transfer's callback runs once its last part arrived.
class PartJoin {
 public:
  // A join of `parts` parts; each part's callback is part_done(join).
  uint32_t open(uint32_t parts, OnTransferDone on_done);
  OnTransferDone part_done(uint32_t join);

 private:
  struct State {
    uint32_t pending = 0;  // parts still on their way
    OnTransferDone on_done;
  };
  std::vector<State> states_;
  std::vector<uint32_t> free_;
};

}  // namespace weft
