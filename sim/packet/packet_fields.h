// The packet fabric's settable fields by dotted key ("ecn.kmin_at_25g", "transport"), one line per
// knob: what a scenario's `fabric:` map reads and what README.md's fabric table lists.
#pragma once

#include <span>
#include <string_view>

#include "sim/core/field_table.h"
#include "sim/packet/packet_config.h"

namespace weft::packet {

// In the order the docs list them: the sections (ecn, pfc, dcqcn, credits, lossy, dctcp, switch),
// then the top-level keys.
std::span<const Field<PacketConfig>> packet_fields();

}  // namespace weft::packet
