#include "sim/core/errors.h"

#include <fmt/format.h>

namespace weft {

void invariant_failed(const char* condition, const char* file, int line) {
  throw InvariantError(fmt::format("internal invariant broken at {}:{}: {}", file, line, condition));
}

}  // namespace weft
