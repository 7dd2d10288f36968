// How each row of bench/serving/validation.csv (published LLM serving measurements, sources in
// bench/serving/SOURCES.md) becomes a serving run: the GPU as a catalogue system, the model, the
// weight and KV formats, tp and replicas, the request stream the benchmark sent, and the choices the row
// leaves open (each written down in `assumptions`, printed with the row). Rows weft cannot describe
// say why.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/csv_rows.h"
#include "workloads/serving/requests.h"
#include "workloads/serving/serving_spec.h"

namespace weft::bench {

struct ServingMeasured {
  std::optional<double> output_tokens_per_s, total_tokens_per_s, requests_per_s;
  std::optional<double> ttft_p50_ms, tpot_p50_ms, e2e_p50_ms;
};

struct ServingCase {
  std::string id, framework;
  std::string preset;             // catalogue system
  std::vector<std::string> sets;  // its overrides, "node.gpu=l40s"
  ServingSpec spec;
  RequestStreamSpec stream;
  std::vector<std::string> assumptions;
  ServingMeasured measured;
  std::string skip;  // why the row is not described; empty when it is
};

ServingCase describe_serving_row(const Row& row);

}  // namespace weft::bench
