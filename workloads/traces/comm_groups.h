// ASTRA-sim's communicator-group file (--comm-group-configuration, ASTRA-sim PR #319):
// {"<process-group name>": [global ranks...], ...}, matched to a node's `pg_name`.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace weft {

using CommGroups = std::map<std::string, std::vector<uint32_t>>;

// Throws ConfigError naming the file and the key when it is not that shape.
CommGroups read_comm_groups(const std::string& path);
// Writes `groups` in the same shape (keys in map order).
void write_comm_groups(const CommGroups& groups, const std::string& path);

}  // namespace weft
