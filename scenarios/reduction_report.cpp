#include "scenarios/reduction_report.h"

#include <fmt/format.h>
#include <map>
#include <numeric>

#include "collectives/reduction_numerics.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

// The sum trees' text over [0, count): (end of a run of equal trees, text).
std::vector<std::pair<uint64_t, std::string>> tree_runs(const ReductionOrder& order, uint64_t count) {
  std::vector<std::pair<uint64_t, std::string>> runs;
  for (uint64_t e = 0; e < count; e = std::min(count, order.run_end(e))) {
    std::string text = order.tree_of(e).text();
    const uint64_t end = std::min(count, order.run_end(e));
    if (!runs.empty() && runs.back().second == text) {
      runs.back().first = end;
    } else {
      runs.emplace_back(end, std::move(text));
    }
  }
  return runs;
}

// Elements of [0, min of both) whose sum trees differ.
uint64_t elements_reordered(const std::vector<std::pair<uint64_t, std::string>>& a,
                            const std::vector<std::pair<uint64_t, std::string>>& b) {
  uint64_t differ = 0, at = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const uint64_t end = std::min(a[i].first, b[j].first);
    if (a[i].second != b[j].second) differ += end - at;
    at = end;
    if (a[i].first == end) ++i;
    if (b[j].first == end) ++j;
  }
  return differ;
}

struct FormatRun {
  SumFormat format = SumFormat::fp32;
  std::vector<float> sums;
  std::vector<std::pair<uint64_t, std::string>> runs;
  SumDifference vs_exact;
};

std::string cell(const SumDifference& d) { return fmt::format("{:.2f}/{:.3f}", d.max_ulps, d.rms_ulps); }

// The inputs, their exact sums, and what the previous size summed, row after row.
class ReportBuilder {
 public:
  ReportBuilder(const PreparedCollective& prepared, const ReductionReportOptions& options)
      : spec_(prepared.sweep_spec()), topology_(prepared.topology), options_(options), gpus_(topology_.gpus().size()) {
    std::iota(gpus_.begin(), gpus_.end(), 0u);
    for (SumFormat f : {SumFormat::fp32, SumFormat::bf16}) {
      inputs_[f] = reduction_inputs(ranks(), options.elements, options.heavy_tailed, options.seed, f);
      exact_[f] = exact_sum(inputs_[f], f);
      magnitude_[f] = magnitudes(inputs_[f]);
    }
  }

  uint32_t ranks() const { return static_cast<uint32_t>(gpus_.size()); }

  // One size: the plan's label, each format against the exact sum, then against the previous size.
  std::string row(uint64_t size) {
    const CollectivePlan plan = plan_collective(spec_.op, Bytes(size), topology_, *spec_.system, gpus_, spec_.plan);
    std::string row = fmt::format("  {:>12}  {:<18}", size, plan.label);
    if (!ReductionOrder::describes(plan)) {
      previous_.clear();  // the next size has nothing to compare with
      return row + " its summation order is not described yet (CollNet: SHARP's in-switch order)\n";
    }
    std::map<SumFormat, FormatRun> now;
    std::string columns;
    for (SumFormat f : {SumFormat::fp32, SumFormat::bf16}) {
      const uint32_t bytes = f == SumFormat::bf16 ? 2 : 4;
      const uint64_t count = std::max<uint64_t>(1, size / bytes);
      const ReductionOrder order(plan, topology_, gpus_, count, bytes);
      FormatRun& run = now[f];
      run.format = f;
      run.sums = sum_in_order(order, inputs_[f], f);
      run.runs = tree_runs(order, std::min(count, options_.elements));
      const std::vector<float> reference(exact_[f].begin(), exact_[f].begin() + static_cast<int64_t>(run.sums.size()));
      run.vs_exact = difference(run.sums, reference, magnitude_[f], f);
      row += fmt::format(" {:>16}", cell(run.vs_exact));
      std::string changed = "-";
      if (previous_.count(f) > 0) {
        const SumDifference d = difference(run.sums, previous_[f].sums, magnitude_[f], f);
        changed = fmt::format("{}/{}", elements_reordered(run.runs, previous_[f].runs), d.differing);
      }
      columns += fmt::format(" {:>22}", changed);
      if (f == SumFormat::fp32 && shown_.count(plan.label) == 0) shown_[plan.label] = trees(plan, order, run);
    }
    previous_ = std::move(now);
    return row + columns + "\n";
  }

  std::string orders() const {
    std::string out =
        "# the orders (ranks are communicator ranks; the first runs of elements, at the first size each runs at):\n";
    for (const auto& [label, text] : shown_) out += text;
    return out;
  }

 private:
  std::string trees(const CollectivePlan& plan, const ReductionOrder& order, const FormatRun& run) const {
    std::string out = fmt::format("#   {} ({}):\n", plan.label, order.summary());
    for (size_t i = 0; i < run.runs.size() && i < options_.shown; ++i) {
      const uint64_t first = i == 0 ? 0 : run.runs[i - 1].first;
      out += fmt::format("#     elements {}..{}: {}\n", first, run.runs[i].first - 1, run.runs[i].second);
    }
    return out;
  }

  SweepSpec spec_;
  const Topology& topology_;
  ReductionReportOptions options_;
  std::vector<uint32_t> gpus_;
  std::map<SumFormat, RankValues> inputs_;
  std::map<SumFormat, std::vector<float>> exact_;
  std::map<SumFormat, std::vector<double>> magnitude_;
  std::map<SumFormat, FormatRun> previous_;
  std::map<std::string, std::string> shown_;  // plan label -> the trees printed for it
};

}  // namespace

std::string reduction_order_report(const PreparedCollective& prepared, const ReductionReportOptions& options) {
  const SweepSpec spec = prepared.sweep_spec();
  if (spec.system == nullptr) throw ConfigError("--reduction-order needs a catalogue system (--system NAME)");
  if (spec.op != CollectiveOp::all_reduce) throw ConfigError("--reduction-order: the operation must be all_reduce");
  ReportBuilder report(prepared, options);
  std::string out = fmt::format(
      "# all_reduce summation order on {} x{} ({} ranks): what NCCL's tuner runs at each size, and the first {} "
      "elements summed in that order from {} inputs (seed {}): max/rms difference from the exactly "
      "rounded sum in ulps of sum(|x|), and elements whose order (and bits) differ from the previous size\n",
      spec.system->name, spec.system->nodes, report.ranks(), options.elements,
      options.heavy_tailed ? "heavy-tailed (Student's t, 3 dof)" : "normal", options.seed);
  out += fmt::format("# {:>12}  {:<18} {:>16} {:>16} {:>22} {:>22}\n", "bytes", "algorithm", "fp32 vs exact",
                     "bf16 vs exact", "fp32 reordered/differ", "bf16 reordered/differ");
  for (uint64_t size = std::max<uint64_t>(8, spec.min_bytes.count()); size <= spec.max_bytes.count();
       size *= spec.factor) {
    out += report.row(size);
    if (size > spec.max_bytes.count() / spec.factor) break;
  }
  return out + report.orders();
}

}  // namespace weft
