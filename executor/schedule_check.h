// What an executor relies on in a lowered schedule (docs/schedule-json.md), checked once on load so
// that weft-exec and weft-exec-mpi never meet an op they cannot run or a partner that never comes.
#pragma once

#include "executor/schedule_file.h"

namespace weft {

// Checks what an executor relies on: deps name earlier ops, comms and peers in range, a collective's
// rank belongs to its comm, every comm member runs the same sequence of collectives, sends and recvs
// pair up (src, dst, tag, bytes), known kinds, ops and dtypes. ConfigError with the first problem.
void check_schedule(const LoweredSchedule& s);

}  // namespace weft
