// `weft plan` for a serving workload (issue 20): each configuration (the scenario, its compare:
// variants, the points of a grid) serves the scenario's requests; one meets the objectives when at
// least `attainment` of its requests meet every SLO of `slo:` (DistServe's SLO attainment). The answer
// is the cheapest that meets them (by the system's cost per hour, then per token served), or
// per configuration the highest request rate it serves within them (a doubling, then a bisection of
// `requests.rate` over the same span of arrivals, the requests drawn again at each rate with the
// scenario's seed).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace weft {

struct ServingPlanRow {
  std::string name;
  double rate = 0;        // requests/s offered (the stream's rate; 0 for all_at_once or a trace)
  double attainment = 0;  // of the requests, the share meeting every objective
  double output_tokens_per_s = 0;
  double total_tokens_per_s = 0;  // input and output
  Time ttft_p50, tpot_p50;
  std::optional<double> usd_per_hour;  // the system's, when priced
  std::optional<double> usd_per_m_output;
  bool meets = false;
};

// One configuration at its scenario's own stream. Throws ConfigError for a scenario that is not serving.
ServingPlanRow serve_for_plan(const std::string& name, const Scenario& s, double attainment);

// The highest rate (requests/s, to within 2 %) at which `s` still meets the objectives, and the row at
// that rate; nothing when even `least` requests/s miss them (the SLO is out of reach). The stream must
// be poisson or gamma.
std::optional<ServingPlanRow> highest_rate(const std::string& name, const Scenario& s, double attainment,
                                           double least = 0.01);

// The table of rows, the chosen one marked.
std::string format_serving_plan(const std::vector<ServingPlanRow>& rows, std::optional<size_t> chosen);

// The cheapest row that meets the objectives (per hour, then per token served, then the larger share
// meeting them; unpriced rows last); nothing when none does.
std::optional<size_t> cheapest_serving(const std::vector<ServingPlanRow>& rows);

}  // namespace weft
