#include "sim/simgrid_setup.h"

#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include "sim/core/errors.h"

namespace weft::simgrid_setup {

namespace sg4 = simgrid::s4u;

EngineArgs::EngineArgs(std::string program) : storage_{std::move(program), "--log=root.thres:critical"} {
  for (std::string& a : storage_) pointers_.push_back(a.data());
  pointers_.push_back(nullptr);
  argc_ = static_cast<int>(storage_.size());
}

void configure_pure_max_min() {
  sg4::Engine::set_config("network/model:CM02");
  // The default (LV08) factors are 13.01 (latency) and 0.97 (bandwidth); CM02 sets 1 as defaults, but
  // explicit values make the intent independent of the model's defaults.
  sg4::Engine::set_config("network/latency-factor:1");
  sg4::Engine::set_config("network/bandwidth-factor:1");
  // weight-S > 0 makes max-min shares RTT-dependent (LV08's 20537); 0 gives plain max-min.
  sg4::Engine::set_config("network/weight-S:0");
  // 0 disables the TCP window bound rate <= gamma / (2 * latency) (default gamma 4 MiB, in bytes); left
  // on, an 8-rank 1 GiB ring at 400 Gb/s and 1 ms links takes 27x the max-min time.
  sg4::Engine::set_config("network/TCP-gamma:0");
  // Otherwise every flow adds a reverse flow at 5 % of its rate on the backward route (ACK model), which
  // in a ring shares the links of the neighbours' forward flows: about +5 % on every step.
  sg4::Engine::set_config("network/crosstraffic:0");
}

void check_pure_max_min() {
  namespace cfg = simgrid::config;
  const bool pure = cfg::get_value<std::string>("network/model") == "CM02" &&
                    cfg::get_value<double>("network/latency-factor") == 1.0 &&
                    cfg::get_value<double>("network/bandwidth-factor") == 1.0 &&
                    cfg::get_value<double>("network/weight-S") == 0.0 &&
                    cfg::get_value<double>("network/TCP-gamma") == 0.0 && !cfg::get_value<bool>("network/crosstraffic");
  if (!pure) throw ModelError("SimGrid's network model is not pure CM02 max-min");
}

}  // namespace weft::simgrid_setup
