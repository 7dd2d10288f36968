// Unit-string parsing. SI prefixes are decimal (KB = 1e3 B, Gbps = 1e9 bit/s); IEC prefixes are
// binary (KiB = 1024 B). Bare K/M/G/T after a size follow nccl-tests' -b/-e convention: binary.
#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <span>
#include <string>

#include "sim/core/errors.h"
#include "sim/core/units.h"

namespace weft {
namespace {

struct Unit {
  std::string_view suffix;
  long double scale;  // to the base unit (ps, bytes or bit/s)
};

struct Parsed {
  long double number;
  std::string_view suffix;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

[[noreturn]] void bad(std::string_view what, std::string_view text, std::string_view expected) {
  throw ConfigError(SourceLocation{}, std::string(what), fmt::format("cannot read '{}' (expected {})", text, expected));
}

Parsed split_number(std::string_view text, std::string_view what, std::string_view expected) {
  std::string_view s = trim(text);
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) bad(what, text, expected);
  std::string_view rest = trim(s.substr(static_cast<size_t>(end - s.data())));
  return {static_cast<long double>(value), rest};
}

long double scaled(std::string_view text, std::string_view what, std::string_view expected,
                   std::span<const Unit> units) {
  Parsed p = split_number(text, what, expected);
  if (p.number < 0) bad(what, text, "a value that is not negative");
  auto it = std::find_if(units.begin(), units.end(), [&](const Unit& u) { return u.suffix == p.suffix; });
  if (it == units.end()) bad(what, text, expected);
  return p.number * it->scale;
}

int64_t to_integer(long double value, std::string_view what, std::string_view text) {
  long double rounded = std::round(value);
  if (rounded > static_cast<long double>(INT64_MAX)) bad(what, text, "a value that fits in 64 bits");
  return static_cast<int64_t>(rounded);
}

constexpr Unit kTimeUnits[] = {
    {"", 1e12L},  {"h", 3.6e15L}, {"min", 6e13L}, {"s", 1e12L}, {"ms", 1e9L},
    {"us", 1e6L}, {"µs", 1e6L},   {"ns", 1e3L},   {"ps", 1.0L},
};

constexpr Unit kSizeUnits[] = {
    {"", 1.0L},
    {"B", 1.0L},
    {"KB", 1e3L},
    {"MB", 1e6L},
    {"GB", 1e9L},
    {"TB", 1e12L},
    {"KiB", 1024.0L},
    {"MiB", 1048576.0L},
    {"GiB", 1073741824.0L},
    {"TiB", 1099511627776.0L},
    {"K", 1024.0L},
    {"M", 1048576.0L},
    {"G", 1073741824.0L},
    {"T", 1099511627776.0L},
};

constexpr Unit kRateUnits[] = {
    {"", 1.0L},
    {"bps", 1.0L},
    {"b/s", 1.0L},
    {"Kbps", 1e3L},
    {"Kb/s", 1e3L},
    {"Mbps", 1e6L},
    {"Mb/s", 1e6L},
    {"Gbps", 1e9L},
    {"Gb/s", 1e9L},
    {"Tbps", 1e12L},
    {"Tb/s", 1e12L},
    {"B/s", 8.0L},
    {"KB/s", 8e3L},
    {"MB/s", 8e6L},
    {"GB/s", 8e9L},
    {"TB/s", 8e12L},
    {"GBps", 8e9L},
    {"MBps", 8e6L},
    {"KiB/s", 8.0L * 1024},
    {"MiB/s", 8.0L * 1048576},
    {"GiB/s", 8.0L * 1073741824},
};

}  // namespace

Time parse_time(std::string_view text, std::string_view what) {
  constexpr std::string_view expected = "a duration such as 1.5us, 250ns, 2ms, 30s, 5min, 1h or 1e-6 (seconds)";
  return Time::ps(to_integer(scaled(text, what, expected, kTimeUnits), what, text));
}

Bytes parse_bytes(std::string_view text, std::string_view what) {
  constexpr std::string_view expected = "a size such as 8, 4KB, 32MiB or 1G";
  long double v = scaled(text, what, expected, kSizeUnits);
  if (v != std::floor(v)) bad(what, text, "a whole number of bytes");
  return Bytes(static_cast<uint64_t>(to_integer(v, what, text)));
}

double parse_real(std::string_view text, std::string_view what) {
  auto parse = [](std::string_view t, double& out) {
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && end == t.data() + t.size();
  };
  double v = 0;
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    if (parse(text, v) && std::isfinite(v)) return v;
  } else {
    double num = 0, den = 0;
    const bool ok = parse(text.substr(0, slash), num) && parse(text.substr(slash + 1), den) && den != 0;
    if (ok && std::isfinite(num / den)) return num / den;
  }
  throw ConfigError(SourceLocation{}, std::string(what),
                    fmt::format("expected a number such as 0.2, 1e-3 or 1/256, got '{}'", text));
}

bool parse_bool(std::string_view text, std::string_view what) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  throw ConfigError(SourceLocation{}, std::string(what), fmt::format("expected true or false, got '{}'", text));
}

Bandwidth parse_bandwidth(std::string_view text, std::string_view what) {
  constexpr std::string_view expected = "a rate such as 400Gbps, 400Gb/s, 50GB/s or 900 GB/s";
  int64_t v = to_integer(scaled(text, what, expected, kRateUnits), what, text);
  if (v <= 0) bad(what, text, "a rate above zero");
  return Bandwidth::bps(static_cast<uint64_t>(v));
}

}  // namespace weft
