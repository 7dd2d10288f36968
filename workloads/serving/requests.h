// A stream of inference requests: when each arrives and how many prompt tokens it brings and output
// tokens it asks for, drawn from named distributions with the scenario's seed (vLLM's
// benchmark_serving: Poisson arrivals at a rate, or Gamma with a burstiness; random lengths), or given
// as a list (a trace: scenarios/request_trace_file.h reads the CSV).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/core/units.h"

namespace weft {

struct Request {
  uint32_t id = 0;
  Time arrival;
  uint32_t prompt = 0;  // tokens
  uint32_t output = 0;  // tokens to generate, >= 1
  // The prompt's first `prefix` tokens are shared with every request of the same prefix group (a system
  // prompt, few-shot examples): what vLLM's prefix cache can serve without computing them again.
  uint32_t prefix = 0;
  uint32_t prefix_group = 0;
};

// all_at_once: every request at t = 0 (an offline benchmark: vLLM benchmark_throughput).
// poisson: exponential gaps at `rate`. gamma: Gamma gaps with mean 1/rate and coefficient of
// variation `cv` (cv 1 is Poisson; above 1, bursty: vLLM benchmark_serving's --burstiness is 1/cv²).
enum class ArrivalKind : uint8_t { all_at_once, poisson, gamma };
std::string_view to_string(ArrivalKind k);
ArrivalKind parse_arrival_kind(std::string_view text);  // ConfigError listing the three

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::poisson;
  double rate = 1;  // requests/s
  double cv = 1;    // gamma only
};

// fixed: every length = mean. uniform: in [mean - spread, mean + spread]. normal: mean, standard
// deviation `spread`. lognormal: a lognormal with this mean and standard deviation (not of the log).
// exponential: this mean. Every draw is rounded and clamped to [min, max] (max 0: no upper bound).
enum class LengthKind : uint8_t { fixed, uniform, normal, lognormal, exponential };
std::string_view to_string(LengthKind k);
LengthKind parse_length_kind(std::string_view text);  // ConfigError listing the five

struct LengthSpec {
  LengthKind kind = LengthKind::fixed;
  double mean = 0;    // tokens
  double spread = 0;  // tokens
  uint32_t min = 1;
  uint32_t max = 0;
};

struct RequestStreamSpec {
  ArrivalSpec arrivals;
  LengthSpec prompt{LengthKind::fixed, 512};
  LengthSpec output{LengthKind::fixed, 128};
  uint32_t count = 0;  // requests; 0: as many as arrive within `duration`
  Time duration;       // of arrivals, when count is 0
  // Shared prefixes (vLLM benchmark_serving's prefix_repetition dataset: prefix length, number of
  // prefixes): each prompt is one of `prefixes` prefixes of `prefix_tokens` tokens, drawn uniformly,
  // followed by its own `prompt` tokens. 0: no shared prefix.
  uint32_t prefix_tokens = 0;
  uint32_t prefixes = 1;
};

// The stream for a seed; deterministic (weft's own samplers, not std:: distributions). Throws
// ConfigError for a non-positive rate, a cv <= 0, a mean of 0, min above max, neither a count nor a
// duration, or no prefixes.
std::vector<Request> generate_requests(const RequestStreamSpec& spec, uint64_t seed);

class Rng;
// Samplers on weft's Rng (exposed for tests): exponential with mean 1, standard normal (Box-Muller),
// Gamma with `shape` and scale 1 (Marsaglia and Tsang 2000, ACM TOMS 26(3); shape < 1 by boosting).
double sample_exponential(Rng& rng);
double sample_normal(Rng& rng);
double sample_gamma(Rng& rng, double shape);

}  // namespace weft
