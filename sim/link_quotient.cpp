#include "sim/link_quotient.h"

#include <algorithm>

#include "sim/core/errors.h"
#include "sim/stripes.h"

namespace weft {

bool LinkQuotient::build(Router& router, std::span<const std::vector<Transfer>> orbits) {
  const Topology& topology = router.topology();
  next_.assign(topology.link_count(), kNone);
  previous_.assign(topology.link_count(), kNone);
  bool images = true;
  for (size_t o = 0; o < orbits.size() && images; ++o) images = map_orbit(router, orbits[o]);
  if (!images) {
    next_.clear();
    previous_.clear();
    return false;
  }
  build_orbits();
  return true;
}

// One orbit's paths, or each of its NVLink stripes (sim/stripes.h): stripe j of one image maps to
// stripe j of the next. A transfer too small for every stripe starts at the one its entropy names,
// so then the images' entropies must name the same one.
bool LinkQuotient::map_orbit(Router& router, const std::vector<Transfer>& orbit) {
  std::vector<const Path*> paths;
  std::vector<const PathSet*> striped;
  for (const Transfer& t : orbit) {
    const PathSet* stripes = nullptr;
    paths.push_back(&router.route(t.src, t.dst, t.entropy, stripes));
    striped.push_back(stripes);
  }
  if (striped.front() == nullptr) {
    return std::ranges::all_of(striped, [](const PathSet* s) { return s == nullptr; }) &&
           map_images(paths, router.topology());
  }
  const size_t n = striped.front()->size();
  for (size_t k = 0; k < orbit.size(); ++k) {
    if (striped[k] == nullptr || striped[k]->size() != n) return false;
    if (stripes_used(orbit[k].bytes.count(), n) < n && orbit[k].entropy % n != orbit.front().entropy % n) return false;
  }
  for (size_t j = 0; j < n; ++j) {
    for (size_t k = 0; k < orbit.size(); ++k) paths[k] = &(*striped[k])[j];
    if (!map_images(paths, router.topology())) return false;
  }
  return true;
}

// Link i of each path maps to link i of the next (the last to the first's): a well-defined
// bijection between links of the same rate, on paths of the same latency.
bool LinkQuotient::map_images(const std::vector<const Path*>& paths, const Topology& topology) {
  for (size_t k = 0; k < paths.size(); ++k) {
    const Path& from = *paths[k];
    const Path& to = *paths[(k + 1) % paths.size()];
    if (from.links.size() != to.links.size() || from.latency != to.latency) return false;
    for (size_t i = 0; i < from.links.size(); ++i) {
      const LinkId a = from.links[i];
      const LinkId b = to.links[i];
      if ((next_[a] != kNone && next_[a] != b) || (previous_[b] != kNone && previous_[b] != a)) return false;
      if (topology.link(a).goodput() != topology.link(b).goodput()) return false;
      next_[a] = b;
      previous_[b] = a;
    }
  }
  return true;
}

// next_ is a permutation of the links it maps (each orbit closes from the last image to the
// first), so it splits them into cycles: the orbits.
void LinkQuotient::build_orbits() {
  const size_t n = next_.size();
  canonical_.assign(n, kNone);
  orbit_begin_.assign(n, 0);
  orbit_size_.assign(n, 0);
  for (LinkId l = 0; l < n; ++l) {
    if (next_[l] == kNone || canonical_[l] != kNone) continue;
    const auto begin = static_cast<uint32_t>(members_.size());
    LinkId least = l;
    for (LinkId m = l;; m = next_[m]) {
      members_.push_back(m);
      least = std::min(least, m);
      if (next_[m] == l) break;
    }
    for (uint32_t i = begin; i < members_.size(); ++i) canonical_[members_[i]] = least;
    orbit_begin_[least] = begin;
    orbit_size_[least] = static_cast<uint32_t>(members_.size()) - begin;
  }
  next_.clear();
  previous_.clear();
}

uint32_t LinkQuotient::orbit_size(LinkId l) const { return active() && orbit_size_[l] > 0 ? orbit_size_[l] : 1; }

std::span<const LinkId> LinkQuotient::orbit(LinkId l) const {
  if (!active() || orbit_size_[l] == 0) return {};
  return {members_.data() + orbit_begin_[l], orbit_size_[l]};
}

const Path& LinkQuotient::canonical_path(const Path& path, Router& router) {
  if (path.id == 0) throw ModelError("rank images: a path the Router did not number in a quotient run");
  if (path.id >= by_original_.size()) by_original_.resize(std::max<size_t>(path.id + 1, 2 * by_original_.size()));
  const Path*& known = by_original_[path.id];
  if (known == nullptr) {
    Path& image = paths_.emplace_back(path);
    image.id = router.new_path_id();
    for (LinkId& l : image.links) {
      if (canonical_[l] == kNone) throw ModelError("rank images: a transfer outside every orbit in a quotient run");
      l = canonical_[l];
    }
    known = &image;
  }
  return *known;
}

}  // namespace weft
