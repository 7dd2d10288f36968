#include "scenarios/request_trace_file.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include "sim/core/errors.h"

namespace weft {
namespace {

constexpr std::array<std::string_view, 3> kColumns = {"arrival_s", "prompt_tokens", "output_tokens"};

struct Cell {
  std::string_view text;
  uint32_t column = 0;  // 1-based, of its first character
};

std::vector<Cell> split(std::string_view line) {
  std::vector<Cell> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = line.find(',', start);
    std::string_view cell =
        line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    uint32_t column = static_cast<uint32_t>(start) + 1;
    while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) {
      cell.remove_prefix(1);
      ++column;
    }
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t' || cell.back() == '\r')) cell.remove_suffix(1);
    out.push_back({cell, column});
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

// The position of each required column in the header.
std::array<size_t, 3> header_positions(const std::vector<Cell>& header, const std::string& source, uint32_t line) {
  std::array<size_t, 3> at{};
  for (size_t c = 0; c < kColumns.size(); ++c) {
    const auto it = std::find_if(header.begin(), header.end(), [&](const Cell& h) { return h.text == kColumns[c]; });
    if (it == header.end()) {
      throw ConfigError(
          SourceLocation{source, line, 1}, "header",
          fmt::format("no column {} (expected the columns arrival_s, prompt_tokens, output_tokens)", kColumns[c]));
    }
    at[c] = static_cast<size_t>(it - header.begin());
  }
  return at;
}

constexpr std::array<std::string_view, 2> kPrefixColumns = {"prefix_group", "prefix_tokens"};

// The positions of the optional prefix columns: both, or neither (nullopt).
std::optional<std::array<size_t, 2>> prefix_positions(const std::vector<Cell>& header, const std::string& source,
                                                      uint32_t line) {
  std::array<size_t, 2> at{};
  int found = 0;
  for (size_t c = 0; c < kPrefixColumns.size(); ++c) {
    const auto it =
        std::find_if(header.begin(), header.end(), [&](const Cell& h) { return h.text == kPrefixColumns[c]; });
    if (it != header.end()) ++found;
    at[c] = static_cast<size_t>(it - header.begin());
  }
  if (found == 0) return std::nullopt;
  if (found == 1) {
    throw ConfigError(SourceLocation{source, line, 1}, "header",
                      "prefix_group and prefix_tokens go together: give both columns or neither");
  }
  return at;
}

// A whole number >= 0 in an optional column.
uint32_t count(const Cell& cell, std::string_view column, const SourceLocation& where) {
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(cell.text.data(), cell.text.data() + cell.text.size(), v);
  if (ec != std::errc() || end != cell.text.data() + cell.text.size()) {
    throw ConfigError(where, std::string(column), fmt::format("expected a whole number >= 0, got '{}'", cell.text));
  }
  return v;
}

// The row's prefix columns into `r` (its prompt already read).
void read_prefix(const std::vector<Cell>& cells, const std::array<size_t, 2>& at, const std::string& line,
                 const std::string& source, uint32_t line_no, Request& r) {
  for (size_t c = 0; c < kPrefixColumns.size(); ++c) {
    if (at[c] >= cells.size()) {
      throw ConfigError(SourceLocation{source, line_no, static_cast<uint32_t>(line.size()) + 1},
                        std::string(kPrefixColumns[c]), fmt::format("missing: the line has {} columns", cells.size()));
    }
  }
  const Cell& group = cells[at[0]];
  const Cell& tokens = cells[at[1]];
  r.prefix_group = count(group, kPrefixColumns[0], SourceLocation{source, line_no, group.column});
  r.prefix = count(tokens, kPrefixColumns[1], SourceLocation{source, line_no, tokens.column});
  if (r.prefix >= r.prompt) {
    throw ConfigError(SourceLocation{source, line_no, tokens.column}, "prefix_tokens",
                      fmt::format("{} is not below the prompt's {} tokens", r.prefix, r.prompt));
  }
}

double number(const Cell& cell, std::string_view column, bool whole, const SourceLocation& where) {
  double v = 0;
  const auto [end, ec] = std::from_chars(cell.text.data(), cell.text.data() + cell.text.size(), v);
  const bool ok = ec == std::errc() && end == cell.text.data() + cell.text.size() && std::isfinite(v) &&
                  (whole ? v >= 1 && v == std::floor(v) && v < 4.3e9 : v >= 0);
  if (!ok) {
    throw ConfigError(where, std::string(column),
                      fmt::format("expected {}, got '{}'",
                                  whole ? "a whole number of tokens, at least 1" : "seconds >= 0", cell.text));
  }
  return v;
}

}  // namespace

std::vector<Request> parse_request_trace(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::string line;
  std::array<size_t, 3> at{};
  std::optional<std::array<size_t, 2>> prefix_at;
  bool header = false;
  std::vector<Request> out;
  for (uint32_t line_no = 1; std::getline(in, line); ++line_no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos || line.front() == '#') continue;
    const std::vector<Cell> cells = split(line);
    if (!header) {
      at = header_positions(cells, source, line_no);
      prefix_at = prefix_positions(cells, source, line_no);
      header = true;
      continue;
    }
    Request r;
    r.id = static_cast<uint32_t>(out.size());
    for (size_t c = 0; c < kColumns.size(); ++c) {
      if (at[c] >= cells.size()) {
        throw ConfigError(SourceLocation{source, line_no, static_cast<uint32_t>(line.size()) + 1},
                          std::string(kColumns[c]), fmt::format("missing: the line has {} columns", cells.size()));
      }
      const Cell& cell = cells[at[c]];
      const double v = number(cell, kColumns[c], c > 0, SourceLocation{source, line_no, cell.column});
      if (c == 0) r.arrival = Time::ps(std::llround(v * 1e12));
      if (c == 1) r.prompt = static_cast<uint32_t>(v);
      if (c == 2) r.output = static_cast<uint32_t>(v);
    }
    if (prefix_at) read_prefix(cells, *prefix_at, line, source, line_no, r);
    out.push_back(r);
  }
  if (out.empty()) throw ConfigError(SourceLocation{source, 0, 0}, "trace", "no requests (expected a header and rows)");
  std::stable_sort(out.begin(), out.end(), [](const Request& a, const Request& b) { return a.arrival < b.arrival; });
  for (size_t i = 0; i < out.size(); ++i) out[i].id = static_cast<uint32_t>(i);
  return out;
}

std::vector<Request> load_request_trace(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ConfigError(fmt::format("{}: cannot read the request trace", path));
  std::stringstream text;
  text << file.rdbuf();
  return parse_request_trace(text.str(), path);
}

}  // namespace weft
