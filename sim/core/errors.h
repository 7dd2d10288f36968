// The two exception types of the library, and the always-on invariant check.
#pragma once

#include <stdexcept>
#include <string>

namespace weft {

// Bad user input: a file, a key, a command-line value. The message says where and what was expected.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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

}  // namespace weft

// Always on (Release too): our invariants are cheap and a silent wrong answer is worse than a throw.
#define WEFT_ASSERT(cond) ((cond) ? static_cast<void>(0) : ::weft::invariant_failed(#cond, __FILE__, __LINE__))
