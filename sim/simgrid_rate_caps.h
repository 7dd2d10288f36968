// Senders' rate limits (Transfer::max_rate) in the SimGrid fabric, as links on the route: SimGrid
// 3.32 cannot limit a host-to-host Comm's rate (Comm::set_rate asserts on a sendto_init comm and is
// not passed to the kernel's), and links must exist before SimGrid seals the platform. A pool of
// private links, one per transfer in SimGrid (a link shared by many transfers would join them all
// into one max-min system, re-solved at every completion), and one shared FATPIPE link per distinct
// limit beyond the pool (each crossing transfer gets the whole bandwidth: same rates, slower). This
// is the private link of flow's max-min (sim/flow_fabric.cpp) in SimGrid's terms.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace simgrid::s4u {
class Link;
class NetZone;
}  // namespace simgrid::s4u

namespace weft {

class SimGridRateCaps {
 public:
  // Creates the links in `zone`, which must not be sealed yet.
  explicit SimGridRateCaps(simgrid::s4u::NetZone& zone);

  // A link of `bps` (bit/s) for one transfer; `taken` is set when it is private (give it back).
  simgrid::s4u::Link* take(uint64_t bps, simgrid::s4u::Link*& taken);
  void give_back(simgrid::s4u::Link* link) { free_.push_back(link); }

 private:
  std::vector<simgrid::s4u::Link*> free_;
  std::vector<simgrid::s4u::Link*> shared_;
  std::unordered_map<uint64_t, simgrid::s4u::Link*> shared_of_rate_;  // bit/s -> its shared link
};

}  // namespace weft
