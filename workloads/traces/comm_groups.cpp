#include "workloads/traces/comm_groups.h"

#include <fmt/format.h>

#include <fstream>
#include <istream>
#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "workloads/traces/byte_reader.h"

namespace weft {

CommGroups read_comm_groups(const std::string& path) {
  TraceFile file(path);
  TraceStreambuf buffer(file);
  std::istream in(&buffer);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("comm-group file '{}': not JSON: {}", path, e.what()));
  }
  if (!doc.is_object()) {
    throw ConfigError(fmt::format("comm-group file '{}': expected an object {{\"<group>\": [ranks...]}}", path));
  }
  CommGroups groups;
  for (const auto& [key, ranks] : doc.items()) {
    if (!ranks.is_array()) {
      throw ConfigError(fmt::format("comm-group file '{}': key '{}': expected a list of ranks", path, key));
    }
    std::vector<uint32_t>& list = groups[key];
    for (const auto& r : ranks) {
      if (!r.is_number_unsigned() || r.get<uint64_t>() > UINT32_MAX) {
        throw ConfigError(
            fmt::format("comm-group file '{}': key '{}': expected rank numbers, got {}", path, key, r.dump()));
      }
      list.push_back(r.get<uint32_t>());
    }
  }
  return groups;
}

void write_comm_groups(const CommGroups& groups, const std::string& path) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  for (const auto& [key, ranks] : groups) doc[key] = ranks;
  std::ofstream out(path);
  out << doc.dump() << '\n';
  if (!out) throw ConfigError(fmt::format("comm-group file '{}': cannot write", path));
}

}  // namespace weft
