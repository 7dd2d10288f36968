#include "scenarios/yaml_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "sim/core/errors.h"
#include "sim/core/names.h"

namespace weft {

YamlMap::YamlMap(YAML::Node node, std::shared_ptr<const std::string> source)
    : node_(std::move(node)), source_(std::move(source)), read_(std::make_shared<std::set<std::string>>()) {}

YamlMap YamlMap::parse(const std::string& text, const std::string& source) {
  auto name = std::make_shared<const std::string>(source);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("{}:{}:{}: not valid YAML: {}", source, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root.IsMap()) throw ConfigError(fmt::format("{}:1:1: expected a YAML mapping (key: value lines) at the top", source));
  return YamlMap(root, name);
}

YamlMap YamlMap::load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: cannot open the file", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

YamlMap YamlMap::with_value(const std::string& dotted, const YamlMap& from, const std::string& key) const {
  YAML::Node root = YAML::Clone(node_);
  YAML::Node replacement = YAML::Clone(from.value(key));
  std::vector<std::string> path;
  for (size_t start = 0;;) {
    const size_t dot = dotted.find('.', start);
    path.push_back(dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  // yaml-cpp's operator[] on a Node rebinds on assignment, so walk with explicit copies per level.
  std::vector<YAML::Node> levels{root};
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    YAML::Node next = levels.back()[path[i]];
    if (next && !next.IsMap()) {
      from.fail(key, fmt::format("'{}' is not a map in the scenario, so '{}' cannot be set inside it",
                                 path[i], dotted));
    }
    if (!next) {
      levels.back()[path[i]] = YAML::Node(YAML::NodeType::Map);
      next = levels.back()[path[i]];
    }
    levels.push_back(next);
  }
  levels.back()[path.back()] = replacement;
  return YamlMap(root, source_);
}

std::string YamlMap::where(const std::string& key) const {
  YAML::Mark mark = node_.Mark();
  if (!key.empty() && node_[key]) mark = node_[key].Mark();
  return fmt::format("{}:{}:{}", *source_, mark.line + 1, mark.column + 1);
}

void YamlMap::fail(const std::string& key, const std::string& message) const {
  throw ConfigError(fmt::format("{}: {}: {}", where(key), key, message));
}

bool YamlMap::has(const std::string& key) const {
  read_->insert(key);
  return static_cast<bool>(node_[key]);
}

bool YamlMap::is_map(const std::string& key) const { return has(key) && node_[key].IsMap(); }

bool YamlMap::is_list(const std::string& key) const { return has(key) && node_[key].IsSequence(); }

std::vector<std::string> YamlMap::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : node_) out.push_back(entry.first.as<std::string>());
  return out;
}

YAML::Node YamlMap::value(const std::string& key) const {
  read_->insert(key);
  YAML::Node v = node_[key];
  if (v) return v;
  std::string message = "missing (this key is required here)";
  for (const auto& entry : node_) {
    std::string other = entry.first.as<std::string>();
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
      throw ConfigError(fmt::format("{}:{}:{}: {}: expected a whole number, got '{}'", *source_, item.Mark().line + 1,
                                    item.Mark().column + 1, key, s));
    }
    out.push_back(n);
  }
  return out;
}

double YamlMap::real(const std::string& key) const {
  std::string s = scalar(key, "a number");
  auto parse = [](std::string_view t, double& out) {
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && end == t.data() + t.size();
  };
  double v = 0;
  size_t slash = s.find('/');
  if (slash == std::string::npos) {
    if (parse(s, v) && std::isfinite(v)) return v;
  } else {
    double num = 0, den = 0;
    std::string_view whole(s);
    bool ok = parse(whole.substr(0, slash), num) && parse(whole.substr(slash + 1), den) && den != 0;
    if (ok && std::isfinite(num / den)) return num / den;
  }
  fail(key, fmt::format("expected a number such as 0.2, 1e-3 or 1/256, got '{}'", s));
}

bool YamlMap::boolean(const std::string& key) const {
  std::string s = scalar(key, "true or false");
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  fail(key, fmt::format("expected true or false, got '{}'", s));
}

// Unit parsers throw ConfigError without a location; add it here.
template <typename F>
static auto located(const YamlMap& m, const std::string& key, const std::string& text, F parse) {
  try {
    return parse(text);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", m.where(key), e.what()));
  }
}

Time YamlMap::time(const std::string& key) const {
  return located(*this, key, scalar(key, "a duration"), [&](const std::string& t) { return parse_time(t, key); });
}

Time YamlMap::time_or(const std::string& key, Time fallback) const { return has(key) ? time(key) : fallback; }

Bytes YamlMap::bytes(const std::string& key) const {
  return located(*this, key, scalar(key, "a size"), [&](const std::string& t) { return parse_bytes(t, key); });
}

Bytes YamlMap::bytes_or(const std::string& key, Bytes fallback) const { return has(key) ? bytes(key) : fallback; }

Bandwidth YamlMap::bandwidth(const std::string& key) const {
  return located(*this, key, scalar(key, "a rate"), [&](const std::string& t) { return parse_bandwidth(t, key); });
}

YamlMap YamlMap::map(const std::string& key) const {
  YAML::Node v = value(key);
  if (!v.IsMap()) fail(key, "expected a mapping (indented key: value lines)");
  return YamlMap(v, source_);
}

std::vector<YamlMap> YamlMap::list_of_maps(const std::string& key) const {
  YAML::Node v = value(key);
  if (!v.IsSequence()) fail(key, "expected a list (lines starting with '- ')");
  std::vector<YamlMap> out;
  for (const YAML::Node& item : v) {
    if (!item.IsMap()) {
      throw ConfigError(fmt::format("{}:{}:{}: {}: expected each item to be a mapping", *source_, item.Mark().line + 1,
                                    item.Mark().column + 1, key));
    }
    out.push_back(YamlMap(item, source_));
  }
  return out;
}

void YamlMap::reject_unknown_keys() const {
  for (const auto& entry : node_) {
    std::string key = entry.first.as<std::string>();
    if (!read_->count(key)) {
      throw ConfigError(fmt::format("{}:{}:{}: unknown key '{}'", *source_, entry.first.Mark().line + 1,
                                    entry.first.Mark().column + 1, key));
    }
  }
}

}  // namespace weft
