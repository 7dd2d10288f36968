// Predicts every row of bench/serving/validation.csv (published LLM serving measurements: TensorRT-LLM,
// vLLM, SGLang, gpt-fast, llama.cpp; sources in bench/serving/SOURCES.md) that the catalogue can
// describe (bench/serving_rows.h): the row's system, model, formats, parallelism and request stream
// served by weft's serving model on the flow fabric with weft's defaults. Prints per row the measured
// and predicted throughput and median latencies with the signed error, then the median |error| of the
// throughput (issue 20's target: 15 %) and of the p50 latencies (20 %), per framework too, and the
// rows not described with the reason. Held-out check: nothing in the serving model is fitted to these
// rows. Usage: weft_validate_serving [MEASUREMENTS.csv] [OUT.csv]
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench/serving_rows.h"
#include "topologies/clusters.h"
#include "topologies/systems.h"
#include "workloads/serving/serving.h"

namespace {

using weft::bench::ServingCase;

struct Comparison {
  std::string row, framework, metric;
  double measured = 0, predicted = 0;
  bool throughput = false;
  double error() const { return predicted / measured - 1; }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string family(const std::string& framework) {
  for (const char* f : {"TensorRT-LLM", "vLLM", "SGLang", "gpt-fast", "PyTorch", "llama.cpp", "MLPerf"}) {
    if (framework.find(f) != std::string::npos) return f;
  }
  return framework;
}

weft::ServingOutcome serve(const ServingCase& c) {
  const weft::ClusterSpec cluster = weft::resolve_system(c.preset, 1, c.sets, "--set");
  const weft::Topology topology = weft::build_cluster(cluster);
  const std::vector<weft::Request> requests = weft::generate_requests(c.stream, 1);
  const weft::ComputeProfile profile = weft::default_compute_profile();
  const weft::ServingInputs in{c.spec,
                               requests,
                               topology,
                               cluster,
                               weft::SimulationSetup{"flow", 1, {}},
                               profile,
                               weft::default_host_overheads()};
  return weft::run_serving(in);
}

// The row's throughput (the first it gives of output tok/s, total tok/s, requests/s) and each median
// latency it gives, against the prediction.
std::vector<Comparison> compare(const ServingCase& c, const weft::ServingMetrics& m) {
  std::vector<Comparison> out;
  const weft::bench::ServingMeasured& x = c.measured;
  auto add = [&](const char* metric, std::optional<double> measured, double predicted, bool throughput) {
    if (measured && *measured > 0) out.push_back({c.id, family(c.framework), metric, *measured, predicted, throughput});
  };
  if (x.output_tokens_per_s) {
    add("output tok/s", x.output_tokens_per_s, m.output_tokens_per_s, true);
  } else if (x.total_tokens_per_s) {
    add("total tok/s", x.total_tokens_per_s, m.total_tokens_per_s, true);
  } else {
    add("requests/s", x.requests_per_s, m.requests_per_s, true);
  }
  add("ttft p50 ms", x.ttft_p50_ms, m.ttft.p50.seconds() * 1e3, false);
  add("tpot p50 ms", x.tpot_p50_ms, m.tpot.p50.seconds() * 1e3, false);
  add("e2e p50 ms", x.e2e_p50_ms, m.e2e.p50.seconds() * 1e3, false);
  return out;
}

void summarise(const std::vector<Comparison>& all, bool throughput, const char* what, double target) {
  std::vector<double> abs, signed_errors;
  std::map<std::string, std::vector<double>> by_family;
  for (const Comparison& c : all) {
    if (c.throughput != throughput) continue;
    abs.push_back(std::fabs(c.error()));
    signed_errors.push_back(c.error());
    by_family[c.framework].push_back(c.error());
  }
  fmt::print("summary {}: median |error| {:.1f}%, median signed {:+.1f}% over {} comparisons (target {:.0f}%: {})\n",
             what, 100 * median(abs), 100 * median(signed_errors), abs.size(), target,
             median(abs) <= target / 100 ? "met" : "missed");
  for (const auto& [name, errors] : by_family) {
    std::vector<double> a;
    for (double e : errors) a.push_back(std::fabs(e));
    fmt::print("  {:<14} median |error| {:5.1f}%, signed {:+6.1f}% over {}\n", name, 100 * median(a),
               100 * median(errors), errors.size());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string input = argc > 1 ? argv[1] : "bench/serving/validation.csv";
  const std::string output = argc > 2 ? argv[2] : "validate_serving.csv";
  try {
    std::vector<Comparison> all;
    std::vector<std::string> skipped;
    fmt::print("{:<44} {:<13} {:>8} {:>12} {:>12} {:>8}\n", "row", "metric", "tp x r", "measured", "weft", "error");
    for (const weft::bench::Row& row : weft::bench::read_rows(input)) {
      const ServingCase c = weft::bench::describe_serving_row(row);
      if (!c.skip.empty()) {
        skipped.push_back(fmt::format("{}: {}", c.id, c.skip));
        continue;
      }
      try {
        const weft::ServingOutcome o = serve(c);
        for (const Comparison& k : compare(c, o.metrics)) {
          fmt::print("{:<44} {:<13} {:>8} {:>12.4g} {:>12.4g} {:>+7.1f}%\n", k.row, k.metric,
                     fmt::format("{}x{}", c.spec.tp, c.spec.replicas), k.measured, k.predicted, 100 * k.error());
          all.push_back(k);
        }
        for (const std::string& a : c.assumptions) fmt::print("    assumed: {}\n", a);
      } catch (const weft::ConfigError& e) {
        skipped.push_back(fmt::format("{}: cannot run: {}", c.id, e.what()));
      }
    }
    summarise(all, true, "throughput", 15);
    summarise(all, false, "p50 latency", 20);
    for (const std::string& s : skipped) fmt::print("skipped: {}\n", s);
    std::ofstream csv(output);
    csv << "row,framework,metric,measured,predicted,error\n";
    for (const Comparison& k : all) {
      csv << fmt::format("{},{},{},{},{},{:.6f}\n", k.row, k.framework, k.metric, k.measured, k.predicted, k.error());
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "weft_validate_serving: {}\n", e.what());
    return 1;
  }
  return 0;
}
