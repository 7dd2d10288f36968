// Issue 18, item 4: for every training row of a published table (../shared/validation/training.csv)
// that the catalogue can describe, the plan weft's search picks (`weft plan --search parallel`, its
// defaults) against the published plan, both in weft's own prediction: the row's cluster sized to
// its GPUs, the `flow` fabric, collectives timed in isolation (as weft_validate_training predicts the
// published plan). The search's pick must be at least as fast as the published plan and fit in
// memory; where it is slower, the row says how the published plan fared in the search (screened
// rank, or why it was not a candidate). Not an accuracy check: no measurement enters the comparison.
// Rows with the same model, batch, sequence, precision and cluster share one search.
// Usage: weft_validate_plans [MEASUREMENTS.csv] [OUT.csv] [--max-gpus N] [--match REGEX] [--top N]
//        [--isolated N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "bench/csv_rows.h"
#include "bench/training_rows.h"
#include "scenarios/plan_search.h"
#include "scenarios/run_training.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/memory_model.h"
#include "workloads/plan_space.h"

namespace {

using weft::bench::Case;
using weft::bench::Row;

struct Options {
  std::string input = "../shared/validation/training.csv";
  std::string output = "validate_plans.csv";
  weft::bench::RowOptions rows;
  std::string match;  // --match: only rows whose short name matches (a regular expression)
  weft::PlanSearchOptions search;
};

// What one row's check found.
struct Check {
  double published_s = 0;      // the published plan, full step, weft's prediction
  bool published_fits = true;  // in weft's memory model
  std::string pick;            // the search's best plan (plan_name), "" when the search found none
  double pick_s = 0;           // its full step
  double pick_gib = 0;         // its memory per GPU
  std::string published_fate;  // where the published plan stood in the search
  std::string error;           // the search's refusal, when it found no plan
  size_t candidates = 0;
  double search_s = 0;  // wall time of the search (0 when shared with an earlier row)
};

Options parse_options(int argc, char** argv) {
  Options o;
  o.search.top = 5;  // `weft plan --search parallel`'s defaults
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--max-gpus" && has_value) {
      o.rows.max_gpus = static_cast<uint32_t>(std::stoul(argv[++i]));
    } else if (a == "--match" && has_value) {
      o.match = argv[++i];
    } else if (a == "--top" && has_value) {
      o.search.top = std::stoul(argv[++i]);
    } else if (a == "--isolated" && has_value) {
      o.search.isolated = std::stoul(argv[++i]);
    } else if (a.rfind("--", 0) == 0) {
      throw weft::ConfigError("unknown option " + a + " (expected --max-gpus N, --match REGEX, --top N, --isolated N)");
    } else {
      positional.push_back(a);
    }
  }
  if (!positional.empty()) o.input = positional[0];
  if (positional.size() > 1) o.output = positional[1];
  if (o.search.top == 0) throw weft::ConfigError("--top must be at least 1: the pick is the search's best final run");
  return o;
}

// Rows whose searches are the same: everything but the plan (the search varies tp, pp, dp, cp, ep,
// ZeRO, recomputation, micro-batch, virtual stages and sequence parallelism, and keeps the rest).
std::string search_key(const Case& c) {
  const weft::TrainingSpec& s = c.spec;
  return c.family + '|' + c.system + '|' + c.cluster.node.gpu + '|' + s.model.name + '|' + std::to_string(c.gpus) +
         '|' + std::to_string(s.seq_len) + '|' + std::to_string(s.global_batch) + '|' +
         std::to_string(static_cast<int>(s.pipeline)) + '|' + std::to_string(s.grad_bytes) + '|' +
         std::to_string(s.bucket.count()) + '|' + std::to_string(s.flash_attention);
}

// Where the published plan stood: its place among those the search timed, or why it was no candidate.
std::string fate_of(const weft::PlanSearchResult& r, const std::string& published, bool fits) {
  if (!fits) return "not a candidate: over memory in weft's model";
  for (size_t i = 0; i < r.ranked.size(); ++i) {
    if (r.ranked[i].name != published) continue;
    const char* pass = i < r.finals ? "final" : i < r.isolated ? "isolated" : "screen";
    return "ranked " + std::to_string(i + 1) + " of " + std::to_string(r.ranked.size()) + " (" + pass + ")";
  }
  return "not a candidate: not in the plan space";
}

// The search's best plan (its final run) against the published plan.
Check check_row(const Case& c, const Options& opt, std::map<std::string, weft::PlanSearchResult>& searches) {
  Check out;
  const weft::Scenario scenario = weft::bench::scenario_of(c);
  const weft::Topology topology = weft::build_system(scenario.system);
  const weft::catalogue::GpuSpec& gpu = weft::catalogue::gpu(c.cluster.node.gpu);
  out.published_s = weft::run_training(scenario, topology).step.step_time.seconds();
  out.published_fits = weft::training_memory(c.spec, gpu).fits();
  const std::string key = search_key(c);
  auto found = searches.find(key);
  if (found == searches.end()) {
    try {
      found = searches.emplace(key, weft::search_parallel_plans(scenario, opt.search)).first;
      out.search_s = found->second.wall_seconds;
    } catch (const weft::ConfigError& e) {
      out.error = e.what();
      return out;
    }
  }
  const weft::PlanSearchResult& r = found->second;
  const weft::RankedPlan& best = r.ranked.front();
  out.pick = best.name;
  out.pick_s = best.final_time->seconds();
  out.pick_gib = best.memory.total() / (1024.0 * 1024 * 1024);
  out.published_fate = fate_of(r, weft::plan_name(c.spec), out.published_fits);
  out.candidates = r.ranked.size();
  return out;
}

// The pick is "as fast" when no slower than the published plan (to a part in 10^6: both are
// simulated step times, the same plan gives the same time).
bool pick_holds(const Check& k) { return !k.pick.empty() && k.pick_s <= k.published_s * (1 + 1e-6); }

void print_row(const Case& c, const Check& k) {
  const std::string verdict = k.pick.empty() ? "no plan" : pick_holds(k) ? "ok" : "SLOWER";
  std::printf("%-17s %5u %-44s %8.3f  %-72s %8.3f %+7.1f%% %6.1f %-7s %s\n", c.name.c_str(), c.gpus,
              weft::plan_name(c.spec).c_str(), k.published_s, k.pick.empty() ? "-" : k.pick.c_str(), k.pick_s,
              k.pick.empty() ? 0.0 : 100 * (k.pick_s / k.published_s - 1), k.search_s, verdict.c_str(),
              k.error.empty() ? k.published_fate.c_str() : k.error.c_str());
  std::fflush(stdout);
}

void write_csv_row(std::ofstream& csv, const Case& c, const Check& k) {
  csv << '"' << c.name << "\"," << c.gpus << ",\"" << c.family << "\",\"" << weft::plan_name(c.spec) << "\","
      << k.published_s << ',' << (k.published_fits ? "yes" : "no") << ",\"" << k.pick << "\"," << k.pick_s << ','
      << k.pick_gib << ',' << (k.pick.empty() ? 0.0 : k.pick_s / k.published_s - 1) << ','
      << (pick_holds(k) ? "yes" : "no") << ",\"" << (k.error.empty() ? k.published_fate : k.error) << "\","
      << k.candidates << ',' << k.search_s << '\n';
}

// Per family: rows whose pick holds, the median gain of the pick over the published plan, and the
// rows that do not hold, by reason.
void print_summary(const std::vector<std::pair<Case, Check>>& done, const std::vector<std::string>& skipped) {
  std::map<std::string, std::pair<size_t, std::vector<double>>> families;  // rows held, pick/published - 1
  size_t held = 0;
  for (const auto& [c, k] : done) {
    auto& [family_held, gains] = families[c.family];
    if (!pick_holds(k)) continue;
    ++held;
    ++family_held;
    gains.push_back(k.pick_s / k.published_s - 1);
  }
  std::printf("\nsummary: the search's pick is at least as fast as the published plan and fits on %zu of %zu rows\n",
              held, done.size());
  for (auto& [family, v] : families) {
    std::sort(v.second.begin(), v.second.end());
    const double median = v.second.empty() ? 0.0 : v.second[v.second.size() / 2];
    std::printf("  %-22s %zu rows hold; median step of the pick %+.1f%% against the published plan\n", family.c_str(),
                v.first, 100 * median);
  }
  for (const auto& [c, k] : done) {
    if (pick_holds(k)) continue;
    std::printf(
        "does not hold: %s x%u: %s\n", c.name.c_str(), c.gpus,
        k.pick.empty() ? k.error.c_str() : ("pick " + k.pick + " slower; published " + k.published_fate).c_str());
  }
  for (const std::string& s : skipped) std::printf("skipped: %s\n", s.c_str());
}

int run(const Options& opt) {
  const auto start = std::chrono::steady_clock::now();
  std::ofstream csv(opt.output);
  csv << "name,gpus,family,published_plan,published_s,published_fits,pick,pick_s,pick_gib,pick_vs_published,holds,"
         "published_in_search,candidates,search_s\n";
  std::printf("# The search's pick (weft plan --search parallel: top %zu, isolated %zu) against each published plan\n",
              opt.search.top, opt.search.isolated);
  std::printf(
      "# both predicted by weft: flow fabric, collectives timed in isolation, the whole step; rows over %u "
      "GPUs skipped (--max-gpus)\n",
      opt.rows.max_gpus);
  std::printf("%-17s %5s %-44s %8s  %-72s %8s %8s %6s %-7s %s\n", "model", "GPUs", "published plan", "pub_s",
              "search's pick", "pick_s", "gain", "wall_s", "verdict", "published plan in the search");
  std::map<std::string, weft::PlanSearchResult> searches;
  std::vector<std::pair<Case, Check>> done;
  std::vector<std::string> skipped;
  const std::regex match(opt.match.empty() ? ".*" : opt.match);
  for (const Row& row : weft::bench::read_rows(opt.input)) {
    std::string why_not;
    std::optional<Case> c = weft::bench::describe(row, opt.rows, why_not);
    if (!c) {
      skipped.push_back(row.at("model") + " x" + row.at("gpus") + ": " + why_not);
      continue;
    }
    if (!std::regex_search(c->name, match)) continue;
    Check k = check_row(*c, opt, searches);
    print_row(*c, k);
    write_csv_row(csv, *c, k);
    done.emplace_back(std::move(*c), std::move(k));
  }
  print_summary(done, skipped);
  std::printf("rows: %s; %zu searches; wall %.1f s\n", opt.output.c_str(), searches.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_options(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft_validate_plans: %s\n", e.what());
    return 2;
  }
}
