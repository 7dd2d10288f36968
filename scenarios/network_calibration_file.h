// PROFILE.network.yaml (format weft-network-profile, docs/schedule-json.md), read and written
// through the one YAML door.
#pragma once

#include <string>

#include "collectives/network_calibration.h"

namespace weft {

// ConfigError with file:line:column for a file that is not a weft-network-profile version 1.
NetworkCalibration load_network_calibration(const std::string& path);
NetworkCalibration parse_network_calibration(const std::string& text, const std::string& source);

// The file `weft calibrate` writes; parse_network_calibration reads back every field (numbers with
// the digits written: alpha and beta to 6 significant digits, residuals and efficiencies to 4 places).
std::string network_calibration_yaml(const NetworkCalibration& c);

}  // namespace weft
