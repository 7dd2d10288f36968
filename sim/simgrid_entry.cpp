// The SimGrid fabric's entry point (sim/simgrid_module.h): what the module exports and what a program
// that links the fabric's objects directly calls instead.
#include "sim/simgrid_fabric.h"
#include "sim/simgrid_module.h"

extern "C" __attribute__((visibility("default"))) weft::Fabric* weft_make_simgrid_fabric(weft::Engine& engine,
                                                                                         weft::Router& router,
                                                                                         weft::Recorder& recorder) {
  return new weft::SimGridFabric(engine, router, recorder);
}
