// The one door for YAML: every read says file:line:column, the key, and what was expected; keys
// nobody read are reported as unknown. Models never see YAML or strings.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/units.h"

namespace YAML {  // NOLINT(readability-identifier-naming): yaml-cpp's namespace
class Node;       // yaml-cpp stays private to this layer: only yaml_reader.cpp and the writers see it
}  // namespace YAML

namespace weft {

class YamlMap {
 public:
  // Parses `text`; `source` names it in messages (a path, or "<bundled default.yaml>").
  static YamlMap parse(const std::string& text, const std::string& source);
  static YamlMap load_file(const std::string& path);

  YamlMap(const YamlMap&) = default;
  // Rebinds this map to other's node (YAML::Node's own assignment would overwrite the data of the
  // node this map points to, i.e. the file it was read from).
  YamlMap& operator=(const YamlMap& other);

  bool has(const std::string& key) const;
  bool is_map(const std::string& key) const;   // present and a mapping
  bool is_list(const std::string& key) const;  // present and a sequence
  std::string string(const std::string& key) const;
  std::string string_or(const std::string& key, const std::string& fallback) const;
  uint64_t unsigned_integer(const std::string& key) const;
  uint64_t unsigned_integer_or(const std::string& key, uint64_t fallback) const;
  // A list of whole numbers (`[1, 2, 3]`), each bad item reported at its own line and column.
  std::vector<uint64_t> unsigned_integers(const std::string& key) const;
  std::vector<std::string> strings(const std::string& key) const;  // a list of scalars, as written
  // A real number: `0.2`, `1e-3`, or a fraction `1/256` (gains are usually written that way).
  double real(const std::string& key) const;
  bool boolean(const std::string& key) const;  // true | false
  Time time(const std::string& key) const;
  Time time_or(const std::string& key, Time fallback) const;
  Bytes bytes(const std::string& key) const;
  Bytes bytes_or(const std::string& key, Bytes fallback) const;
  Bandwidth bandwidth(const std::string& key) const;
  YamlMap map(const std::string& key) const;
  std::vector<YamlMap> list_of_maps(const std::string& key) const;
  // The map's keys in file order (reading them is left to the caller).
  std::vector<std::string> keys() const;

  // This map as if the value at `dotted` ("system.network.technology") were the value of `key` in
  // `from`: an overlay, so the file is never changed and every value keeps its own file:line:column
  // (the replacement's in `from`). Maps on the way are created when missing; a scalar on the way is
  // a ConfigError at from.where(key).
  YamlMap with_value(const std::string& dotted, const YamlMap& from, const std::string& key) const;

  // Throws for the first key of this map that no accessor asked for (a typo, an unsupported key).
  void reject_unknown_keys() const;

  const std::string& source() const { return *source_; }
  // Where this map is, or `key`'s value when present; where() is its "file:line:column".
  SourceLocation location(const std::string& key = "") const;
  std::string where(const std::string& key = "") const;
  // The error about `key` at its value's place (`throw m.error("nodes", "expected 1 to 65536")`).
  ConfigError error(const std::string& key, const std::string& message,
                    ConfigError::KeyShown shown = ConfigError::KeyShown::prefix) const;

 private:
  using Overlay = std::map<std::string, YAML::Node>;  // dotted path from the root -> value

  YamlMap(YAML::Node node, std::shared_ptr<const std::string> source);
  YamlMap child(YAML::Node node, const std::string& key) const;  // a sub-map, with the overlay
  const YAML::Node* overlaid(const std::string& key) const;      // the overlay's value for key
  bool overlaid_below(const std::string& key) const;             // the overlay sets keys inside key
  YAML::Node value(const std::string& key) const;                // throws when missing
  std::string scalar(const std::string& key, const char* expected) const;
  std::string key_text(const YAML::Node& key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

  std::shared_ptr<const YAML::Node> node_;  // shared by copies; never assigned through
  std::shared_ptr<const std::string> source_;
  std::shared_ptr<std::set<std::string>> read_;  // shared by copies, so reads through copies count
  std::shared_ptr<const Overlay> overlay_;       // compare: variants' values; null when none
  std::string prefix_;                           // this map's dotted path from the root, "system.node."
};

}  // namespace weft
