#include "sim/core/errors.h"

#include <fmt/format.h>

namespace weft {

std::string SourceLocation::text() const {
  if (line == 0) return file;
  return fmt::format("{}:{}:{}", file, line, column);
}

ConfigError::ConfigError(const std::string& message) : std::runtime_error(message), message_(message) {}

namespace {

std::string located_text(const SourceLocation& where, const std::string& key, const std::string& message,
                         ConfigError::KeyShown shown) {
  const bool prefix = shown == ConfigError::KeyShown::prefix && !key.empty();
  return (where.known() ? where.text() + ": " : "") + (prefix ? key + ": " : "") + message;
}

}  // namespace

ConfigError::ConfigError(SourceLocation where, std::string key, std::string message, KeyShown shown)
    : std::runtime_error(located_text(where, key, message, shown)),
      where_(std::move(where)),
      key_(std::move(key)),
      message_(std::move(message)) {}

ConfigError::ConfigError(const std::string& text, SourceLocation where, std::string key, std::string message)
    : std::runtime_error(text), where_(std::move(where)), key_(std::move(key)), message_(std::move(message)) {}

ConfigError ConfigError::within(const SourceLocation& outer, const std::string& key) const {
  const std::string text = located_text(outer, key, what(), KeyShown::prefix);
  if (where_.known()) return ConfigError(text, where_, key_, message_);
  return ConfigError(text, outer, key.empty() ? key_ : key, message_);
}

void invariant_failed(const char* condition, const char* file, int line) {
  throw InvariantError(fmt::format("internal invariant broken at {}:{}: {}", file, line, condition));
}

}  // namespace weft
