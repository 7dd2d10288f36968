// Rank images (issue 19, item 1): a schedule that looks the same from rank r + d as from rank r
// (a ring, an all-to-all, the same on every node) runs one stream per orbit of ranks {r, r + d,
// r + 2d, ...} when it runs alone on a fabric that moves each rank's transfers as the images of
// the lead's (Fabric::enter_quotient). By the symmetry, each image of a stream issues the same
// steps at the same instants, so its dependencies on other ranks' streams are dependencies on
// the images of streams of the lead ranks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "collectives/schedule.h"
#include "sim/fabric.h"

namespace weft {

struct RankShift {
  uint32_t step = 0;            // d: rank r's streams look like rank r + d's
  uint32_t images = 1;          // m = ranks / d: the ranks in each orbit
  std::vector<uint32_t> image;  // stream -> its image at rank + d (same channel, same place)
};

// The shift by d ranks (d divides the ranks, d < ranks) when the schedule is invariant under it:
// every stream has an image at rank + d with the same runs, its send peers and wait targets moved
// by d too. Schedules with groups (NVLS, CollNet) are left out: a group's flow crosses several links
// of one orbit (an NVLS reduction crosses every GPU's link to the switch), and the integer fill,
// popping one of them first, gives the other GPUs' flows 1 bit/s more, so the unaggregated run is
// not symmetric and the quotient would not be exact (measured: NVLSTree on 16 DGX H100 at 8 GiB
// ran 3 % slower as images than one stream per rank).
std::optional<RankShift> rank_shift(const Schedule& schedule, uint32_t d);

// Each distinct transfer of the streams of ranks [0, d) with its m images: rank r + k d sends to
// peer + k d, with the entropy of the k-th image of its stream (entropy_base + stream).
std::vector<std::vector<Transfer>> transfer_orbits(const Schedule& schedule, const RankShift& shift,
                                                   std::span<const NodeIndex> rank_nodes, uint64_t entropy_base);

// Classes over the streams of ranks [0, d) (stream_classes, with each dependency on an image
// stream read as one on its orbit's lead-rank stream), each class holding its members' images:
// every stream belongs to the class of its orbit, and a class's size counts them all.
StreamClasses image_classes(const Schedule& schedule, const RankShift& shift,
                            const std::function<bool(uint32_t a, uint32_t b)>& alike);

}  // namespace weft
