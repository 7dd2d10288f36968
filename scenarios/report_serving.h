// Output of a serving run: for the baseline and each compare: variant, the configuration, KV cache,
// throughput, goodput, latency percentiles (TTFT, TPOT, ITL, end to end), the replicas' state and the
// cost per million input and output tokens; then the variants side by side. As a table, JSON
// (summary.json, with the state over time), CSV (one row per variant), the requests one per row
// (requests.csv) and a Chrome/Perfetto trace of the replicas' state (counter tracks). Pure functions.
#pragma once

#include <optional>
#include <string>

#include "scenarios/run_scenario.h"

namespace weft {

std::string serving_table(const ScenarioResult& result);
std::string serving_json(const ScenarioResult& result);
std::string serving_csv(const ScenarioResult& result);
std::string serving_requests_csv(const ScenarioResult& result);  // the baseline's requests
std::string serving_trace(const ScenarioResult& result);         // the baseline's state over time

// USD per million input and output tokens: the system's cost over the run split between the prompts
// and the generated tokens by their share of the replicas' busy time (ServingMetrics::prefill_fraction).
struct TokenCost {
  double input = 0, output = 0;
};
std::optional<TokenCost> token_cost(const ScenarioResult& r);

}  // namespace weft
