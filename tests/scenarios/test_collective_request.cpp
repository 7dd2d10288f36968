// CollectiveRequest: the one request behind `weft collective` and weft.collective(): options
// spelled as the caller knows them in every error, and every option reaching the sweep.
#include <catch2/catch.hpp>
#include <string>

#include "scenarios/collective_request.h"
#include "sim/core/errors.h"

using namespace weft;

namespace {

std::string error_of(const CollectiveRequest& r) {
  try {
    prepare_collective(r);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("CollectiveRequest: errors name the option as the command line or Python spells it", "[request]") {
  CollectiveRequest r;
  r.algo = "Ring";
  CHECK(error_of(r) == "--algo, --proto and --nccl-version need a catalogue system (--system NAME)");
  r.command_line = false;
  CHECK(error_of(r) == "algo, proto and nccl_version need a catalogue system (system NAME)");
  r = CollectiveRequest{};
  r.min_bytes = "lots";
  CHECK_THAT(error_of(r), Catch::StartsWith("--min-bytes: "));
  r.command_line = false;
  CHECK_THAT(error_of(r), Catch::StartsWith("min_bytes: "));
  r = CollectiveRequest{};
  r.system = "dgx-h100";
  r.sets = {"nodes"};
  CHECK_THAT(error_of(r), Catch::StartsWith("--set: 'nodes' is not KEY=VALUE"));
  r.command_line = false;
  CHECK_THAT(error_of(r), Catch::StartsWith("set: 'nodes' is not KEY=VALUE"));
}

TEST_CASE("CollectiveRequest: a catalogue system with its nodes, sets and NCCL options", "[request]") {
  CollectiveRequest r;
  r.system = "dgx-h100";
  r.nodes = 2;
  r.sets = {"node.nics=4"};
  r.algo = "Ring";
  r.channels = 4;
  const PreparedCollective p = prepare_collective(r);
  REQUIRE(p.system);
  CHECK(p.system->nodes == 2);
  CHECK(p.topology.gpus().size() == 16);
  CHECK(p.sweep_spec().system == &*p.system);
  CHECK(p.spec.plan.overrides.max_channels == 4);
  CHECK(p.spec.simulation.fabric == "flow");
}

TEST_CASE("CollectiveRequest: pxn reaches the sweep's router", "[request]") {
  CollectiveRequest r;
  r.system = "dgx-h100";
  r.nodes = 2;
  r.op = "all_to_all";
  r.min_bytes = r.max_bytes = "16M";
  const Time direct = run_collective(r, prepare_collective(r)).at(0).time;
  r.pxn = true;
  const PreparedCollective p = prepare_collective(r);
  CHECK(p.spec.simulation.fabric_options.pxn);
  CHECK(run_collective(r, p).at(0).time != direct);
}
