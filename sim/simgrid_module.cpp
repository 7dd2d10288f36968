#include "sim/simgrid_module.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <cstdlib>
#include <string>

#include "sim/core/errors.h"

// Defined in sim/simgrid_entry.cpp; weak, so that a program without those objects links and finds
// this null, then loads the module.
extern "C" weft::Fabric* weft_make_simgrid_fabric(weft::Engine&, weft::Router&, weft::Recorder&) __attribute__((weak));

namespace weft {
namespace {

std::string module_path() {
  const char* chosen = std::getenv("WEFT_SIMGRID_MODULE");
  return chosen != nullptr && *chosen != '\0' ? std::string(chosen) : std::string(WEFT_SIMGRID_MODULE_PATH);
}

MakeSimGridFabric load_module() {
  const std::string path = module_path();
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (module == nullptr) {
    throw ConfigError(
        fmt::format("fabric simgrid: cannot load its module {} ({}); `make` builds it, and the "
                    "environment variable WEFT_SIMGRID_MODULE names another",
                    path, dlerror()));
  }
  void* entry = dlsym(module, "weft_make_simgrid_fabric");
  if (entry == nullptr) {
    throw ConfigError(fmt::format("fabric simgrid: {} has no entry point weft_make_simgrid_fabric", path));
  }
  return reinterpret_cast<MakeSimGridFabric>(entry);
}

}  // namespace

MakeSimGridFabric simgrid_factory() {
  if (&weft_make_simgrid_fabric != nullptr) return &weft_make_simgrid_fabric;
  static const MakeSimGridFabric kModuleEntry = load_module();  // a throw leaves it unset: the next call retries
  return kModuleEntry;
}

}  // namespace weft
