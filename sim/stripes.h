// NVLink interleaving, the same in every fabric: a GPU's traffic to a peer on NVSwitches goes over
// all its NVLinks at once (Router::route's `stripes`), so a transfer travels as one part per path,
// its bytes and its sender's limit in proportion to each path's rate (DGX H100: 5, 4, 4 and 5 links
// to the four NVSwitches), each part in a queue pair of its own so that each keeps its order.
// The interleave is by NVLink packet, which carries at most 256 B of data (Foley and Danskin,
// "Ultra-Performance Pascal GPU and NVLink Interconnect", IEEE Micro 37(2), 2017: a header flit and
// up to 16 data flits of 16 B): a transfer of b bytes uses at most b / 256 paths, starting at the
// path its entropy names, so that small transfers of different channels land on different links.
// Groups (multicast, in-switch reduction) travel the same way over their reducing switches
// (sim/group_paths.h), in equal parts.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/fabric.h"
#include "topologies/routing.h"

namespace weft {

inline constexpr uint64_t kNvlinkPacketData = 256;  // bytes of data in the largest NVLink packet

// How many of `paths` stripes a transfer of `bytes` interleaves over: one per NVLink packet, 1 to paths.
size_t stripes_used(uint64_t bytes, size_t paths);
// The path that part i of a transfer with `entropy` takes among `paths` stripes when it uses `used`
// of them: all in order, or `used` consecutive ones from the path its entropy names.
inline size_t stripe_path(uint64_t entropy, size_t paths, size_t used, size_t i) {
  return used == paths ? i : (entropy + i) % paths;
}

// Part i (of stripes_used) of `transfer` over `stripes` (the last part takes what rounding left).
Transfer stripe_part(const PathSet& stripes, const Transfer& transfer, size_t i);

// The queue pair of a group's stripe through switch `stripe` (one per source in the packet fabric):
// apart from unicast ones (bit 63; their entropy is a small stream index), and a multicast from one
// rank (bit 62) apart from the reductions that rank takes part in with the same entropy. NCCL's NVLS
// kernel multicasts each element as soon as it is reduced (all_reduce.h: one primitive,
// directRecvDirectSend, reduces and broadcasts), so a stream's multicast must not queue behind its
// reduction.
inline uint64_t group_queue_pair(const GroupTransfer& group, uint64_t stripe) {
  const uint64_t multicast = group.srcs.size() == 1 && group.dsts.size() > 1 ? 1ULL << 62 : 0;
  return (1ULL << 63) | multicast | (group.entropy << 8) | stripe;
}

// Part i (of stripes_used) of `group` over `paths` reducing switches, as one transfer over the union
// of its links there: equal bytes, the sender's limit shared by all its stripes.
Transfer group_part(const GroupTransfer& group, size_t paths, size_t i);

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
    const size_t used = stripes_used(transfer.bytes.count(), stripes.size());
    const auto path = [&](size_t i) -> const Path& {
      return stripes[stripe_path(transfer.entropy, stripes.size(), used, i)];
    };
    if (used == 1) return start_on(path(0), stripe_part(stripes, transfer, 0), std::move(on_done));
    const uint32_t j = open(static_cast<uint32_t>(used), std::move(on_done));
    TransferId first = 0;
    for (size_t i = 0; i < used; ++i) {
      const TransferId id = start_on(path(i), stripe_part(stripes, transfer, i), part_done(j));
      if (i == 0) first = id;
    }
    return first;
  }

  template <class StartOn>
  TransferId start_group(const std::vector<const Path*>& stripes, const GroupTransfer& group, OnTransferDone on_done,
                         StartOn&& start_on) {
    const size_t n = stripes.size();
    const size_t used = stripes_used(group.bytes.count(), n);
    const uint32_t j = open(static_cast<uint32_t>(used), std::move(on_done));
    TransferId first = 0;
    for (size_t i = 0; i < used; ++i) {
      const Path& path = *stripes[stripe_path(group.entropy, n, used, i)];
      const TransferId id = start_on(path, group_part(group, n, i), part_done(j));
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
