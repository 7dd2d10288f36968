// The two exception types of the library, and the always-on invariant check.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace weft {

// A place in a configuration text: the file (a path, "<bundled default.yaml>", "--set") and the
// 1-based line and column; line 0 when only the file is known, an empty file when nothing is.
struct SourceLocation {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;

  bool known() const { return !file.empty(); }
  std::string text() const;  // "file:line:column", "file" when the line is unknown
};

// Bad user input: a file, a key, a command-line value. The fields say where (the innermost place
// known: the file and line the user has to change) and what was expected; what() is the whole
// message as printed, with the places around it first ("scenario.yaml:4:3: profile.yaml:2:3: ...").
class ConfigError : public std::runtime_error {
 public:
  // How what() shows the key: as a prefix ("f.yaml:3:5: nodes: expected 1 to 65536"), or not,
  // because the message names it ("f.yaml:3:5: unknown key 'nodez'").
  enum class KeyShown { prefix, in_message };

  // Nothing known of where (a catalogue lookup, the model's checks): what() is the message.
  explicit ConfigError(const std::string& message);
  // At `where` (unknown: a unit parser that knows only the key), about `key` ("" when none).
  ConfigError(SourceLocation where, std::string key, std::string message, KeyShown shown = KeyShown::prefix);

  const SourceLocation& where() const { return where_; }
  const std::string& key() const { return key_; }
  const std::string& message() const { return message_; }

  // This error as seen from an enclosing place: `outer` (when known) and `key` (when not empty) go
  // before what(); the fields take them only when this error knew no place of its own.
  ConfigError within(const SourceLocation& outer, const std::string& key = "") const;

 private:
  ConfigError(const std::string& text, SourceLocation where, std::string key, std::string message);

  SourceLocation where_;
  std::string key_;
  std::string message_;
};

// A model cannot do what it was asked (no route between two nodes, an impossible schedule, ...).
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A broken internal invariant: a bug in weft, never the user's fault.
class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void invariant_failed(const char* condition, const char* file, int line);

// Runs `read`; a ConfigError it throws is rethrown as seen from `where` (and `key`): the one place
// that adds a location to an error from code that knows none (unit parsers, catalogue lookups, the
// model's own checks). A reference the read returns stays a reference (catalogue entries).
template <typename Read>
decltype(auto) at(const SourceLocation& where, const std::string& key, Read read) {
  try {
    return read();
  } catch (const ConfigError& e) {
    throw e.within(where, key);
  }
}
template <typename Read>
decltype(auto) at(const SourceLocation& where, Read read) {
  return at(where, std::string(), read);
}

}  // namespace weft

// Always on (Release too): our invariants are cheap and a silent wrong answer is worse than a throw.
#define WEFT_ASSERT(cond) ((cond) ? static_cast<void>(0) : ::weft::invariant_failed(#cond, __FILE__, __LINE__))
