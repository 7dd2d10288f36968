#include "fuzz/fuzz_targets.h"
#include "fuzz/rank_files.h"
#include "sim/core/errors.h"
#include "workloads/traces/trace.h"

namespace weft::fuzz {

namespace {

void read_one(const TraceSource& source) {
  try {
    // What `weft trace info` and the Replayer do with a trace: read, validate, summarise.
    TraceMetadata metadata;
    const Workload workload = read_trace(source, &metadata);
    validate(workload);
    format_trace_info(trace_info(workload));
  } catch (const ConfigError&) {
  }
}

}  // namespace

int fuzz_kineto(const uint8_t* data, size_t size) {
  // One set of in-memory files per process, reused for every input (rank_files.h).
  static RankFiles files("weft-fuzz-kineto");
  TraceSource source;
  source.format = TraceFormat::kineto;
  source.files = files.write(data, size);
  read_one(source);  // the default: the lowest ProfilerStep, every rank of the world needs its file
  // The whole trace takes other paths through the reader; filling the ranks without a file (a trace
  // of rank 0 of 2) lets the workload reach validate() and the summary.
  source.whole_trace = true;
  source.fill_missing_ranks = true;
  read_one(source);
  return 0;
}

}  // namespace weft::fuzz
