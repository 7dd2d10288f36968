// PROFILE.network.yaml (format weft-network-profile, docs/schedule-json.md), read through the one
// YAML door.
#pragma once

#include <string>

#include "collectives/network_calibration.h"

namespace weft {

// ConfigError with file:line:column for a file that is not a weft-network-profile version 1.
NetworkCalibration load_network_calibration(const std::string& path);

}  // namespace weft
