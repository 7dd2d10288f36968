// The fuzz targets (issue 7): each feeds one input to a reader and returns 0 when the reader either
// returned or threw ConfigError. Anything else escapes: another exception propagates, a crash or a
// sanitizer report stops the process. Shared by the libFuzzer mains (libfuzzer_main.cpp, clang with
// WEFT_FUZZ=ON) and the corpus regression test (regression_main.cpp, every build).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace weft::fuzz {

// The trace targets split their input into rank files (rank_files.h).
//
// Chakra ET (protobuf stream, plain or gzip); input starting with '{' or '[' goes to the feeder-JSON
// reader instead. The workload read is then validated and summarised as `weft trace info` does.
int fuzz_chakra(const uint8_t* data, size_t size);
// PyTorch profiler / Kineto Chrome trace (JSON, plain or gzip), read twice: the default
// ProfilerStep window, then the whole trace with missing ranks filled.
int fuzz_kineto(const uint8_t* data, size_t size);
// A scenario YAML through load_scenario_text.
int fuzz_scenario(const uint8_t* data, size_t size);

struct Target {
  std::string_view name;  // also the folder under fuzz/corpus and fuzz/crashes
  int (*run)(const uint8_t*, size_t);
};

inline constexpr std::array<Target, 3> kTargets{{
    {"chakra", fuzz_chakra},
    {"kineto", fuzz_kineto},
    {"scenario", fuzz_scenario},
}};

}  // namespace weft::fuzz
