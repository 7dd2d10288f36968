// An nccl-tests log as measurements `weft calibrate` fits: each row a collective of the log's ranks,
// filed under the series (op, ranks, algorithm/protocol, link class) that weft's tuner picks for its
// size on the named system, which is where `weft collective --calibration` looks its fit up.
#pragma once

#include <string>

#include "executor/measured_file.h"
#include "scenarios/collective_request.h"

namespace weft {

// `request` names the system (and may set --op for a log that does not name its test). Throws
// ConfigError for a malformed log or one that contradicts the system (see compare_nccl_tests).
Measured measured_from_nccl_tests(const std::string& log_path, const CollectiveRequest& request);

// Whether a file is a measured.json (its first non-blank character opens a JSON object).
bool looks_like_json(const std::string& path);

}  // namespace weft
