#include <catch2/catch.hpp>

#include "sim/core/errors.h"
#include "sim/core/units.h"

using namespace weft;

TEST_CASE("transmit_time rounds up with a 128-bit intermediate", "[units]") {
  // 1 byte = 8 bits at 3.6 Tb/s: 8e12 / 3.6e12 = 2.22 ps -> 3 ps (not 2).
  CHECK(transmit_time(Bytes(1), Bandwidth::bps(3'600'000'000'000)).ps() == 3);
  // 1 GiB at 400 Gb/s: 2^30 * 8 * 1e12 / 4e11 = 21474836480 ps exactly.
  CHECK(transmit_time(Bytes(1ULL << 30), Bandwidth::gbps(400)).ps() == 21'474'836'480);
  // 1 TiB at 7 bit/s overflows 64 bits in the intermediate (8.8e12 * 1e12): 128 bits keep it exact.
  CHECK(transmit_time(Bytes(1ULL << 40), Bandwidth::bps(8'000'000'000'000)).ps() == 1'099'511'627'776);
  // 1000 bytes at 900 GB/s (NVLink 4 class): 8000e12 / 7.2e12 = 1111.11 -> 1112 ps.
  CHECK(transmit_time(Bytes(1000), parse_bandwidth("900GB/s")).ps() == 1112);
  CHECK(transmit_time(Bytes(0), Bandwidth::gbps(1)).ps() == 0);
}

TEST_CASE("time strings", "[units]") {
  CHECK(parse_time("1.5us") == Time::ps(1'500'000));
  CHECK(parse_time("250ns") == Time::ns(250));
  CHECK(parse_time("2ms") == Time::ms(2));
  CHECK(parse_time("10ps") == Time::ps(10));
  CHECK(parse_time("1e-6") == Time::us(1));  // a plain number is seconds
  CHECK(parse_time(" 3 s ") == Time::ms(3000));
  CHECK(parse_time("2min") == Time::ms(120'000));
  CHECK(parse_time("1h") == Time::ms(3'600'000));
}

TEST_CASE("size strings", "[units]") {
  CHECK(parse_bytes("8") == Bytes(8));
  CHECK(parse_bytes("4KB") == Bytes(4000));
  CHECK(parse_bytes("32MiB") == Bytes(32ULL << 20));
  CHECK(parse_bytes("1G") == Bytes(1ULL << 30));  // nccl-tests -e 1G
  CHECK(parse_bytes("2GB") == Bytes(2'000'000'000));
  CHECK(parse_bytes("1.5KiB") == Bytes(1536));
}

TEST_CASE("rate strings", "[units]") {
  CHECK(parse_bandwidth("400Gbps") == Bandwidth::gbps(400));
  CHECK(parse_bandwidth("400Gb/s") == Bandwidth::gbps(400));
  CHECK(parse_bandwidth("50GB/s") == Bandwidth::gbps(400));
  CHECK(parse_bandwidth("900 GB/s") == Bandwidth::gbps(7200));
  CHECK(parse_bandwidth("25e9") == Bandwidth::gbps(25));  // plain number: bit/s
}

TEST_CASE("bad unit strings throw ConfigError naming what was expected", "[units]") {
  CHECK_THROWS_WITH(parse_time("fast", "--latency"), Catch::Contains("--latency") && Catch::Contains("1.5us"));
  CHECK_THROWS_AS(parse_time("1.5 lightyears"), ConfigError);
  CHECK_THROWS_AS(parse_time("-1us"), ConfigError);
  CHECK_THROWS_AS(parse_bytes("0.3B"), ConfigError);
  CHECK_THROWS_AS(parse_bytes("12 parsecs"), ConfigError);
  CHECK_THROWS_AS(parse_bytes(""), ConfigError);
  CHECK_THROWS_WITH(parse_bandwidth("400Gbpss", "--link-rate"), Catch::Contains("400Gbps"));
  CHECK_THROWS_AS(parse_bandwidth("0Gbps"), ConfigError);
  CHECK_THROWS_AS(parse_bandwidth("1e40Gbps"), ConfigError);
}
