// Where the SimGrid fabric comes from. It is built twice from the same objects: as a module of its
// own (libweft_simgrid.so, loaded with dlopen the first time a simulation asks for `--fabric simgrid`)
// and as objects that test binaries and the Python module link directly. Why a module: Debian's
// libsimgrid 3.32 pulls in 17 ns-3 libraries whose relocations and static TypeId registration cost
// every run of `weft` about 78 M instructions (40 ms of CPU) before main, SimGrid or not (issue 19,
// item 5: callgrind of `weft --version`, 89 M instructions in all).
//
// The module leaves weft's own symbols undefined: they come from the program that loads it, which
// exports them (CMAKE_ENABLE_EXPORTS), so there is one copy of every weft class, its vtables and its
// statics in the process.
#pragma once

namespace weft {

class Engine;
class Fabric;
class Recorder;
class Router;

// The module's entry point, `weft_make_simgrid_fabric`: a new SimGridFabric, owned by the caller.
using MakeSimGridFabric = Fabric* (*)(Engine&, Router&, Recorder&);

// The entry point linked into this program when it is, else the module's (loaded once, never
// unloaded: SimGrid's engine lives as long as the process). The module is the file named by the
// environment variable WEFT_SIMGRID_MODULE, else the one this build made. Throws ConfigError when it
// cannot be loaded.
MakeSimGridFabric simgrid_factory();

}  // namespace weft
