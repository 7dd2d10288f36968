// The validation tables (../shared/validation/*.csv) as rows of column -> text, for the bench
// programs that compare weft's predictions with them.
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim/core/errors.h"

namespace weft::bench {

using Row = std::map<std::string, std::string>;

// RFC 4180: fields in double quotes may hold commas and doubled quotes.
inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// Lines may end in CRLF (training.csv does).
inline bool next_line(std::istream& in, std::string& line) {
  if (!std::getline(in, line)) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

inline std::vector<Row> read_rows(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("validate: cannot open " + path);
  std::string line;
  next_line(in, line);
  const std::vector<std::string> header = split_csv(line);
  std::vector<Row> rows;
  while (next_line(in, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> fields = split_csv(line);
    Row row;
    for (size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace weft::bench
