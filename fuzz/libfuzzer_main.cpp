// libFuzzer's entry point for one target, chosen at compile time by WEFT_FUZZ_TARGET (fuzz_chakra,
// fuzz_kineto or fuzz_scenario; fuzz/CMakeLists.txt builds one executable per target).
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "fuzz/exception_name.h"
#include "fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    return weft::fuzz::WEFT_FUZZ_TARGET(data, size);
  } catch (const std::exception& e) {
    // Only ConfigError may leave a reader, and the target caught it: anything else is a finding.
    std::fprintf(stderr, "==weft-fuzz== uncaught %s: %s\n", weft::fuzz::exception_name(e).c_str(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "==weft-fuzz== uncaught exception of a type not derived from std::exception\n");
    std::abort();
  }
}
