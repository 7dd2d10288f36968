#include "workloads/serving/serving_metrics.h"

#include <algorithm>
#include <cmath>

namespace weft {
namespace {

LatencyStats stats(std::vector<Time> values) {
  LatencyStats s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (Time t : values) sum += static_cast<double>(t.ps());
  s.mean = Time::ps(std::llround(sum / static_cast<double>(values.size())));
  s.p50 = percentile(values, 50);
  s.p90 = percentile(values, 90);
  s.p99 = percentile(values, 99);
  s.max = values.back();
  return s;
}

bool meets(const Sequence& s, const ServingSlo& slo) {
  if (slo.ttft > Time() && s.first_token - s.arrival > slo.ttft) return false;
  if (slo.e2e > Time() && s.finish - s.arrival > slo.e2e) return false;
  if (slo.tpot > Time() && s.output > 1) {
    const double tpot = static_cast<double>((s.finish - s.first_token).ps()) / (s.output - 1);
    if (tpot > static_cast<double>(slo.tpot.ps())) return false;
  }
  return true;
}

void add_requests(const ServingRun& run, const ServingSlo& slo, ServingMetrics& m) {
  std::vector<Time> ttft, tpot, e2e;
  Time last;
  for (const Sequence& s : run.sequences) {
    ++m.requests;
    m.input_tokens += s.prompt;
    m.output_tokens += s.generated;
    m.preemptions += s.preemptions;
    ttft.push_back(s.first_token - s.arrival);
    e2e.push_back(s.finish - s.arrival);
    if (s.output > 1) tpot.push_back(Time::ps((s.finish - s.first_token).ps() / (s.output - 1)));
    m.good_requests += meets(s, slo) ? 1 : 0;
    last = std::max(last, s.finish);
  }
  m.ttft = stats(std::move(ttft));
  m.tpot = stats(std::move(tpot));
  m.e2e = stats(std::move(e2e));
  m.duration = last - run.first_arrival;
}

void add_iterations(const ServingRun& run, ServingMetrics& m) {
  double busy = 0, gpu_busy = 0, batch = 0, kv = 0, waiting = 0, in_system = 0, prefill = 0;
  for (const IterationSample& it : run.iterations) {
    const double d = static_cast<double>(it.duration.ps());
    const double blocks = std::max<double>(1, static_cast<double>(run.kv_blocks[it.replica]));
    busy += d;
    gpu_busy += d * run.replica_gpus[it.replica];
    prefill += it.prefill_share * d * run.replica_gpus[it.replica];
    batch += it.seqs * d;
    kv += static_cast<double>(it.blocks) / blocks * d;
    waiting += it.waiting * d;
    in_system += (it.waiting + it.running) * d;
    m.peak_kv = std::max(m.peak_kv, static_cast<double>(it.blocks) / blocks);
  }
  m.iterations = run.iterations.size();
  const double span = static_cast<double>(m.duration.ps());
  if (busy > 0) {
    m.prefill_fraction = prefill / gpu_busy;
    m.mean_batch = batch / busy;
    m.mean_kv = kv / busy;
  }
  if (span > 0) {
    double gpus = 0;
    for (uint32_t g : run.replica_gpus) gpus += g;
    m.busy = gpu_busy / (span * gpus);
    m.mean_waiting = waiting / span;
    m.mean_in_system = in_system / span;
  }
}

}  // namespace

namespace {

// numpy's default (linear) percentile p of n > 0 ordered values, `at(i)` the i-th smallest (ps).
template <class At>
Time interpolated(uint64_t n, double p, At at) {
  const double rank = p / 100 * static_cast<double>(n - 1);
  const auto lo = static_cast<uint64_t>(std::floor(rank));
  const double frac = rank - static_cast<double>(lo);
  return Time::ps(std::llround(at(lo) * (1 - frac) + at(std::min(lo + 1, n - 1)) * frac));
}

}  // namespace

Time percentile(const std::vector<Time>& sorted, double p) {
  if (sorted.empty()) return Time();
  return interpolated(sorted.size(), p, [&](uint64_t i) { return static_cast<double>(sorted[i].ps()); });
}

LatencyStats histogram_stats(const std::vector<std::pair<int64_t, uint64_t>>& sorted) {
  LatencyStats s;
  double sum = 0;
  for (const auto& [value, count] : sorted) {
    s.count += count;
    sum += static_cast<double>(value) * static_cast<double>(count);
  }
  if (s.count == 0) return s;
  s.mean = Time::ps(std::llround(sum / static_cast<double>(s.count)));
  s.max = Time::ps(sorted.back().first);
  // The order statistic at each rank.
  auto at_rank = [&](uint64_t rank) {
    uint64_t seen = 0;
    for (const auto& [value, count] : sorted) {
      seen += count;
      if (rank < seen) return static_cast<double>(value);
    }
    return static_cast<double>(sorted.back().first);
  };
  s.p50 = interpolated(s.count, 50, at_rank);
  s.p90 = interpolated(s.count, 90, at_rank);
  s.p99 = interpolated(s.count, 99, at_rank);
  return s;
}

ServingMetrics serving_metrics(const ServingRun& run, const ServingSlo& slo) {
  ServingMetrics m;
  add_requests(run, slo, m);
  add_iterations(run, m);
  std::vector<std::pair<int64_t, uint64_t>> gaps(run.token_gaps.begin(), run.token_gaps.end());
  std::sort(gaps.begin(), gaps.end());
  m.itl = histogram_stats(gaps);
  m.kv_wait = stats(run.kv_waits);
  const double seconds = m.duration.seconds();
  if (seconds > 0) {
    m.requests_per_s = static_cast<double>(m.requests) / seconds;
    m.output_tokens_per_s = static_cast<double>(m.output_tokens) / seconds;
    m.total_tokens_per_s = static_cast<double>(m.output_tokens + m.input_tokens) / seconds;
    m.goodput = static_cast<double>(m.good_requests) / seconds;
  }
  m.waiting_at_last_arrival = run.waiting_at_last_arrival;
  return m;
}

std::vector<ServingBin> serving_series(const ServingRun& run, uint32_t bins) {
  std::vector<ServingBin> out(bins);
  const double span = static_cast<double>((run.end - run.first_arrival).ps());
  if (bins == 0 || span <= 0) return {};
  const double width = span / bins;
  std::vector<double> busy(bins, 0);
  for (uint32_t b = 0; b < bins; ++b) out[b].start = run.first_arrival + Time::ps(std::llround(b * width));
  for (const IterationSample& it : run.iterations) {
    const auto b = std::min<size_t>(
        bins - 1, static_cast<size_t>(static_cast<double>((it.start - run.first_arrival).ps()) / width));
    const double d = static_cast<double>(it.duration.ps());
    const double blocks = std::max<double>(1, static_cast<double>(run.kv_blocks[it.replica]));
    busy[b] += d;
    out[b].batch += it.seqs * d;
    out[b].kv += static_cast<double>(it.blocks) / blocks * d;
    out[b].waiting += it.waiting * d;
    out[b].tokens_per_s += it.tokens;
  }
  for (uint32_t b = 0; b < bins; ++b) {
    if (busy[b] > 0) {
      out[b].batch /= busy[b];
      out[b].kv /= busy[b];
    }
    out[b].waiting /= width;
    out[b].tokens_per_s /= width * 1e-12;
  }
  return out;
}

}  // namespace weft
