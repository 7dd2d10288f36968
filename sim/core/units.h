// Strong types for simulated time, sizes and rates, and the one conversion between them.
#pragma once

#include <compare>
#include <cstdint>
#include <string_view>

namespace weft {

// Simulated time in integer picoseconds (int64: about 106 days of range).
class Time {
 public:
  constexpr Time() = default;
  static constexpr Time ps(int64_t v) { return Time(v); }
  static constexpr Time ns(int64_t v) { return Time(v * 1'000); }
  static constexpr Time us(int64_t v) { return Time(v * 1'000'000); }
  static constexpr Time ms(int64_t v) { return Time(v * 1'000'000'000); }
  static constexpr Time max() { return Time(INT64_MAX); }

  constexpr int64_t ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr double microseconds() const { return static_cast<double>(ps_) * 1e-6; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Time o) const { return Time(ps_ + o.ps_); }
  constexpr Time operator-(Time o) const { return Time(ps_ - o.ps_); }
  constexpr Time& operator+=(Time o) {
    ps_ += o.ps_;
    return *this;
  }
  constexpr Time operator*(int64_t k) const { return Time(ps_ * k); }

 private:
  constexpr explicit Time(int64_t v) : ps_(v) {}
  int64_t ps_ = 0;
};

// A size in bytes.
class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(uint64_t v) : v_(v) {}
  constexpr uint64_t count() const { return v_; }
  constexpr uint64_t bits() const { return v_ * 8; }
  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes operator+(Bytes o) const { return Bytes(v_ + o.v_); }
  constexpr Bytes& operator+=(Bytes o) {
    v_ += o.v_;
    return *this;
  }

 private:
  uint64_t v_ = 0;
};

// A rate in bits per second (one direction of a link).
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth bps(uint64_t v) { return Bandwidth(v); }
  static constexpr Bandwidth gbps(uint64_t v) { return Bandwidth(v * 1'000'000'000); }
  constexpr uint64_t bps() const { return v_; }
  constexpr double bytes_per_second() const { return static_cast<double>(v_) / 8.0; }
  constexpr auto operator<=>(const Bandwidth&) const = default;

 private:
  constexpr explicit Bandwidth(uint64_t v) : v_(v) {}
  uint64_t v_ = 0;
};

// 128-bit intermediates for exact time arithmetic (a GCC/Clang extension on every 64-bit target).
__extension__ using uint128 = unsigned __int128;

// ceil(a / b) for unsigned 128-bit integers.
constexpr uint128 ceil_div(uint128 a, uint128 b) { return (a + b - 1) / b; }

// Serialisation time of `bits` at `bits_per_s`: ceil(bits * 1e12 / rate) ps, exact thanks to the
// 128-bit intermediate (a precomputed ps-per-byte is ~10 % off at NVLink rates).
constexpr Time transmit_time_bits(uint128 bits, uint64_t bits_per_s) {
  const uint128 numerator = bits * 1'000'000'000'000ULL;
  // The same quotient by a 64-bit division when it fits (a packet's bits always do): a 128-bit one
  // is a library call (__udivti3, 1 % of a packet run).
  if (numerator <= UINT64_MAX - bits_per_s) {
    const auto n = static_cast<uint64_t>(numerator);
    return Time::ps(static_cast<int64_t>((n + bits_per_s - 1) / bits_per_s));
  }
  return Time::ps(static_cast<int64_t>(ceil_div(numerator, bits_per_s)));
}

constexpr Time transmit_time(Bytes size, Bandwidth rate) { return transmit_time_bits(size.bits(), rate.bps()); }

// Parsers for unit strings at the edge (YAML, CLI). Each throws ConfigError naming what it expected.
// `what` names the value in the message (e.g. "--link-rate").
Time parse_time(std::string_view text,
                std::string_view what = "time");  // 1.5us, 250ns, 2ms, 3s, 10ps; plain number = seconds
Bytes parse_bytes(std::string_view text,
                  std::string_view what = "size");  // 32MiB, 4KB, 1G (=2^30), 8; plain number = bytes
Bandwidth parse_bandwidth(std::string_view text,
                          std::string_view what = "rate");  // 400Gbps, 400Gb/s, 50GB/s, 900 GB/s; plain number = bit/s
// The one grammar of plain values, in YAML files, --set and every other edge: a real number is
// 0.2, 1e-3 or a fraction 1/256 (finite); a boolean is true or false (also True/TRUE, False/FALSE:
// YAML 1.2's core schema, which is also what Python's YAML writer emits).
double parse_real(std::string_view text, std::string_view what = "value");
bool parse_bool(std::string_view text, std::string_view what = "value");

}  // namespace weft
