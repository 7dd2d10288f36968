// Streaming parse of a Kineto Chrome trace with nlohmann::json's SAX interface: no DOM is built;
// each event's fields are collected while it streams past and only the kinds in kineto_events.h
// are kept. Accepts {"traceEvents": [...], "distributedInfo": {...}, ...} and a bare array of events
// (Debian's PyTorch build writes that).
#pragma once

#include <string>

#include "workloads/traces/kineto_events.h"

namespace weft {

// ConfigError names the file, the event index (traceEvents[i]) and the key for wrong types, and the
// byte offset for JSON syntax errors.
KinetoEvents parse_kineto_events(const std::string& path);

}  // namespace weft
