#include "sim/core/names.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <vector>

namespace weft {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string did_you_mean(std::string_view name, std::span<const std::string_view> known) {
  std::string wanted = lowercase(name);
  std::string_view best;
  size_t best_distance = 3;
  for (std::string_view k : known) {
    size_t d = edit_distance(wanted, lowercase(k));
    if (d < best_distance) {
      best_distance = d;
      best = k;
    }
  }
  return best.empty() ? std::string() : fmt::format("; did you mean '{}'?", best);
}

std::string join_names(std::span<const std::string_view> names) { return fmt::format("{}", fmt::join(names, ", ")); }

}  // namespace weft
