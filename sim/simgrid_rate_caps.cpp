#include "sim/simgrid_rate_caps.h"

#include <simgrid/s4u.hpp>

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {
namespace {

namespace sg4 = simgrid::s4u;

constexpr size_t kPrivateCaps = 4096;
constexpr size_t kSharedCaps = 256;

}  // namespace

SimGridRateCaps::SimGridRateCaps(sg4::NetZone& zone) {
  for (size_t i = 0; i < kPrivateCaps + kSharedCaps; ++i) {
    sg4::Link* cap = zone.create_link(fmt::format("rate-cap-{}", i), 1.0);  // bytes/s, set at use
    cap->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
    (i < kPrivateCaps ? free_ : shared_).push_back(cap->seal());
  }
}

sg4::Link* SimGridRateCaps::take(uint64_t bps, sg4::Link*& taken) {
  const double bytes_per_s = static_cast<double>(bps) / 8.0;
  if (!free_.empty()) {
    taken = free_.back();
    free_.pop_back();
    taken->set_bandwidth(bytes_per_s);
    return taken;
  }
  auto it = shared_of_rate_.find(bps);
  if (it != shared_of_rate_.end()) return it->second;
  if (shared_of_rate_.size() == shared_.size()) {
    throw ModelError(
        fmt::format("simgrid fabric: more than {} transfers with a rate limit at once, of more than {} distinct limits",
                    kPrivateCaps, kSharedCaps));
  }
  sg4::Link* cap = shared_[shared_of_rate_.size()];
  cap->set_bandwidth(bytes_per_s);
  shared_of_rate_.emplace(bps, cap);
  return cap;
}

}  // namespace weft
