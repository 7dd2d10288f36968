#include <string>

#include "fuzz/fuzz_targets.h"
#include "scenarios/scenario.h"
#include "sim/core/errors.h"

namespace weft::fuzz {

int fuzz_scenario(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    load_scenario_text(text, "fuzz.yaml");
  } catch (const ConfigError&) {
  }
  return 0;
}

}  // namespace weft::fuzz
