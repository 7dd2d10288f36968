// The field tables of the serving form (one line per key: sim/core/field_table.h): they read it,
// list its keys in `weft fields` and write it back (weft validate --resolved).
#pragma once

#include <span>

#include "scenarios/serving_reader.h"
#include "sim/core/field_table.h"

namespace weft {

// weights, kv_cache, parallel.*, requests.* (less prompt and output), scheduler.*, slo.*, host.*,
// software.
std::span<const Field<ServingWorkload>> serving_fields();
// requests.prompt and requests.output: {distribution, mean, spread, min, max}.
std::span<const Field<LengthSpec>> length_fields();

}  // namespace weft
