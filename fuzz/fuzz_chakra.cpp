#include "fuzz/fuzz_targets.h"
#include "fuzz/rank_files.h"
#include "sim/core/errors.h"
#include "workloads/traces/trace.h"

namespace weft::fuzz {

namespace {

// JSON starts with '{' or '[' after white space; anything else is read as a protobuf stream.
bool looks_like_json(const uint8_t* data, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{' || c == '[';
  }
  return false;
}

}  // namespace

int fuzz_chakra(const uint8_t* data, size_t size) {
  // One set of in-memory files per process, reused for every input (rank_files.h).
  static RankFiles files("weft-fuzz-chakra");
  TraceSource source;
  source.format = looks_like_json(data, size) ? TraceFormat::chakra_json : TraceFormat::chakra;
  source.files = files.write(data, size);
  try {
    // What `weft trace info` and the Replayer do with a trace: read, validate, summarise.
    TraceMetadata metadata;
    const Workload workload = read_trace(source, &metadata);
    validate(workload);
    format_trace_info(trace_info(workload));
  } catch (const ConfigError&) {
  }
  return 0;
}

}  // namespace weft::fuzz
