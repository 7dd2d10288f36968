#include "sim/fabric.h"

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {

TransferId Fabric::start_group(const GroupTransfer&, OnTransferDone) {
  throw ModelError(
      fmt::format("the {} fabric has no multicast or in-switch reduction (NVLS, SHARP); use flow", name()));
}

}  // namespace weft
