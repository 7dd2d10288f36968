// The packet fabric's field table (sim/packet/packet_fields.cpp): every field of every profile
// reads back as it shows, bad text fails naming the key, and README.md's table is the table.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/errors.h"
#include "sim/packet/packet_fields.h"
#include "tests/source_file.h"

using namespace weft;
using namespace weft::packet;

namespace {

const Field<PacketConfig>& field_of(std::string_view key) {
  for (const Field<PacketConfig>& f : packet_fields()) {
    if (f.key == key) return f;
  }
  FAIL("no field " << key);
  return packet_fields().front();  // not reached: FAIL throws
}

}  // namespace

TEST_CASE("Packet fields: every value of every profile reads back as it shows", "[unit]") {
  for (const char* profile : {"roce", "roce-paper", "roce-lossy", "ib", "tcp"}) {
    const PacketConfig config = packet_profile(profile);
    for (const Field<PacketConfig>& f : packet_fields()) {
      PacketConfig copy = packet_profile("roce");
      f.set(copy, f.key, f.show(config));
      CHECK(f.show(copy) == f.show(config));
    }
  }
}

TEST_CASE("Packet fields: bad text fails naming the key and what was expected", "[unit]") {
  PacketConfig c = packet_profile("roce");
  CHECK_THROWS_WITH(field_of("pfc.quanta").set(c, "quanta", "70000"), "quanta: expected at most 65535, got 70000");
  CHECK_THROWS_WITH(field_of("switch.scheduler").set(c, "scheduler", "wfq"),
                    "scheduler: unknown value 'wfq' (expected strict or dwrr)");
  CHECK_THROWS_WITH(field_of("ecn.enabled").set(c, "enabled", "yes"),
                    Catch::StartsWith("enabled: expected true or false"));
  field_of("dcqcn.g").set(c, "g", "1/128");
  CHECK(c.dcqcn.g == 1.0 / 128);
  field_of("lossy.rto").set(c, "rto", "200us");
  CHECK(c.lossy.rto == Time::us(200));
}

TEST_CASE("Packet fields: README.md's fabric table lists every field with its unit and doc", "[unit]") {
  CHECK(source_file("README.md").find(markdown_table(packet_fields())) != std::string::npos);
}
