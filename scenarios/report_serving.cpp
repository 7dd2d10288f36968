#include "scenarios/report_serving.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "cost/cost_report.h"

namespace weft {
namespace {

using Json = nlohmann::ordered_json;  // insertion order: byte-identical output run to run

constexpr uint32_t kSeriesBins = 200;

double ms(Time t) { return t.seconds() * 1e3; }

// Cents matter per million tokens: three significant digits below a dollar.
std::string per_million(double usd) { return usd < 1 ? fmt::format("${:.3g}", usd) : cost::format_usd(usd); }

std::string stream_text(const ServingWorkload& w) {
  if (!w.trace_file.empty()) return fmt::format("trace {}", w.trace_file);
  const RequestStreamSpec& s = w.stream;
  auto length = [](const LengthSpec& l) {
    return l.kind == LengthKind::fixed ? fmt::format("{:g}", l.mean)
                                       : fmt::format("{} {:g}±{:g}", to_string(l.kind), l.mean, l.spread);
  };
  const std::string arrivals = s.arrivals.kind == ArrivalKind::all_at_once ? "all at once"
                               : s.arrivals.kind == ArrivalKind::gamma
                                   ? fmt::format("gamma {:g}/s cv {:g}", s.arrivals.rate, s.arrivals.cv)
                                   : fmt::format("poisson {:g}/s", s.arrivals.rate);
  return fmt::format("{}, prompt {}, output {} tokens", arrivals, length(s.prompt), length(s.output));
}

std::string slo_text(const ServingSlo& slo) {
  std::vector<std::string> parts;
  if (slo.ttft > Time()) parts.push_back(fmt::format("ttft {:g} ms", ms(slo.ttft)));
  if (slo.tpot > Time()) parts.push_back(fmt::format("tpot {:g} ms", ms(slo.tpot)));
  if (slo.e2e > Time()) parts.push_back(fmt::format("e2e {:g} ms", ms(slo.e2e)));
  return parts.empty() ? "no SLO" : fmt::format("SLO {}", fmt::join(parts, ", "));
}

std::string latency_row(std::string_view name, const LatencyStats& s) {
  return fmt::format("   {:<6} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>9}\n", name, ms(s.mean), ms(s.p50),
                     ms(s.p90), ms(s.p99), ms(s.max), s.count);
}

std::string cost_text(const ScenarioResult& r) {
  if (!r.cost) return "";
  if (!r.cost->cluster) {
    return fmt::format("   cost: n/a, no price for {} (add them under cost: prices:)\n",
                       fmt::join(r.cost->missing, ", "));
  }
  const cost::ClusterCost& k = *r.cost->cluster;
  std::string out = fmt::format("   cost: {}/h for the system ({}/GPU-h)", cost::format_usd(k.usd_per_hour),
                                cost::format_usd(k.usd_per_gpu_hour));
  if (const auto c = token_cost(r)) {
    out +=
        fmt::format("; {} per M input tokens, {} per M output tokens", per_million(c->input), per_million(c->output));
  }
  return out + "\n";
}

std::string pools_text(const ServingSpec& s) {
  if (!s.disaggregated.enabled()) {
    if (s.ep > 1) return fmt::format("ep {} (an attention engine per GPU) x {} replicas", s.ep, s.replicas);
    return s.pp > 1 ? fmt::format("tp {} x pp {} x {} replicas", s.tp, s.pp, s.replicas)
                    : fmt::format("tp {} x {} replicas", s.tp, s.replicas);
  }
  const Disaggregation& d = s.disaggregated;
  const auto pool = [](uint32_t tp, uint32_t pp, uint32_t ep, uint32_t replicas) {
    if (ep > 1) return fmt::format("ep {} x {}", ep, replicas);
    return pp > 1 ? fmt::format("tp {} x pp {} x {}", tp, pp, replicas) : fmt::format("tp {} x {}", tp, replicas);
  };
  return fmt::format("disaggregated: prefill {}, decode {}, KV {}",
                     pool(d.prefill_tp, d.prefill_pp, d.prefill_ep, d.prefill_replicas),
                     pool(d.decode_tp, d.decode_pp, d.decode_ep, d.decode_replicas), to_string(d.transfer));
}

std::string kv_transfer_text(const ServingOutcome& o) {
  const LatencyStats& w = o.metrics.kv_wait;
  return fmt::format(
      "   KV caches to decode: {} sequences, {:.2f} GiB in {} fabric transfers; first token to cache arrival "
      "p50 {:.3f} ms, p99 {:.3f} ms, max {:.3f} ms; prefill replicas: {}\n",
      w.count, o.run.kv_bytes / (1u << 30), o.run.kv_transfers, ms(w.p50), ms(w.p99), ms(w.max),
      describe(o.pool_kv.front()));
}

bool shares_prefixes(const ServingWorkload& w) {
  return std::any_of(w.requests.begin(), w.requests.end(), [](const Request& q) { return q.prefix > 0; });
}

std::string one_run(const ScenarioResult& r, std::string_view name) {
  const ServingWorkload& w = *r.scenario.serving();
  const ServingOutcome& o = *r.serving;
  const ServingMetrics& m = o.metrics;
  const ServingSpec& s = w.spec;
  std::string out = fmt::format("## {}: {} on {} x{} GPUs ({}), {}, {} weights, {} KV cache, {} fabric\n", name,
                                s.model.name, r.scenario.system.preset, r.scenario.system.ranks, w.gpu, pools_text(s),
                                to_string(s.weights), precision_name(s.kv), r.scenario.fabric);
  out += fmt::format("   {} requests ({}); served in {:.3f} s\n", m.requests, stream_text(w), m.duration.seconds());
  out += fmt::format("   {}; blocks of {} tokens, max_batched_tokens {}, max_seqs {}{}{}\n", describe(o.kv()),
                     s.limits.block_tokens, s.limits.max_batched_tokens, s.limits.max_seqs,
                     s.limits.chunked_prefill ? ", chunked prefill" : "", s.limits.cuda_graphs ? ", CUDA graphs" : "");
  out += fmt::format(
      "   throughput {:.2f} req/s, {:.1f} output tok/s, {:.1f} tok/s in all; goodput {:.2f} req/s "
      "({}: {} of {} requests)\n",
      m.requests_per_s, m.output_tokens_per_s, m.total_tokens_per_s, m.goodput, slo_text(s.slo), m.good_requests,
      m.requests);
  out += fmt::format("   {:<6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9}\n", "ms", "mean", "p50", "p90", "p99", "max",
                     "count");
  out +=
      latency_row("ttft", m.ttft) + latency_row("tpot", m.tpot) + latency_row("itl", m.itl) + latency_row("e2e", m.e2e);
  out += fmt::format(
      "   replicas busy {:.1f}% (MFU {:.1f}%), {:.1f} sequences per iteration, KV {:.1f}% used (peak {:.1f}%), {:.2f} "
      "queued on average, {} preemptions, {} iterations\n",
      100 * m.busy, 100 * m.mfu, m.mean_batch, 100 * m.mean_kv, 100 * m.peak_kv, m.mean_waiting, m.preemptions,
      m.iterations);
  if (s.max_concurrency == 0 && m.waiting_at_last_arrival > m.requests / 10 && m.waiting_at_last_arrival > s.replicas) {
    out += fmt::format(
        "   overloaded: {} requests were still queued when the last arrived (the rate is above what "
        "the replicas serve)\n",
        m.waiting_at_last_arrival);
  }
  if (s.disaggregated.enabled()) out += kv_transfer_text(o);
  if (shares_prefixes(w)) {
    out += fmt::format("   prefix cache{}: {} of {} prompt tokens ({:.1f}%) served from it\n",
                       s.limits.prefix_caching ? "" : " (off)", o.run.prefix_hit_tokens, m.input_tokens,
                       m.input_tokens > 0 ? 100.0 * static_cast<double>(o.run.prefix_hit_tokens) / m.input_tokens : 0);
  }
  if (s.pp > 1) {
    out += fmt::format("   activations between stages: {:.2f} GiB in {} fabric transfers\n",
                       o.run.stage_bytes / (1u << 30), o.run.stage_transfers);
  }
  out += fmt::format("   {} collective sizes timed, {} simulated on the fabric; simulated in {:.2f} s\n",
                     o.collective_sizes, o.isolated_runs, o.wall_seconds);
  return out + cost_text(r);
}

Json latency_json(const LatencyStats& s) {
  return Json{{"count", s.count},    {"mean_ms", ms(s.mean)}, {"p50_ms", ms(s.p50)},
              {"p90_ms", ms(s.p90)}, {"p99_ms", ms(s.p99)},   {"max_ms", ms(s.max)}};
}

Json run_json(const ScenarioResult& r, std::string_view name) {
  const ServingOutcome& o = *r.serving;
  const ServingMetrics& m = o.metrics;
  Json j{{"name", name},
         {"requests", m.requests},
         {"input_tokens", m.input_tokens},
         {"output_tokens", m.output_tokens},
         {"duration_s", m.duration.seconds()},
         {"requests_per_s", m.requests_per_s},
         {"output_tokens_per_s", m.output_tokens_per_s},
         {"total_tokens_per_s", m.total_tokens_per_s},
         {"goodput_requests_per_s", m.goodput},
         {"good_requests", m.good_requests},
         {"ttft", latency_json(m.ttft)},
         {"tpot", latency_json(m.tpot)},
         {"itl", latency_json(m.itl)},
         {"e2e", latency_json(m.e2e)},
         {"busy", m.busy},
         {"mfu", m.mfu},
         {"mean_batch", m.mean_batch},
         {"mean_kv", m.mean_kv},
         {"peak_kv", m.peak_kv},
         {"mean_waiting", m.mean_waiting},
         {"preemptions", m.preemptions},
         {"iterations", m.iterations},
         {"kv_tokens", o.kv().tokens()},
         {"waiting_at_last_arrival", m.waiting_at_last_arrival}};
  if (r.scenario.serving()->spec.disaggregated.enabled()) {
    j["kv_transfer"] = Json{{"sequences", m.kv_wait.count},
                            {"bytes", o.run.kv_bytes},
                            {"transfers", o.run.kv_transfers},
                            {"wait", latency_json(m.kv_wait)}};
  }
  if (shares_prefixes(*r.scenario.serving())) j["prefix_hit_tokens"] = o.run.prefix_hit_tokens;
  if (r.scenario.serving()->spec.pp > 1) {
    j["stage_transfers"] = Json{{"bytes", o.run.stage_bytes}, {"transfers", o.run.stage_transfers}};
  }
  if (const auto c = token_cost(r)) j["usd_per_million_tokens"] = Json{{"input", c->input}, {"output", c->output}};
  return j;
}

}  // namespace

std::optional<TokenCost> token_cost(const ScenarioResult& r) {
  if (!r.cost || !r.cost->cluster || !r.serving) return std::nullopt;
  const ServingMetrics& m = r.serving->metrics;
  const double usd = r.cost->cluster->usd_per_hour * m.duration.seconds() / 3600;
  TokenCost c;
  if (m.input_tokens > 0) c.input = usd * m.prefill_fraction / static_cast<double>(m.input_tokens) * 1e6;
  if (m.output_tokens > 0) c.output = usd * (1 - m.prefill_fraction) / static_cast<double>(m.output_tokens) * 1e6;
  return c;
}

std::string serving_table(const ScenarioResult& result) {
  const Scenario& s = result.scenario;
  std::string out = fmt::format("# {} ({}), seed {}\n", s.name, s.source, s.seed);
  out += one_run(result, s.baseline);
  for (size_t i = 0; i < result.variants.size(); ++i) out += one_run(result.variants[i], s.compare[i].name);
  if (result.variants.empty()) return out;
  out += fmt::format("## side by side\n   {:<28} {:>10} {:>12} {:>10} {:>10} {:>10} {:>12} {:>12}\n", "variant",
                     "req/s", "out tok/s", "ttft p50", "tpot p50", "goodput", "$/M in", "$/M out");
  auto row = [&](const ScenarioResult& r, std::string_view name) {
    const ServingMetrics& m = r.serving->metrics;
    const auto c = token_cost(r);
    out += fmt::format("   {:<28} {:>10.2f} {:>12.1f} {:>10.2f} {:>10.2f} {:>10.2f} {:>12} {:>12}\n", name,
                       m.requests_per_s, m.output_tokens_per_s, ms(m.ttft.p50), ms(m.tpot.p50), m.goodput,
                       c ? per_million(c->input) : "n/a", c ? per_million(c->output) : "n/a");
  };
  row(result, s.baseline);
  for (size_t i = 0; i < result.variants.size(); ++i) row(result.variants[i], s.compare[i].name);
  return out;
}

std::string serving_json(const ScenarioResult& result) {
  const Scenario& s = result.scenario;
  Json j{{"scenario", s.name}, {"source", s.source}, {"seed", s.seed}, {"fabric", s.fabric}, {"runs", Json::array()}};
  Json base = run_json(result, s.baseline);
  Json series = Json::array();
  for (const ServingBin& b : serving_series(result.serving->run, kSeriesBins)) {
    series.push_back(Json{{"t_s", b.start.seconds()},
                          {"batch", b.batch},
                          {"kv", b.kv},
                          {"waiting", b.waiting},
                          {"tokens_per_s", b.tokens_per_s}});
  }
  base["series"] = std::move(series);
  j["runs"].push_back(std::move(base));
  for (size_t i = 0; i < result.variants.size(); ++i)
    j["runs"].push_back(run_json(result.variants[i], s.compare[i].name));
  return j.dump(2) + "\n";
}

std::string serving_csv(const ScenarioResult& result) {
  std::string out =
      "variant,requests,duration_s,requests_per_s,output_tokens_per_s,total_tokens_per_s,goodput,ttft_p50_ms,"
      "ttft_p99_ms,tpot_p50_ms,tpot_p99_ms,itl_p50_ms,e2e_p50_ms,e2e_p99_ms,preemptions,usd_per_m_input,"
      "usd_per_m_output\n";
  auto row = [&](const ScenarioResult& r, std::string_view name) {
    const ServingMetrics& m = r.serving->metrics;
    const auto c = token_cost(r);
    out += fmt::format(
        "{},{},{:.6f},{:.6f},{:.3f},{:.3f},{:.6f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{},{},{}\n", name,
        m.requests, m.duration.seconds(), m.requests_per_s, m.output_tokens_per_s, m.total_tokens_per_s, m.goodput,
        ms(m.ttft.p50), ms(m.ttft.p99), ms(m.tpot.p50), ms(m.tpot.p99), ms(m.itl.p50), ms(m.e2e.p50), ms(m.e2e.p99),
        m.preemptions, c ? fmt::format("{:.6f}", c->input) : "", c ? fmt::format("{:.6f}", c->output) : "");
  };
  row(result, result.scenario.baseline);
  for (size_t i = 0; i < result.variants.size(); ++i) row(result.variants[i], result.scenario.compare[i].name);
  return out;
}

std::string serving_requests_csv(const ScenarioResult& result) {
  std::string out = "id,arrival_s,prompt_tokens,output_tokens,ttft_ms,tpot_ms,e2e_ms,preemptions\n";
  const std::vector<Sequence>& seqs = result.serving->run.sequences;
  for (size_t i = 0; i < seqs.size(); ++i) {
    const Sequence& s = seqs[i];
    const double tpot = s.output > 1 ? ms(s.finish - s.first_token) / (s.output - 1) : 0.0;
    out += fmt::format("{},{:.6f},{},{},{:.4f},{:.4f},{:.4f},{}\n", i, s.arrival.seconds(), s.prompt, s.output,
                       ms(s.first_token - s.arrival), tpot, ms(s.finish - s.arrival), s.preemptions);
  }
  return out;
}

std::string serving_trace(const ScenarioResult& result) {
  Json events = Json::array();
  events.push_back(Json{{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", "serving"}}}});
  for (const ServingBin& b : serving_series(result.serving->run, kSeriesBins * 5)) {
    const double ts = b.start.microseconds();
    events.push_back(
        Json{{"name", "batch (sequences)"}, {"ph", "C"}, {"pid", 0}, {"ts", ts}, {"args", {{"batch", b.batch}}}});
    events.push_back(Json{{"name", "KV cache used"}, {"ph", "C"}, {"pid", 0}, {"ts", ts}, {"args", {{"kv", b.kv}}}});
    events.push_back(
        Json{{"name", "queued requests"}, {"ph", "C"}, {"pid", 0}, {"ts", ts}, {"args", {{"waiting", b.waiting}}}});
    events.push_back(
        Json{{"name", "tokens/s"}, {"ph", "C"}, {"pid", 0}, {"ts", ts}, {"args", {{"tokens_per_s", b.tokens_per_s}}}});
  }
  return Json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}}.dump() + "\n";
}

}  // namespace weft
