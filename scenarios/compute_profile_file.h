// Compute profile files (format in workloads/compute_model.h), read and written through the one
// YAML door.
#pragma once

#include <string>
#include <vector>

#include "workloads/compute_model.h"

namespace weft {

// The defaults of `software` (or of the file's own `software: "2023"`) with a profile file's values
// on top. ConfigError with file:line:column for bad YAML, unknown keys, unknown GPUs (with the closest
// name), unknown software generations and fractions outside (0, 1].
ComputeProfile load_compute_profile(const std::string& path, SoftwareStack software = SoftwareStack::y2025);
ComputeProfile parse_compute_profile(const std::string& text, const std::string& source_name,
                                     SoftwareStack software = SoftwareStack::y2025);

// A profile file setting `file`'s values (fractions to 4 places); the comment lines go first.
std::string compute_profile_yaml(const ProfileOverrides& file, const std::vector<std::string>& comments = {});

}  // namespace weft
