// Helpers for error messages about names: the nearest known name to a misspelt one, and a list.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace weft {

// Levenshtein distance (insertions, deletions, substitutions).
size_t edit_distance(std::string_view a, std::string_view b);

// "; did you mean 'x'?" for the known name within two edits of `name` (case-insensitive), else "".
std::string did_you_mean(std::string_view name, std::span<const std::string_view> known);

// "a, b, c"
std::string join_names(std::span<const std::string_view> names);

// `s` in ASCII lower case.
std::string lowercase(std::string_view s);

}  // namespace weft
