// What a serving run measured, as benchmark_serving reports it: per request TTFT (arrival to first
// token), TPOT ((last - first token) / (output - 1), requests of more than one token), inter-token
// latency (every gap between two tokens of a sequence) and end-to-end latency, with mean, p50, p90,
// p99 (linear interpolation between order statistics, numpy's default); throughput over the run
// (first arrival to last token); goodput (requests meeting every objective, per second); and the
// replicas' state over time.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/serving/serving_sim.h"
#include "workloads/serving/serving_spec.h"

namespace weft {

struct LatencyStats {
  uint64_t count = 0;
  Time mean, p50, p90, p99, max;
};

// Percentile `p` in [0, 100] of sorted `values` (numpy.percentile, linear).
Time percentile(const std::vector<Time>& sorted, double p);
// The same over a histogram (value ps -> count), sorted by value.
LatencyStats histogram_stats(const std::vector<std::pair<int64_t, uint64_t>>& sorted);

struct ServingMetrics {
  uint64_t requests = 0, input_tokens = 0, output_tokens = 0, preemptions = 0;
  Time duration;  // first arrival to last token
  double requests_per_s = 0, output_tokens_per_s = 0, total_tokens_per_s = 0;
  LatencyStats ttft, tpot, itl, e2e;
  LatencyStats kv_wait;             // disaggregated: first token to the cache's arrival at the decode replica
  uint64_t good_requests = 0;       // meeting every objective of the SLO
  double goodput = 0;               // good requests per second
  double busy = 0;                  // fraction of replica-time running an iteration (GPU utilisation)
  double mfu = 0;                   // the model's FLOPs over the GPUs' dense peak for the run (run_serving)
  double mean_batch = 0;            // sequences per iteration, weighted by iteration time
  double mean_kv = 0, peak_kv = 0;  // KV blocks in use over those available, time-weighted / peak
  double mean_waiting = 0;          // queued requests, time average over the run (all replicas)
  double mean_in_system = 0;        // queued + running, time average from the iteration samples
  uint64_t iterations = 0;
  double prefill_fraction = 0;  // of the replicas' busy time, the prompts' part (IterationSample)
  // Requests still queued when the last one arrived: the replicas could not keep up with the rate.
  uint64_t waiting_at_last_arrival = 0;
};

ServingMetrics serving_metrics(const ServingRun& run, const ServingSlo& slo);

// The replicas' state in `bins` equal slices of the run: time-weighted means over the iterations.
struct ServingBin {
  Time start;
  double batch = 0;         // sequences per iteration
  double kv = 0;            // KV occupancy, 0..1
  double waiting = 0;       // queued requests (all replicas)
  double tokens_per_s = 0;  // tokens computed per second (all replicas)
};
std::vector<ServingBin> serving_series(const ServingRun& run, uint32_t bins);

}  // namespace weft
