#include "scenarios/yaml_reader.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/core/errors.h"
#include "sim/core/names.h"

namespace weft {
namespace {

SourceLocation mark_location(const std::string& source, const YAML::Mark& mark) {
  return SourceLocation{source, static_cast<uint32_t>(mark.line + 1), static_cast<uint32_t>(mark.column + 1)};
}

}  // namespace

YamlMap::YamlMap(YAML::Node node, std::shared_ptr<const std::string> source)
    : node_(std::make_shared<const YAML::Node>(std::move(node))),
      source_(std::move(source)),
      read_(std::make_shared<std::set<std::string>>()) {}

YamlMap YamlMap::parse(const std::string& text, const std::string& source) {
  auto name = std::make_shared<const std::string>(source);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(mark_location(source, e.mark), "", "not valid YAML: " + e.msg);
  }
  if (!root.IsMap())
    throw ConfigError(SourceLocation{source, 1, 1}, "", "expected a YAML mapping (key: value lines) at the top");
  return YamlMap(root, name);
}

YamlMap YamlMap::load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(SourceLocation{path}, "", "cannot open the file");
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

YamlMap& YamlMap::operator=(const YamlMap& other) {
  node_ = other.node_;  // rebinds; the node itself is never assigned
  source_ = other.source_;
  read_ = other.read_;
  overlay_ = other.overlay_;
  prefix_ = other.prefix_;
  return *this;
}

YamlMap YamlMap::child(YAML::Node node, const std::string& key) const {
  YamlMap m(node, source_);
  m.overlay_ = overlay_;
  m.prefix_ = prefix_ + key + ".";
  return m;
}

const YAML::Node* YamlMap::overlaid(const std::string& key) const {
  if (!overlay_) return nullptr;
  auto it = overlay_->find(prefix_ + key);
  return it == overlay_->end() ? nullptr : &it->second;
}

bool YamlMap::overlaid_below(const std::string& key) const {
  if (!overlay_) return false;
  const std::string inside = prefix_ + key + ".";
  auto it = overlay_->lower_bound(inside);
  return it != overlay_->end() && it->first.starts_with(inside);
}

YamlMap YamlMap::with_value(const std::string& dotted, const YamlMap& from, const std::string& key) const {
  // Refuse a path through a scalar of the file ("workload.model.layers" when model: is a name).
  YAML::Node at = *node_;
  size_t start = 0;
  for (size_t dot = dotted.find('.'); dot != std::string::npos; dot = dotted.find('.', start)) {
    const std::string part = dotted.substr(start, dot - start);
    if (at && at.IsMap() && at[part] && !at[part].IsMap()) {
      from.fail(key, fmt::format("'{}' is not a map in the scenario, so '{}' cannot be set inside it", part, dotted));
    }
    at.reset(at && at.IsMap() && at[part] ? at[part] : YAML::Node());
    start = dot + 1;
  }
  YamlMap out = *this;
  auto overlay = overlay_ ? std::make_shared<Overlay>(*overlay_) : std::make_shared<Overlay>();
  (*overlay)[prefix_ + dotted] = from.value(key);
  out.overlay_ = std::move(overlay);
  out.read_ = std::make_shared<std::set<std::string>>();
  return out;
}

SourceLocation YamlMap::location(const std::string& key) const {
  YAML::Mark mark = node_->Mark();
  if (const YAML::Node* v = key.empty() ? nullptr : overlaid(key)) {
    mark = v->Mark();
  } else if (!key.empty() && node_->IsMap() && (*node_)[key]) {
    mark = (*node_)[key].Mark();
  }
  return mark_location(*source_, mark);
}

std::string YamlMap::where(const std::string& key) const { return location(key).text(); }

ConfigError YamlMap::error(const std::string& key, const std::string& message, ConfigError::KeyShown shown) const {
  return ConfigError(location(key), key, message, shown);
}

void YamlMap::fail(const std::string& key, const std::string& message) const { throw error(key, message); }

bool YamlMap::has(const std::string& key) const {
  read_->insert(key);
  return overlaid(key) || overlaid_below(key) || (node_->IsMap() && (*node_)[key]);
}

bool YamlMap::is_map(const std::string& key) const {
  if (!has(key)) return false;
  if (const YAML::Node* v = overlaid(key)) return v->IsMap();
  return overlaid_below(key) || (*node_)[key].IsMap();
}

bool YamlMap::is_list(const std::string& key) const { return has(key) && value(key).IsSequence(); }

// A mapping's key as text; a key that is a list, a map or empty (`? :`) is an error at its place.
std::string YamlMap::key_text(const YAML::Node& key) const {
  if (!key.IsScalar()) {
    throw ConfigError(mark_location(*source_, key.Mark()), "",
                      "expected a plain key (text), not a list, a mapping or an empty key");
  }
  return key.Scalar();
}

std::vector<std::string> YamlMap::keys() const {
  std::vector<std::string> out;
  if (node_->IsMap()) {
    for (const auto& entry : *node_) out.push_back(key_text(entry.first));
  }
  if (!overlay_) return out;
  for (auto it = overlay_->lower_bound(prefix_); it != overlay_->end() && it->first.starts_with(prefix_); ++it) {
    const std::string rest = it->first.substr(prefix_.size());
    const std::string first = rest.substr(0, rest.find('.'));
    if (std::find(out.begin(), out.end(), first) == out.end()) out.push_back(first);
  }
  return out;
}

YAML::Node YamlMap::value(const std::string& key) const {
  read_->insert(key);
  if (const YAML::Node* o = overlaid(key)) return *o;
  YAML::Node v = node_->IsMap() ? (*node_)[key] : YAML::Node();
  if (v) return v;
  if (overlaid_below(key)) return YAML::Node(YAML::NodeType::Map);  // a map only the overlay fills
  std::string message = "missing (this key is required here)";
  for (const auto& entry : node_->IsMap() ? *node_ : YAML::Node(YAML::NodeType::Map)) {
    if (!entry.first.IsScalar()) continue;  // reported by reject_unknown_keys
    std::string other = entry.first.Scalar();
    if (!read_->count(other) && edit_distance(other, key) <= 2) {
      message += fmt::format("; is '{}' at {}:{} a typo of it?", other, entry.first.Mark().line + 1,
                             entry.first.Mark().column + 1);
      break;
    }
  }
  fail(key, message);
}

std::string YamlMap::scalar(const std::string& key, const char* expected) const {
  YAML::Node v = value(key);
  if (!v.IsScalar()) fail(key, fmt::format("expected {}", expected));
  return v.Scalar();
}

std::string YamlMap::string(const std::string& key) const { return scalar(key, "a string"); }

std::string YamlMap::string_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? string(key) : fallback;
}

uint64_t YamlMap::unsigned_integer(const std::string& key) const {
  std::string s = scalar(key, "a whole number");
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) fail(key, fmt::format("expected a whole number, got '{}'", s));
  return v;
}

uint64_t YamlMap::unsigned_integer_or(const std::string& key, uint64_t fallback) const {
  return has(key) ? unsigned_integer(key) : fallback;
}

std::vector<uint64_t> YamlMap::unsigned_integers(const std::string& key) const {
  YAML::Node v = value(key);
  if (!v.IsSequence()) fail(key, "expected a list of whole numbers, e.g. [1, 2, 3]");
  std::vector<uint64_t> out;
  for (const YAML::Node& item : v) {
    uint64_t n = 0;
    const std::string s = item.IsScalar() ? item.Scalar() : std::string();
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (!item.IsScalar() || ec != std::errc() || end != s.data() + s.size()) {
      throw ConfigError(mark_location(*source_, item.Mark()), key, fmt::format("expected a whole number, got '{}'", s));
    }
    out.push_back(n);
  }
  return out;
}

std::vector<std::string> YamlMap::strings(const std::string& key) const {
  YAML::Node v = value(key);
  if (!v.IsSequence()) fail(key, "expected a list, e.g. [a, b]");
  std::vector<std::string> out;
  for (const YAML::Node& item : v) {
    if (!item.IsScalar()) {
      throw ConfigError(mark_location(*source_, item.Mark()), key, "expected a plain value in the list");
    }
    out.push_back(item.Scalar());
  }
  return out;
}

double YamlMap::real(const std::string& key) const {
  const std::string text = scalar(key, "a number");
  return at(location(key), [&] { return parse_real(text, key); });
}

bool YamlMap::boolean(const std::string& key) const {
  const std::string text = scalar(key, "true or false");
  return at(location(key), [&] { return parse_bool(text, key); });
}

Time YamlMap::time(const std::string& key) const {
  const std::string text = scalar(key, "a duration");
  return at(location(key), [&] { return parse_time(text, key); });
}

Time YamlMap::time_or(const std::string& key, Time fallback) const { return has(key) ? time(key) : fallback; }

Bytes YamlMap::bytes(const std::string& key) const {
  const std::string text = scalar(key, "a size");
  return at(location(key), [&] { return parse_bytes(text, key); });
}

Bytes YamlMap::bytes_or(const std::string& key, Bytes fallback) const { return has(key) ? bytes(key) : fallback; }

Bandwidth YamlMap::bandwidth(const std::string& key) const {
  const std::string text = scalar(key, "a rate");
  return at(location(key), [&] { return parse_bandwidth(text, key); });
}

YamlMap YamlMap::map(const std::string& key) const {
  YAML::Node v = value(key);
  if (!v.IsMap()) fail(key, "expected a mapping (indented key: value lines)");
  return child(v, key);
}

std::vector<YamlMap> YamlMap::list_of_maps(const std::string& key) const {
  YAML::Node v = value(key);
  if (!v.IsSequence()) fail(key, "expected a list (lines starting with '- ')");
  std::vector<YamlMap> out;
  for (const YAML::Node& item : v) {
    if (!item.IsMap()) {
      throw ConfigError(mark_location(*source_, item.Mark()), key, "expected each item to be a mapping");
    }
    out.push_back(YamlMap(item, source_));
  }
  return out;
}

void YamlMap::reject_unknown_keys() const {
  if (node_->IsMap()) {
    for (const auto& entry : *node_) {
      std::string key = key_text(entry.first);
      if (!read_->count(key)) {
        throw ConfigError(mark_location(*source_, entry.first.Mark()), prefix_ + key,
                          fmt::format("unknown key '{}'", key), ConfigError::KeyShown::in_message);
      }
    }
  }
  for (const std::string& key : keys()) {
    if (!read_->count(key)) {
      throw error(key, fmt::format("unknown key '{}'", prefix_ + key), ConfigError::KeyShown::in_message);
    }
  }
}

}  // namespace weft
