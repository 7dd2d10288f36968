#include "sim/core/field_table.h"

namespace weft {

std::string describe(const Range& range) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (range.least > -kInf && range.most < kInf) return fmt::format("{} to {}", range.least, range.most);
  if (range.least > -kInf) return fmt::format("at least {}", range.least);
  if (range.most < kInf) return fmt::format("at most {}", range.most);
  return {};
}

}  // namespace weft
