// Predicts the step time of every row of a published training-throughput table
// (../shared/validation/training.csv) that the catalogue can describe: the model from its name, the
// plan from the row (and, where the row is silent, from the scripts behind the publication), one
// step generated as per-rank programs and replayed on the `flow` fabric with isolated collective
// timing (bench::scenario_of, the same run as `weft run` on such a scenario). Prints per row the measured and predicted
// iteration time and TFLOP/s per GPU with the signed error, where the predicted time goes (compute, exposed
// communication per group, idle), the median |error| and the worst row; writes every row to a CSV. Held-out check: no
// model parameter or efficiency is fitted to these rows (weft's defaults, compute_model.cpp, cite their own sources).
// Usage: weft_validate_training [MEASUREMENTS.csv] [OUT.csv] [--max-gpus N] [--sc21-sp-zero1]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "bench/csv_rows.h"
#include "bench/training_rows.h"
#include "scenarios/run_training.h"
#include "sim/core/errors.h"
#include "topologies/systems.h"
#include "workloads/memory_model.h"
#include "workloads/replayer.h"
#include "workloads/step_breakdown.h"
#include "workloads/training.h"

namespace {

using weft::bench::Case;
using weft::bench::read_rows;
using weft::bench::Row;

struct Options {
  std::string input = "../shared/validation/training.csv";
  std::string output = "validate_training.csv";
  weft::bench::RowOptions rows;
  bool memory_only = false;  // --memory-only: the memory check alone, no step simulated
};

std::string plan_of(const weft::TrainingSpec& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "tp%u pp%u dp%u%s mb%u m%u%s%s%s%s", s.parallel.tp, s.parallel.pp, s.parallel.dp,
                s.parallel.cp > 1 ? (" cp" + std::to_string(s.parallel.cp)).c_str() : "", s.micro_batch,
                weft::micro_batches(s), s.virtual_stages > 1 ? (" v" + std::to_string(s.virtual_stages)).c_str() : "",
                s.sequence_parallel ? " sp" : "", s.sharding == weft::Sharding::zero1 ? " zero1" : "",
                s.recompute ? " rc" : "");
  return buf;
}

struct Result {
  double predicted_s = 0, predicted_tflops = 0;
  weft::StepBreakdown step;
  uint64_t ops = 0;
  double wall_s = 0;
};

Result simulate(const Case& c) {
  const auto start = std::chrono::steady_clock::now();
  const weft::Scenario scenario = weft::bench::scenario_of(c);
  const weft::TrainingOutcome run = weft::run_training(scenario, weft::build_system(scenario.system));
  Result out;
  out.ops = run.ops;
  out.step = run.step;
  out.predicted_s = out.step.step_time.seconds();
  // TFLOP/s as the publication counts them (SC21: with the recomputed forward), from weft's formula.
  const double flops =
      weft::training_step_flops(c.spec.model, c.spec.global_batch, c.spec.seq_len, c.flops_with_recompute);
  out.predicted_tflops = flops / out.predicted_s / c.gpus / 1e12;
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Options parse_options(int argc, char** argv) {
  Options o;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--max-gpus" && i + 1 < argc) {
      o.rows.max_gpus = static_cast<uint32_t>(std::stoul(argv[++i]));
    } else if (a == "--memory-only") {
      o.memory_only = true;
    } else if (a == "--sc21-sp-zero1") {
      o.rows.sc21_sp_zero1 = true;
    } else if (a.rfind("--", 0) == 0) {
      throw weft::ConfigError("unknown option " + a + " (expected --max-gpus N, --sc21-sp-zero1, --memory-only)");
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() > 0) o.input = positional[0];
  if (positional.size() > 1) o.output = positional[1];
  return o;
}

constexpr weft::CommGroup kGroups[] = {weft::CommGroup::dp, weft::CommGroup::tp, weft::CommGroup::pp,
                                       weft::CommGroup::cp};

void print_header(const Options& o) {
  std::printf("# Training-step predictions against published measurements (%s)\n", o.input.c_str());
  std::printf("# Held-out check: weft's default compute profile and catalogue, nothing fitted to these rows.\n");
  std::printf("# flow fabric, collectives timed in isolation; rows over %u GPUs skipped (--max-gpus).\n",
              o.rows.max_gpus);
  std::printf(
      "# error = (predicted - measured) / measured; TFLOP/s counted as the source does (SC21: with recompute).\n");
  std::printf("# SC21 rows as their scripts ran (Megatron-LM examples/sc21: fp16, full recompute, %s).\n",
              o.rows.sc21_sp_zero1 ? "but with sequence parallelism and the distributed optimizer (--sc21-sp-zero1)"
                                   : "no sequence parallelism, no distributed optimizer; --sc21-sp-zero1 adds both");
  std::printf("%-17s %5s %-38s %8s %8s %7s %7s %7s %7s %10s %7s\n", "model", "GPUs", "plan", "meas_s", "pred_s", "err",
              "meas_TF", "pred_TF", "err", "ops", "wall_s");
}

void print_row(const Case& c, const Result& r) {
  std::printf("%-17s %5u %-38s %8.2f %8.2f %+6.1f%% %7.1f %7.1f %+6.1f%% %10llu %7.1f\n", c.name.c_str(), c.gpus,
              plan_of(c.spec).c_str(), c.measured_s, r.predicted_s, 100 * (r.predicted_s - c.measured_s) / c.measured_s,
              c.measured_tflops, r.predicted_tflops, 100 * (r.predicted_tflops - c.measured_tflops) / c.measured_tflops,
              static_cast<unsigned long long>(r.ops), r.wall_s);
  std::fflush(stdout);  // a row at a time: the larger rows take tens of seconds
}

void print_breakdown(const std::vector<std::pair<Case, Result>>& done) {
  std::printf("\n# where the predicted step goes (mean per rank, s): compute, exposed communication per group, idle\n");
  std::printf("%-17s %5s %8s %8s %8s %8s %8s %8s %8s %6s\n", "model", "GPUs", "step", "compute", "exp_dp", "exp_tp",
              "exp_pp", "exp_cp", "idle", "MFU");
  for (const auto& [c, r] : done) {
    const weft::StepBreakdown& b = r.step;
    std::printf("%-17s %5u %8.3f %8.3f", c.name.c_str(), c.gpus, b.step_time.seconds(), b.mean.compute.seconds());
    for (weft::CommGroup g : kGroups) std::printf(" %8.3f", b.mean.exposed[static_cast<size_t>(g)].seconds());
    std::printf(" %8.3f %5.1f%%\n", b.mean.idle.seconds(), 100 * b.mfu);
  }
}

void write_csv_row(std::ofstream& csv, const Case& c, const Result& r) {
  const weft::StepBreakdown& b = r.step;
  csv << '"' << c.name << "\"," << c.spec.model.name << ',' << c.gpus << ",\"" << c.system << "\",\"" << plan_of(c.spec)
      << "\"," << weft::precision_name(c.spec.precision) << ',' << c.measured_s << ',' << r.predicted_s << ','
      << (r.predicted_s - c.measured_s) / c.measured_s << ',' << c.measured_tflops << ',' << r.predicted_tflops << ','
      << (r.predicted_tflops - c.measured_tflops) / c.measured_tflops << ',' << b.mean.compute.seconds();
  for (weft::CommGroup g : kGroups) csv << ',' << b.mean.exposed[static_cast<size_t>(g)].seconds();
  csv << ',' << b.mean.idle.seconds() << ',' << r.ops << ',' << r.wall_s << ",\"" << c.choices << "\"\n";
}

double time_error(const std::pair<Case, Result>& d) { return d.second.predicted_s / d.first.measured_s - 1; }

// Median |error| over all rows and per family (publication and precision), the worst row, the choices
// made where the file is silent, and the rows skipped with the reason.
void print_summary(const std::vector<std::pair<Case, Result>>& done, const std::vector<std::string>& skipped) {
  std::vector<double> all, all_signed;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> families;  // |error|, signed
  const std::pair<Case, Result>* worst = nullptr;
  for (const auto& d : done) {
    all.push_back(std::fabs(time_error(d)));
    all_signed.push_back(time_error(d));
    auto& [abs_errors, signed_errors] = families[d.first.family];
    abs_errors.push_back(std::fabs(time_error(d)));
    signed_errors.push_back(time_error(d));
    if (!worst || all.back() > std::fabs(time_error(*worst))) worst = &d;
  }
  std::printf("\nsummary: median |time error| %.1f%%, median signed %+.1f%% over %zu rows (%zu of the file's %zu)",
              100 * median(all), 100 * median(all_signed), done.size(), done.size(), done.size() + skipped.size());
  if (worst)
    std::printf("; worst %s x%u: %+.1f%%", worst->first.name.c_str(), worst->first.gpus, 100 * time_error(*worst));
  std::printf("\n");
  for (const auto& [family, v] : families) {
    std::printf("  %-22s median |time error| %5.1f%%, signed %+6.1f%% over %zu rows\n", family.c_str(),
                100 * median(v.first), 100 * median(v.second), v.first.size());
  }
  std::printf("choices where the file is silent:\n");
  std::vector<std::string> seen;
  for (const auto& d : done) {
    if (std::find(seen.begin(), seen.end(), d.first.choices) != seen.end()) continue;
    seen.push_back(d.first.choices);
    std::printf("  %s: %s\n", d.first.name.c_str(), d.first.choices.c_str());
  }
  for (const std::string& s : skipped) std::printf("skipped: %s\n", s.c_str());
}

// Every published run ran, so it fit in its GPUs' memory: weft's memory model must say so too. Prints
// how many fit and, for those that do not, the need against the capacity (the model over-counts there).
void print_memory_check(const std::vector<std::pair<Case, Result>>& done) {
  size_t fit = 0;
  std::vector<std::string> over;
  double fullest = 0;
  for (const auto& [c, r] : done) {
    const weft::MemoryBreakdown m = weft::training_memory(c.spec, weft::catalogue::gpu(c.cluster.node.gpu));
    fullest = std::max(fullest, m.total() / m.capacity);
    if (m.fits()) {
      ++fit;
    } else {
      over.push_back(c.name + " x" + std::to_string(c.gpus) + ": " + weft::describe(m));
    }
  }
  std::printf(
      "memory: %zu of %zu published runs fit in weft's memory model (each ran, so each must); fullest at "
      "%.0f%% of its GPU\n",
      fit, done.size(), 100 * fullest);
  for (const std::string& o : over) std::printf("  does not fit: %s\n", o.c_str());
}

int run(const Options& opt) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<Row> rows = read_rows(opt.input);
  std::ofstream csv(opt.output);
  csv << "name,catalogue_model,gpus,system,plan,precision,measured_s,predicted_s,error_time,measured_tflops,"
         "predicted_tflops,error_tflops,compute_s,exposed_dp_s,exposed_tp_s,exposed_pp_s,exposed_cp_s,idle_s,ops,"
         "wall_s,choices\n";
  print_header(opt);
  std::vector<std::pair<Case, Result>> done;
  std::vector<std::string> skipped;
  for (const Row& row : rows) {
    std::string why_not;
    std::optional<Case> c = weft::bench::describe(row, opt.rows, why_not);
    if (!c) {
      skipped.push_back(row.at("model") + " x" + row.at("gpus") + ": " + why_not);
      continue;
    }
    if (opt.memory_only) {
      done.emplace_back(std::move(*c), Result{});
      continue;
    }
    Result r = simulate(*c);
    print_row(*c, r);
    write_csv_row(csv, *c, r);
    done.emplace_back(std::move(*c), std::move(r));
  }
  if (!opt.memory_only) {
    print_breakdown(done);
    print_summary(done, skipped);
  }
  print_memory_check(done);
  std::printf("rows with predictions: %s; wall %.1f s\n", opt.output.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_options(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft_validate_training: %s\n", e.what());
    return 2;
  }
}
