// Predicts every row of a published-measurements table (../shared/validation/collectives.csv) that
// the catalogue can describe, with the collective NCCL's tuner picks, on the flow fabric, and prints
// per system and size band (latency-bound <= 64 KiB, middle, bandwidth-bound >= 256 MiB) the median
// and worst signed error of the time (prediction - measurement, relative), then a summary; writes
// every row with its prediction to a CSV. No parameter is fitted to these rows.
// Usage: weft_validate_collectives [MEASUREMENTS.csv] [OUT.csv]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/csv_rows.h"
#include "collectives/sweep.h"
#include "sim/core/errors.h"
#include "topologies/systems.h"

namespace {

using weft::bench::read_rows;
using weft::bench::Row;

// The catalogue preset that describes a measured system, from its name; "" when none does.
std::string preset_for(const std::string& system) {
  const std::pair<const char*, const char*> known[] = {
      {"DGX H100", "dgx-h100"},   {"H200", "hgx-h200"}, {"A100 node", "dgx-a100"},
      {"V100-SXM2", "dgx1-v100"}, {"p4de", "aws-p4de"}, {"2080 Ti", "pcie-2080ti-nvlink"},
  };
  for (auto [needle, preset] : known) {
    if (system.find(needle) != std::string::npos) return preset;
  }
  return "";
}

const char* band_of(uint64_t bytes) {
  if (bytes <= 64 * 1024) return "<=64KiB";
  if (bytes >= (256ULL << 20)) return ">=256MiB";
  return "64KiB-256MiB";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double worst(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
}

}  // namespace

int main(int argc, char** argv) {
  std::string input = argc > 1 ? argv[1] : "../shared/validation/collectives.csv";
  std::string output = argc > 2 ? argv[2] : "validate_collectives.csv";
  try {
    std::vector<Row> rows = read_rows(input);
    std::ofstream csv(output);
    csv << "system,preset,nodes,collective,bytes,measured_us,predicted_us,error_time,measured_busbw,predicted_busbw,"
           "algorithm,band\n";
    std::map<std::pair<std::string, std::string>, std::vector<double>> errors;  // (system, band) -> time errors
    std::map<std::string, weft::Topology> topologies;
    std::vector<std::string> skipped;
    for (const Row& r : rows) {
      std::string preset = preset_for(r.at("system"));
      if (preset.empty()) {
        if (std::find(skipped.begin(), skipped.end(), r.at("system")) == skipped.end())
          skipped.push_back(r.at("system"));
        continue;
      }
      weft::ClusterSpec spec = weft::system_spec(preset);
      spec.nodes = std::stoi(r.at("nodes"));
      std::string key = preset + "x" + r.at("nodes");
      if (!topologies.count(key)) topologies.emplace(key, weft::build_cluster(spec));
      const weft::Topology& t = topologies.at(key);
      weft::CollectiveOp op = weft::parse_collective_op(r.at("collective"));
      uint64_t bytes = std::stoull(r.at("bytes"));
      weft::SweepRow p = weft::measure_planned(op, weft::Bytes(bytes), t, spec, {}, {"flow"});
      // Rows that give only bus bandwidth: time = bytes x busbw factor / busbw (nccl-tests' definitions).
      double measured = !r.at("time_us").empty() ? std::stod(r.at("time_us"))
                                                 : bytes * weft::bus_bandwidth_factor(op, std::stoi(r.at("gpus"))) /
                                                       (std::stod(r.at("busbw_GBps")) * 1e3);
      double predicted = p.time.microseconds();
      double error = (predicted - measured) / measured;
      errors[{r.at("system"), band_of(bytes)}].push_back(error);
      csv << '"' << r.at("system") << "\"," << preset << ',' << r.at("nodes") << ',' << r.at("collective") << ','
          << bytes << ',' << measured << ',' << predicted << ',' << error << ',' << r.at("busbw_GBps") << ','
          << p.busbw_GBps << ',' << p.algorithm << ',' << band_of(bytes) << '\n';
    }
    std::printf("%-62s %-13s %4s %12s %12s\n", "system", "band", "rows", "median_err", "worst_err");
    std::vector<double> all_latency, all_bandwidth;
    for (const auto& [k, v] : errors) {
      std::printf("%-62.62s %-13s %4zu %+11.1f%% %+11.1f%%\n", k.first.c_str(), k.second.c_str(), v.size(),
                  100 * median(v), 100 * worst(v));
      if (k.second == std::string("<=64KiB")) all_latency.insert(all_latency.end(), v.begin(), v.end());
      if (k.second == std::string(">=256MiB")) all_bandwidth.insert(all_bandwidth.end(), v.begin(), v.end());
    }
    auto abs_median = [](std::vector<double> v) {
      for (double& x : v) x = std::fabs(x);
      return v.empty() ? 0.0 : median(v);
    };
    std::printf("summary: median |time error| %.1f%% latency-bound (%zu rows), %.1f%% bandwidth-bound (%zu rows)\n",
                100 * abs_median(all_latency), all_latency.size(), 100 * abs_median(all_bandwidth),
                all_bandwidth.size());
    for (const std::string& s : skipped) std::printf("skipped (not in the catalogue): %s\n", s.c_str());
    std::printf("rows with predictions: %s\n", output.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft_validate_collectives: %s\n", e.what());
    return 2;
  }
  return 0;
}
