#include "scenarios/nccl_tests_log.h"

#include <fmt/format.h>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "sim/core/errors.h"

namespace weft {
namespace {

std::vector<std::string> tokens_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

bool is_number(const std::string& t) {
  if (t.empty()) return false;
  char* end = nullptr;
  std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

bool is_integer(const std::string& t) {
  return !t.empty() && t.find_first_not_of("-0123456789") == std::string::npos && t != "-";
}

struct RowContext {
  const std::string& path;
  int line;
  const std::vector<std::string>& tokens;
  // The column (1-based) of token i in the line, for errors.
  [[noreturn]] void fail(size_t i, const char* name, const char* expected) const {
    throw ConfigError(fmt::format("{}:{}: column {} ({}): expected {}, got '{}'", path, line, i + 1, name, expected,
                                  i < tokens.size() ? tokens[i] : std::string("end of line")));
  }
  double number(size_t i, const char* name) const {
    if (i >= tokens.size() || !is_number(tokens[i])) fail(i, name, "a number");
    return std::stod(tokens[i]);
  }
};

// time, algbw, busbw at `first`; the #wrong column after them is not read (N/A, 0, 0e+00).
NcclTestsTimes times_at(const RowContext& c, size_t first) {
  return {c.number(first, "time"), c.number(first + 1, "algbw"), c.number(first + 2, "busbw")};
}

// A table row: size count type [redop] [root] then out-of-place and in-place groups of time, algbw,
// busbw and, in logs from 2019 on, #wrong.
NcclTestsRow parse_row(const RowContext& c) {
  const std::vector<std::string>& t = c.tokens;
  NcclTestsRow row;
  row.line = c.line;
  if (!is_integer(t[0])) c.fail(0, "size", "a whole number of bytes");
  if (t.size() < 2 || !is_integer(t[1])) c.fail(1, "count", "a whole number of elements");
  if (t.size() < 3 || is_number(t[2])) c.fail(2, "type", "a data type (float, half, ...)");
  row.bytes = std::stoull(t[0]);
  row.count = std::stoull(t[1]);
  row.type = t[2];
  size_t i = 3;
  if (i < t.size() && !is_number(t[i])) row.redop = t[i++];
  const size_t rest = t.size() - i;  // 6 or 8 numbers, after a root column when there is one more
  const bool wrong = rest == 8 || rest == 9;
  if (rest == 7 || rest == 9) {
    if (!is_integer(t[i])) c.fail(i, "root", "a rank");
    ++i;
  } else if (rest != 6 && rest != 8) {
    c.fail(t.size(), "time", "6 or 8 numbers after the type (time, algbw, busbw[, #wrong] twice)");
  }
  row.out_of_place = times_at(c, i);
  const size_t in_place = i + (wrong ? 4 : 3);
  if (is_number(t[in_place])) row.in_place = times_at(c, in_place);
  return row;
}

// The header facts: nThread/nGpus, the ranks' hosts and device, NCCL's version, the test's name.
void read_header_line(const std::string& line, NcclTestsLog& log, std::set<std::string>& hosts) {
  static const std::regex kThreads(R"(nThread\s+(\d+)\s+nGpus\s+(\d+))");
  static const std::regex kRank(R"(^#\s+Rank\s+\d+\s.*\son\s+(\S+)\s+device\s+\d+\s+\[[^\]]*\]\s*(.*)$)");
  static const std::regex kVersion(R"(NCCL version (\d+\.\d+\.\d+))");
  static const std::regex kTest(R"((all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|sendrecv)_perf)");
  std::smatch m;
  if (std::regex_search(line, m, kThreads)) {
    log.threads = std::stoi(m[1]);
    log.gpus_per_thread = std::stoi(m[2]);
  } else if (std::regex_search(line, m, kRank)) {
    ++log.ranks;
    hosts.insert(m[1]);
    if (log.gpu.empty()) log.gpu = m[2];
  }
  if (log.nccl_version.empty() && std::regex_search(line, m, kVersion)) log.nccl_version = m[1];
  if (log.op.empty() && std::regex_search(line, m, kTest)) {
    const std::string name = m[1];
    log.op = name == "alltoall" ? "all_to_all" : name == "sendrecv" ? "send_recv" : name;
  }
}

}  // namespace

NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& path) {
  NcclTestsLog log;
  log.path = path;
  std::set<std::string> hosts;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> t = tokens_of(line);
    if (t.empty()) continue;
    if (t[0].starts_with("#") || !is_integer(t[0])) {  // header, comments, NCCL INFO lines
      read_header_line(line, log, hosts);
      if (line.find("Avg bus bandwidth") != std::string::npos && !log.rows.empty()) break;
      continue;
    }
    log.rows.push_back(parse_row({path, number, t}));
  }
  log.nodes = static_cast<int>(hosts.size());
  if (log.rows.empty()) {
    throw ConfigError(fmt::format("{}: no nccl-tests table (rows of size, count, type, ... time, algbw, busbw)", path));
  }
  return log;
}

NcclTestsLog read_nccl_tests_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: cannot open the nccl-tests log", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_nccl_tests_log(text.str(), path);
}

}  // namespace weft
