// Starting SimGrid 3.32 the way weft compares against it: quiet, and with the pure max-min network
// model (CM02 without latency/bandwidth factors, RTT weighting, TCP window bound or reverse ACK
// traffic), so that its results are comparable with weft's flow fabric. Shared by the simgrid
// fabric and the hand-written SimGrid ring of the benchmarks.
#pragma once

#include <string>
#include <vector>

namespace weft::simgrid_setup {

// SimGrid's Engine constructor wants a mutable argc/argv (it strips the options it consumes): this
// owns the strings ("PROGRAM --log=root.thres:critical") for the Engine's lifetime.
class EngineArgs {
 public:
  explicit EngineArgs(std::string program);
  EngineArgs(const EngineArgs&) = delete;
  EngineArgs& operator=(const EngineArgs&) = delete;
  int* argc() { return &argc_; }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> storage_;
  std::vector<char*> pointers_;
  int argc_ = 0;
};

// After the Engine exists (it declares the options), before the first zone (which builds the models).
void configure_pure_max_min();
// Once the models exist (CM02 applies its own defaults then): throws ModelError unless pure max-min.
void check_pure_max_min();

}  // namespace weft::simgrid_setup
