// Scenarios and their results: load YAML text, run it with the GIL released, and read the result
// back as the texts `weft run --out` writes (summary.json per run or per variant, results.csv) plus
// numpy columns for the per-op timeline, the busiest links' utilisation and a traffic pattern's flows.
// (Training tables come from summary.json: variants.csv does not quote names that hold commas.)
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings/src/bindings.h"
#include "scenarios/default_scenario.h"
#include "scenarios/output_files.h"
#include "scenarios/plan_search.h"
#include "scenarios/report.h"
#include "scenarios/run_scenario.h"
#include "scenarios/scenario.h"
#include "scenarios/serving_layouts.h"
#include "scenarios/serving_plan.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/serving/serving.h"

namespace py = pybind11;

namespace weft::python {
namespace {

template <typename T>
py::array_t<T> column(size_t n) {
  return py::array_t<T>(static_cast<py::ssize_t>(n));
}

// Names of an enum's values 0..count-1, for pandas categoricals built from the codes.
template <typename Enum>
std::vector<std::string> enum_names(size_t count) {
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) out.emplace_back(to_string(static_cast<Enum>(i)));
  return out;
}

// OpKind has no to_string in the library; these follow program.h's order.
const std::vector<std::string> kOpKinds{"compute", "collective", "send", "recv"};
constexpr size_t kPhases = 5;         // Phase: forward .. other
constexpr size_t kCollectiveOps = 7;  // CollectiveOp: all_reduce .. send_recv

class RunHandle {
 public:
  RunHandle(ScenarioResult result, double wall_seconds)
      : result_(std::make_shared<ScenarioResult>(std::move(result))), wall_seconds_(wall_seconds) {}

  double wall_seconds() const { return wall_seconds_; }
  size_t columns() const { return result_->variants.size() + 1; }

  std::string kind() const {
    if (result_->training) return "training";
    if (result_->serving) return "serving";
    return result_->traffic ? "traffic" : "collectives";
  }

  // The baseline's name is `compare_baseline:` when there are variants, else the scenario's name
  // (as the reports name them).
  std::vector<std::string> names() const {
    const Scenario& s = result_->scenario;
    std::vector<std::string> out{s.compare.empty() ? s.name : s.baseline};
    for (const ScenarioResult& v : result_->variants) out.push_back(v.scenario.name);
    return out;
  }

  std::string summary_json() const { return format_scenario(*result_, OutputFormat::json); }
  std::string column_json(size_t i) const { return format_scenario(at(i), OutputFormat::json); }
  std::string column_csv(size_t i) const { return format_scenario(at(i), OutputFormat::csv); }
  std::string report() const { return format_scenario(*result_, OutputFormat::table); }

  uint64_t op_count(size_t i) const {
    const ScenarioResult& r = at(i);
    return r.training ? r.training->ops : 0;
  }

  py::dict ops(size_t i, const std::vector<uint32_t>& ranks, uint64_t limit) const;
  py::dict links(size_t i) const;
  py::dict flows(size_t i) const;
  py::dict requests(size_t i) const;

  void write(const std::string& dir) const {
    std::vector<OutputFile> files = scenario_files(*result_);
    py::gil_scoped_release release;
    write_files(dir, files);
  }

 private:
  const ScenarioResult& at(size_t i) const {
    if (i >= columns()) throw py::index_error("variant index out of range");
    return i == 0 ? *result_ : result_->variants[i - 1];
  }

  std::shared_ptr<const ScenarioResult> result_;
  double wall_seconds_ = 0;
};

// Whole ranks in the order asked (all ranks when none) until the next one would pass `limit` rows.
py::dict RunHandle::ops(size_t i, const std::vector<uint32_t>& asked, uint64_t limit) const {
  const ScenarioResult& r = at(i);
  py::dict out;
  if (!r.training) return out;
  const Workload& w = *r.training->workload;
  const auto& timings = r.training->replay.ops.timings();
  std::vector<uint32_t> ranks = asked;
  if (ranks.empty()) {
    for (uint32_t k = 0; k < w.ranks(); ++k) ranks.push_back(k);
  }
  size_t rows = 0;
  size_t taken = 0;
  for (; taken < ranks.size(); ++taken) {
    if (ranks[taken] >= w.ranks()) throw py::index_error("rank out of range");
    const size_t n = w.programs[ranks[taken]].ops.size();
    if (rows + n > limit && taken > 0) break;
    rows += n;
  }
  auto rank = column<uint32_t>(rows), index = column<uint32_t>(rows), label = column<uint32_t>(rows);
  auto kind = column<uint8_t>(rows), stream = column<uint8_t>(rows), group = column<uint8_t>(rows);
  auto phase = column<uint8_t>(rows), op = column<uint8_t>(rows);
  auto bytes = column<int64_t>(rows);
  auto peer = column<int32_t>(rows), comm = column<int32_t>(rows);
  auto issued = column<double>(rows), start = column<double>(rows), end = column<double>(rows);
  size_t row = 0;
  for (size_t k = 0; k < taken; ++k) {
    const Program& p = w.programs[ranks[k]];
    for (size_t j = 0; j < p.ops.size(); ++j, ++row) {
      const Op& o = p.ops[j];
      const OpTiming& t = timings[ranks[k]][j];
      rank.mutable_at(row) = ranks[k];
      index.mutable_at(row) = static_cast<uint32_t>(j);
      label.mutable_at(row) = o.label;
      kind.mutable_at(row) = static_cast<uint8_t>(o.kind);
      stream.mutable_at(row) = o.stream;
      group.mutable_at(row) = static_cast<uint8_t>(o.group);
      phase.mutable_at(row) = static_cast<uint8_t>(o.phase);
      op.mutable_at(row) = o.kind == OpKind::collective ? static_cast<uint8_t>(o.collective) : uint8_t{255};
      bytes.mutable_at(row) = static_cast<int64_t>(o.bytes.count());
      peer.mutable_at(row) = o.kind == OpKind::send || o.kind == OpKind::recv ? static_cast<int32_t>(o.peer) : -1;
      comm.mutable_at(row) = o.kind == OpKind::collective ? static_cast<int32_t>(o.comm) : -1;
      issued.mutable_at(row) = t.issued.microseconds();
      start.mutable_at(row) = t.started.microseconds();
      end.mutable_at(row) = t.ended.microseconds();
    }
  }
  out["rank"] = rank, out["op"] = index, out["kind"] = kind, out["stream"] = stream, out["group"] = group;
  out["phase"] = phase, out["collective"] = op, out["comm"] = comm, out["peer"] = peer, out["bytes"] = bytes;
  out["label"] = label, out["issued_us"] = issued, out["start_us"] = start, out["end_us"] = end;
  out["labels"] = w.labels;
  out["kinds"] = kOpKinds;
  out["groups"] = enum_names<CommGroup>(kCommGroups);
  out["phases"] = enum_names<Phase>(kPhases);
  out["collectives"] = enum_names<CollectiveOp>(kCollectiveOps);
  out["truncated"] = taken < ranks.size();
  out["ranks_total"] = w.ranks();
  return out;
}

// The busiest links' utilisation (RunRecording::busiest_links): names and a links x bins matrix.
py::dict RunHandle::links(size_t i) const {
  const ScenarioResult& r = at(i);
  py::dict out;
  if (!r.training) return out;
  const BusiestLinks& links = r.training->links;
  size_t bins = 0;
  for (const LinkSeries& s : links.links) bins = std::max(bins, s.utilisation.size());
  py::array_t<double> matrix({links.links.size(), bins});
  std::vector<std::string> names;
  for (size_t l = 0; l < links.links.size(); ++l) {
    names.push_back(links.links[l].name);
    const auto& u = links.links[l].utilisation;
    for (size_t b = 0; b < bins; ++b) matrix.mutable_at(l, b) = b < u.size() ? u[b] : 0.0;
  }
  out["names"] = names;
  out["utilisation"] = matrix;
  out["bin_us"] = links.bin.microseconds();
  return out;
}

py::dict RunHandle::flows(size_t i) const {
  const ScenarioResult& r = at(i);
  py::dict out;
  if (!r.traffic) return out;
  const auto& flows = r.traffic->flows;
  const size_t n = flows.size();
  auto src = column<uint32_t>(n), dst = column<uint32_t>(n);
  auto priority = column<uint8_t>(n);
  auto bytes = column<int64_t>(n);
  auto start = column<double>(n), fct = column<double>(n), ideal = column<double>(n), slowdown = column<double>(n);
  for (size_t k = 0; k < n; ++k) {
    const FlowOutcome& f = flows[k];
    src.mutable_at(k) = f.flow.src;
    dst.mutable_at(k) = f.flow.dst;
    priority.mutable_at(k) = f.flow.priority;
    bytes.mutable_at(k) = static_cast<int64_t>(f.flow.bytes.count());
    start.mutable_at(k) = f.flow.start.microseconds();
    fct.mutable_at(k) = f.fct.microseconds();
    ideal.mutable_at(k) = f.ideal.microseconds();
    slowdown.mutable_at(k) = f.slowdown;
  }
  out["src"] = src, out["dst"] = dst, out["bytes"] = bytes, out["priority"] = priority;
  out["start_us"] = start, out["fct_us"] = fct, out["ideal_us"] = ideal, out["slowdown"] = slowdown;
  return out;
}

// A serving run's requests, one row each in request order (what requests.csv holds).
py::dict RunHandle::requests(size_t i) const {
  const ScenarioResult& r = at(i);
  py::dict out;
  if (!r.serving) return out;
  const std::vector<Sequence>& seqs = r.serving->run.sequences;
  const size_t n = seqs.size();
  auto prompt = column<uint32_t>(n), output = column<uint32_t>(n), preemptions = column<uint32_t>(n);
  auto arrival = column<double>(n), ttft = column<double>(n), tpot = column<double>(n), e2e = column<double>(n);
  for (size_t k = 0; k < n; ++k) {
    const Sequence& q = seqs[k];
    prompt.mutable_at(k) = q.prompt;
    output.mutable_at(k) = q.output;
    preemptions.mutable_at(k) = q.preemptions;
    arrival.mutable_at(k) = q.arrival.seconds();
    ttft.mutable_at(k) = (q.first_token - q.arrival).seconds() * 1e3;
    tpot.mutable_at(k) = q.output > 1 ? (q.finish - q.first_token).seconds() * 1e3 / (q.output - 1) : 0.0;
    e2e.mutable_at(k) = (q.finish - q.arrival).seconds() * 1e3;
  }
  out["arrival_s"] = arrival, out["prompt_tokens"] = prompt, out["output_tokens"] = output;
  out["ttft_ms"] = ttft, out["tpot_ms"] = tpot, out["e2e_ms"] = e2e, out["preemptions"] = preemptions;
  return out;
}

Scenario load(const std::string& text, const std::string& source, const std::vector<std::string>& sets) {
  py::gil_scoped_release release;
  return load_scenario_text(text, source, sets);
}

// Runs with the GIL released. `interruptible` (the caller is Python's main thread): every poll
// takes the GIL just long enough to see a pending Ctrl-C, and the run then stops (KeyboardInterrupt).
RunHandle run(const std::string& text, const std::string& source, const std::vector<std::string>& sets,
              uint32_t busiest_links, bool interruptible) {
  Scenario scenario = load(text, source, sets);
  RunPoll poll;
  if (interruptible) {
    poll = [](const RunProgress&) {
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() == 0) return true;
      PyErr_Clear();
      return false;
    };
  }
  py::gil_scoped_release release;
  const auto t0 = std::chrono::steady_clock::now();
  ScenarioResult result = run_scenario(scenario, poll, RunRecording{busiest_links});
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - t0;
  return RunHandle(std::move(result), wall.count());
}

// What `weft validate` checks: the scenario and every variant read; their names.
std::vector<std::string> validate(const std::string& text, const std::string& source,
                                  const std::vector<std::string>& sets) {
  Scenario s = load(text, source, sets);
  std::vector<std::string> names{s.compare.empty() ? s.name : s.baseline};
  for (const ScenarioVariant& v : s.compare) names.push_back(v.name);
  return names;
}

// A serving scenario's layouts (scenarios/serving_layouts.h), each serving its requests: one dict per
// layout in the order tried, the cheapest meeting the SLO (90 % of requests) as `answer`.
py::dict search_serving_layouts(const Scenario& s) {
  const ServingWorkload& w = *s.serving();
  std::vector<ServingPlanRow> rows;
  {
    py::gil_scoped_release release;
    for (const ServingLayout& l : serving_layouts(w.spec, static_cast<uint32_t>(s.system.ranks),
                                                  static_cast<uint32_t>(s.system.cluster.node.gpus),
                                                  catalogue::gpu(w.gpu), longest_request(w.spec, w.requests))) {
      rows.push_back(serve_for_plan(l.name, with_layout(s, l), 0.9));
    }
  }
  py::list out_rows;
  for (const ServingPlanRow& r : rows) {
    py::dict row;
    row["plan"] = r.name, row["rate"] = r.rate, row["attainment"] = r.attainment, row["meets"] = r.meets;
    row["output_tokens_per_s"] = r.output_tokens_per_s, row["total_tokens_per_s"] = r.total_tokens_per_s;
    row["ttft_p50_ms"] = r.ttft_p50.seconds() * 1e3, row["tpot_p50_ms"] = r.tpot_p50.seconds() * 1e3;
    row["usd_per_hour"] = r.usd_per_hour ? py::cast(*r.usd_per_hour) : py::none();
    row["usd_per_m_output"] = r.usd_per_m_output ? py::cast(*r.usd_per_m_output) : py::none();
    out_rows.append(row);
  }
  const std::optional<size_t> chosen = cheapest_serving(rows);
  py::dict out;
  out["rows"] = out_rows, out["gpus"] = s.system.ranks, out["table"] = format_serving_plan(rows, chosen);
  out["answer"] = chosen ? py::cast(rows[*chosen].name) : py::none();
  return out;
}

// `weft plan --search parallel` on one scenario (not its variants): one dict per plan, best first,
// and the counts of the enumeration; a serving scenario's layouts instead.
py::dict search_plans(const std::string& text, const std::string& source, const std::vector<std::string>& sets,
                      size_t top, std::optional<size_t> isolated) {
  Scenario scenario = load(text, source, sets);
  if (scenario.serving()) return search_serving_layouts(scenario);
  PlanSearchOptions options = plan_search_options(scenario);
  if (top > 0) options.top = top;
  if (isolated) options.isolated = *isolated;
  PlanSearchResult r;
  {
    py::gil_scoped_release release;
    r = search_parallel_plans(scenario, options);
  }
  py::list rows;
  for (const RankedPlan& p : r.ranked) {
    const ParallelSizes& z = p.spec.parallel;
    py::dict row;
    row["plan"] = p.name, row["tp"] = z.tp, row["pp"] = z.pp, row["dp"] = z.dp, row["cp"] = z.cp, row["ep"] = z.ep;
    row["zero"] = static_cast<int>(p.spec.sharding), row["recompute"] = p.spec.recompute;
    row["micro_batch"] = p.spec.micro_batch, row["virtual_stages"] = p.spec.virtual_stages;
    row["sequence_parallel"] = p.spec.sequence_parallel;
    row["step_ms"] = p.final_time ? py::cast(p.final_time->seconds() * 1e3) : py::none();
    row["isolated_ms"] = p.isolated ? py::cast(p.isolated->seconds() * 1e3) : py::none();
    row["model_ms"] = p.screened ? py::cast(p.screened->seconds() * 1e3) : py::none();
    row["mfu"] = p.mfu;
    row["memory_gib"] = p.memory.total() / (1024.0 * 1024 * 1024);
    row["usd_per_step"] = p.usd_per_step ? py::cast(*p.usd_per_step) : py::none();
    rows.append(row);
  }
  py::dict out;
  out["rows"] = rows, out["gpus"] = r.gpus, out["nvlink_domain"] = r.nvlink_domain;
  out["considered"] = r.space.considered, out["impossible"] = r.space.impossible, out["too_big"] = r.space.too_big;
  out["screened"] = r.screened, out["isolated"] = r.isolated;
  out["finals"] = r.finals, out["wall_seconds"] = r.wall_seconds, out["table"] = format_plan_search(r);
  return out;
}

}  // namespace

void bind_run(py::module_& m) {
  py::class_<RunHandle>(m, "RunHandle", "A finished run (ScenarioResult), read through the methods below")
      .def_property_readonly("wall_seconds", &RunHandle::wall_seconds, "seconds run_scenario took")
      .def_property_readonly("kind", &RunHandle::kind, "training | serving | traffic | collectives")
      .def_property_readonly("columns", &RunHandle::columns, "the baseline and each compare: variant")
      .def("names", &RunHandle::names)
      .def("summary_json", &RunHandle::summary_json, "summary.json of `weft run --out`")
      .def("column_json", &RunHandle::column_json, py::arg("index"), "the JSON summary of one variant alone")
      .def("column_csv", &RunHandle::column_csv, py::arg("index"))
      .def("report", &RunHandle::report, "report.txt of `weft run --out`")
      .def("op_count", &RunHandle::op_count, py::arg("index"))
      .def("ops", &RunHandle::ops, py::arg("index"), py::arg("ranks"), py::arg("limit"))
      .def("links", &RunHandle::links, py::arg("index"))
      .def("flows", &RunHandle::flows, py::arg("index"))
      .def("requests", &RunHandle::requests, py::arg("index"))
      .def("write_files", &RunHandle::write, py::arg("dir"), "the files of `weft run --out DIR`");
  m.def("run", &run, py::arg("text"), py::arg("source"), py::arg("sets") = std::vector<std::string>{},
        py::arg("busiest_links") = 16, py::arg("interruptible") = false,
        "Load a scenario from YAML text (relative paths resolve against `source`'s folder) and run it");
  m.def(
      "default_scenario_text", [] { return std::string(kDefaultScenarioYaml); },
      "scenarios/default.yaml as bundled into the library");
  m.def("search_plans", &search_plans, py::arg("text"), py::arg("source"), py::arg("sets") = std::vector<std::string>{},
        py::arg("top") = 0, py::arg("isolated") = py::none(),
        "weft plan --search parallel: every fitting plan, the best first");
  m.def("validate", &validate, py::arg("text"), py::arg("source"), py::arg("sets") = std::vector<std::string>{},
        "Read a scenario and its variants without running them; their names");
}

}  // namespace weft::python
