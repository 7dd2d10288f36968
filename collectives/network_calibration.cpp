#include "collectives/network_calibration.h"

#include <fmt/format.h>

#include <algorithm>

#include "scenarios/yaml_reader.h"
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

NetworkCalibration load_network_calibration(const std::string& path) {
  const YamlMap top = YamlMap::load_file(path);
  if (top.string_or("format", "") != "weft-network-profile" || top.unsigned_integer_or("version", 0) != 1) {
    throw ConfigError(fmt::format("{}: not a weft-network-profile version 1 (write one with weft calibrate)", top.where()));
  }
  NetworkCalibration c;
  c.source = top.string_or("source", path);
  c.gpu = top.string_or("gpu", "");
  if (top.has("launch_overhead_us")) c.launch_us = top.real("launch_overhead_us");
  if (!top.has("series")) return c;
  for (const YamlMap& s : top.list_of_maps("series")) {
    CalibratedSeries f{s.string("kind"), s.string("op"), static_cast<uint32_t>(s.unsigned_integer("ranks")),
                       s.string_or("algorithm", ""), s.string_or("protocol", ""), s.string_or("link", "")};
    f.alpha_us = s.real("alpha_us");
    f.beta_GBps = s.real("beta_GBps");
    f.from_bytes = s.has("from_bytes") ? s.real("from_bytes") : 0;
    if (f.alpha_us < 0 || f.beta_GBps <= 0) {
      throw ConfigError(fmt::format("{}: expected alpha_us >= 0 and beta_GBps > 0", s.where()));
    }
    c.series.push_back(std::move(f));
  }
  return c;
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
