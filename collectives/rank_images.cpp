#include "collectives/rank_images.h"

#include <algorithm>
#include <unordered_map>

namespace weft {
namespace {

// A stream's place: its rank, its channel, and its order among the streams of both.
uint64_t place_key(uint32_t rank, uint32_t channel, uint32_t ordinal) {
  return (uint64_t{rank} << 32) | (uint64_t{channel} << 16) | ordinal;
}

// stream -> the stream at the same place of rank + d; empty when one has no image there.
std::vector<uint32_t> images_at(const Schedule& schedule, uint32_t d) {
  const auto n = static_cast<uint32_t>(schedule.streams.size());
  std::unordered_map<uint64_t, uint32_t> by_place;
  std::vector<uint64_t> keys(n);
  std::unordered_map<uint64_t, uint32_t> ordinals;
  for (uint32_t s = 0; s < n; ++s) {
    const Stream& stream = schedule.streams[s];
    const uint32_t ordinal = ordinals[place_key(stream.rank, stream.channel, 0)]++;
    if (ordinal > 0xFFFF || stream.channel > 0xFFFF) return {};
    keys[s] = place_key(stream.rank, stream.channel, ordinal);
    by_place.emplace(keys[s], s);
  }
  std::vector<uint32_t> image(n);
  for (uint32_t s = 0; s < n; ++s) {
    const Stream& stream = schedule.streams[s];
    const uint64_t shifted =
        keys[s] - (uint64_t{stream.rank} << 32) + (uint64_t{(stream.rank + d) % schedule.ranks} << 32);
    const auto it = by_place.find(shifted);
    if (it == by_place.end()) return {};
    image[s] = it->second;
  }
  return image;
}

// Whether stream b is stream a moved by d ranks: the same runs, peers and wait targets moved too.
bool moved_alike(const Schedule& schedule, const std::vector<uint32_t>& image, uint32_t d, uint32_t a, uint32_t b) {
  const Stream& x = schedule.streams[a];
  const Stream& y = schedule.streams[b];
  if (x.runs.size() != y.runs.size()) return false;
  const auto moved = [&](int32_t w) { return w < 0 ? -1 : static_cast<int32_t>(image[static_cast<size_t>(w)]); };
  for (size_t i = 0; i < x.runs.size(); ++i) {
    const StepRun& p = x.runs[i];
    const StepRun& q = y.runs[i];
    if (p.count != q.count || p.kind != q.kind || p.bytes != q.bytes || p.duration != q.duration ||
        p.wait_offset != q.wait_offset || p.also_wait_offset != q.also_wait_offset ||
        moved(p.wait_stream) != q.wait_stream || moved(p.also_wait_stream) != q.also_wait_stream) {
      return false;
    }
    if (p.kind == StepKind::send && (p.peer + d) % schedule.ranks != q.peer) return false;
  }
  return true;
}

}  // namespace

std::optional<RankShift> rank_shift(const Schedule& schedule, uint32_t d) {
  if (!schedule.groups.empty() || d == 0 || d >= schedule.ranks || schedule.ranks % d != 0) return std::nullopt;
  std::vector<uint32_t> image = images_at(schedule, d);
  if (image.empty()) return std::nullopt;
  for (uint32_t s = 0; s < image.size(); ++s) {
    if (!moved_alike(schedule, image, d, s, image[s])) return std::nullopt;
  }
  return RankShift{d, schedule.ranks / d, std::move(image)};
}

std::vector<std::vector<Transfer>> transfer_orbits(const Schedule& schedule, const RankShift& shift,
                                                   std::span<const NodeIndex> rank_nodes, uint64_t entropy_base) {
  std::vector<std::vector<Transfer>> orbits;
  for (uint32_t s = 0; s < schedule.streams.size(); ++s) {
    const Stream& stream = schedule.streams[s];
    if (stream.rank >= shift.step) continue;
    std::vector<std::pair<uint32_t, Bytes>> peers;  // each peer with the fewest bytes a step sends it
    for (const StepRun& run : stream.runs) {
      if (run.kind != StepKind::send) continue;
      auto it = std::find_if(peers.begin(), peers.end(), [&](const auto& p) { return p.first == run.peer; });
      if (it == peers.end()) {
        peers.emplace_back(run.peer, run.bytes);
      } else {
        it->second = std::min(it->second, run.bytes);
      }
    }
    for (auto [peer, bytes] : peers) {
      std::vector<Transfer>& orbit = orbits.emplace_back();
      uint32_t at = s;
      for (uint32_t k = 0; k < shift.images; ++k, at = shift.image[at]) {
        const uint32_t moved = k * shift.step;
        orbit.push_back({rank_nodes[stream.rank + moved], rank_nodes[(peer + moved) % schedule.ranks], bytes, 0,
                         entropy_base + at, 0});
      }
    }
  }
  return orbits;
}

StreamClasses image_classes(const Schedule& schedule, const RankShift& shift,
                            const std::function<bool(uint32_t a, uint32_t b)>& alike) {
  const auto n = static_cast<uint32_t>(schedule.streams.size());
  std::vector<uint32_t> lead_of(n);     // stream -> the stream of ranks [0, d) in its orbit
  std::vector<uint32_t> reduced_of(n);  // such a stream -> its index in `reduced`
  std::vector<uint32_t> original;       // index in `reduced` -> stream
  for (uint32_t s = 0; s < n; ++s) {
    if (schedule.streams[s].rank >= shift.step) continue;
    reduced_of[s] = static_cast<uint32_t>(original.size());
    original.push_back(s);
    for (uint32_t k = 0, at = s; k < shift.images; ++k, at = shift.image[at]) lead_of[at] = s;
  }
  Schedule reduced;  // the streams of ranks [0, d), waiting on the lead-rank streams of their targets' orbits
  reduced.name = schedule.name;
  reduced.ranks = schedule.ranks;
  reduced.max_in_flight = schedule.max_in_flight;
  for (uint32_t s : original) {
    Stream& stream = reduced.streams.emplace_back(schedule.streams[s]);
    for (StepRun& run : stream.runs) {
      for (int32_t* w : {&run.wait_stream, &run.also_wait_stream}) {
        if (*w >= 0) *w = static_cast<int32_t>(reduced_of[lead_of[static_cast<size_t>(*w)]]);
      }
    }
  }
  StreamClasses lead = stream_classes(reduced, [&](uint32_t a, uint32_t b) { return alike(original[a], original[b]); });
  StreamClasses out;
  out.class_of.resize(n);
  for (uint32_t s = 0; s < n; ++s) out.class_of[s] = lead.class_of[reduced_of[lead_of[s]]];
  for (uint32_t c : lead.lead) out.lead.push_back(original[c]);
  for (uint32_t size : lead.size) out.size.push_back(size * shift.images);
  return out;
}

}  // namespace weft
