#include "collectives/network_calibration.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/errors.h"

namespace weft {

std::optional<Time> NetworkCalibration::time(std::string_view kind, std::string_view op, uint32_t ranks,
                                             std::string_view algorithm, std::string_view protocol,
                                             std::string_view link, uint64_t bytes) const {
  const CalibratedSeries* regime = nullptr;
  for (const CalibratedSeries& s : series) {
    if (s.kind != kind || s.op != op || s.ranks != ranks || s.algorithm != algorithm || s.protocol != protocol ||
        s.link != link) {
      continue;
    }
    // The regime with the largest start at or below `bytes` (the first regime starts at 0).
    if (s.from_bytes <= static_cast<double>(bytes) && (!regime || s.from_bytes > regime->from_bytes)) regime = &s;
  }
  if (!regime || regime->beta_GBps <= 0) return std::nullopt;
  const double us = regime->alpha_us + static_cast<double>(bytes) / (regime->beta_GBps * 1e3);
  return Time::ps(static_cast<int64_t>(us * 1e6 + 0.5));
}

std::string link_class(std::span<const NodeIndex> gpus, const Topology& topology) {
  if (gpus.size() <= 1) return "self";
  const int64_t host = topology.node(gpus.front()).host;
  for (NodeIndex g : gpus) {
    if (host < 0 || topology.node(g).host != host) return "inter";
  }
  return "intra";
}

}  // namespace weft
