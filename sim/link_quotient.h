// The quotient of a fabric's links under a symmetry of one collective's traffic (issue 19, item 1).
// When every transfer has m images (ranks r, r + d, ... of a schedule that looks alike from each)
// routed as images of one another, the map "link i of image k's path -> link i of image k + 1's"
// is a permutation of the links used. Max-min fair rates are then equal along each of its cycles
// (orbits), so one flow of weight c * m on the orbits' representatives, each with the capacity of
// its whole orbit, gets exactly the rate each of the c * m real flows gets: on a link of orbit size
// o, c * m / o real flows share o times the capacity, and every step of the progressive filling
// (MaxMinSolver) sees the same shares, remaining capacities scaled by o.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "sim/fabric.h"
#include "topologies/routing.h"

namespace weft {

class LinkQuotient {
 public:
  // Routes every transfer of every orbit (`bytes`: the fewest it carries) and builds the orbits of
  // the links; false, with nothing kept, when two images' paths (or NVLink stripes) differ in number,
  // length, latency or a link's rate, or a link would have two images.
  bool build(Router& router, std::span<const std::vector<Transfer>> orbits);
  bool active() const { return !canonical_.empty(); }

  // The link that stands for l's orbit (l itself outside every orbit).
  LinkId canonical(LinkId l) const { return active() && canonical_[l] != kNone ? canonical_[l] : l; }
  // How many links the orbit of canonical link l holds (1 outside every orbit).
  uint32_t orbit_size(LinkId l) const;
  // The links of canonical link l's orbit.
  std::span<const LinkId> orbit(LinkId l) const;
  // `path` with each link replaced by its orbit's representative (same latency and bottleneck).
  const Path& canonical_path(const Path& path, Router& router);

 private:
  static constexpr LinkId kNone = UINT32_MAX;
  bool map_orbit(Router& router, const std::vector<Transfer>& orbit);
  bool map_images(const std::vector<const Path*>& paths, const Topology& topology);
  void build_orbits();

  std::vector<LinkId> next_;           // link i of image k -> link i of image k + 1 (kNone: unused)
  std::vector<LinkId> previous_;       // its inverse, to refuse a link with two preimages
  std::vector<LinkId> canonical_;      // per link: its orbit's smallest link (empty: not built)
  std::vector<uint32_t> orbit_begin_;  // per canonical link: where its orbit starts in members_
  std::vector<uint32_t> orbit_size_;   // per canonical link: its orbit's links (0: not canonical)
  std::vector<LinkId> members_;
  std::deque<Path> paths_;                // stable addresses
  std::vector<const Path*> by_original_;  // by the original's Path::id
};

}  // namespace weft
