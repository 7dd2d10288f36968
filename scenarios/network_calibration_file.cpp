#include "scenarios/network_calibration_reader.h"

#include <fmt/format.h>

#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"

namespace weft {

NetworkCalibration load_network_calibration(const std::string& path) {
  const YamlMap top = YamlMap::load_file(path);
  if (top.string_or("format", "") != "weft-network-profile" || top.unsigned_integer_or("version", 0) != 1) {
    throw ConfigError(top.location(), "", "not a weft-network-profile version 1 (write one with weft calibrate)");
  }
  NetworkCalibration c;
  c.source = top.string_or("source", path);
  c.gpu = top.string_or("gpu", "");
  if (top.has("launch_overhead_us")) c.launch_us = top.real("launch_overhead_us");
  if (!top.has("series")) return c;
  for (const YamlMap& s : top.list_of_maps("series")) {
    CalibratedSeries f{s.string("kind"),
                       s.string("op"),
                       static_cast<uint32_t>(s.unsigned_integer("ranks")),
                       s.string_or("algorithm", ""),
                       s.string_or("protocol", ""),
                       s.string_or("link", "")};
    f.alpha_us = s.real("alpha_us");
    f.beta_GBps = s.real("beta_GBps");
    f.from_bytes = s.has("from_bytes") ? s.real("from_bytes") : 0;
    if (f.alpha_us < 0 || f.beta_GBps <= 0) {
      throw ConfigError(s.location(), "", "expected alpha_us >= 0 and beta_GBps > 0");
    }
    c.series.push_back(std::move(f));
  }
  return c;
}

}  // namespace weft
