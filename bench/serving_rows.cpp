#include "bench/serving_rows.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "workloads/model.h"

namespace weft::bench {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::optional<double> number(const Row& row, const std::string& column) {
  const auto it = row.find(column);
  if (it == row.end() || it->second.empty()) return std::nullopt;
  try {
    return std::stod(it->second);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string text(const Row& row, const std::string& column) {
  const auto it = row.find(column);
  return it == row.end() ? "" : it->second;
}

// The GPU as a catalogue system: DGX/HGX boxes for the SXM parts, the PCIe box with the card swapped in
// for the PCIe-only cards (data-centre cards: x16 slots, peer to peer on).
bool describe_gpu(const std::string& gpu, ServingCase& c) {
  const std::string g = lower(gpu);
  if (g.find("h200") != std::string::npos) {
    c.preset = "hgx-h200";
  } else if (g.find("h100") != std::string::npos) {
    c.preset = "dgx-h100";
  } else if (g.find("a100") != std::string::npos) {
    c.preset = "dgx-a100";
  } else if (g.find("l40s") != std::string::npos || g.find("a30") != std::string::npos) {
    c.preset = "pcie-4090x8";
    c.sets = {g.find("l40s") != std::string::npos ? "node.gpu=l40s" : "node.gpu=a30", "node.pcie_lanes=16",
              "node.p2p=true"};
  } else if (g.find("4090") != std::string::npos) {
    c.preset = "pcie-4090x8";
  } else {
    return false;
  }
  if (g.find("330 w") != std::string::npos) c.assumptions.push_back("the 330 W power cap is not modelled");
  return true;
}

std::optional<std::string> catalogue_model(const std::string& name) {
  const std::string m = lower(name);
  const bool eight = m.find("8b") != std::string::npos, seventy = m.find("70b") != std::string::npos;
  if (m.find("llama-3") != std::string::npos && eight) return "llama-3-8b";
  if (m.find("llama-3") != std::string::npos && seventy) return "llama-3-70b";
  if ((m.find("llama-2") != std::string::npos || m.find("llama-style") != std::string::npos) &&
      m.find("7b") != std::string::npos && !seventy) {
    return "llama-2-7b";
  }
  if ((m.find("llama-2") != std::string::npos || m.find("llama-70b") != std::string::npos) && seventy) {
    return "llama-2-70b";
  }
  if (m.find("llama-13b") != std::string::npos) return "llama-2-13b";
  return std::nullopt;
}

void describe_formats(const Row& row, ServingCase& c) {
  const std::string w = lower(text(row, "weight_precision"));
  c.spec.weights = w == "fp8"    ? WeightFormat::fp8
                   : w == "int4" ? WeightFormat::int4
                   : w == "int8" ? WeightFormat::int8
                                 : WeightFormat::bf16;
  if (w.empty()) c.assumptions.push_back("precision not stated: bf16");
  if (lower(text(row, "kv_precision")) == "fp8") c.spec.kv = Precision::fp8;
}

// Lengths: the fixed ones the row gives; where a latency row leaves one out, what its benchmark uses.
bool describe_lengths(const Row& row, ServingCase& c) {
  const std::string dist = lower(text(row, "length_distribution"));
  if (!dist.empty() && dist.rfind("fixed", 0) != 0 && dist.rfind("random", 0) != 0) {
    c.skip = "lengths drawn from a dataset (" + text(row, "length_distribution") + "), not given";
    return false;
  }
  std::optional<double> prompt = number(row, "prompt_tokens"), output = number(row, "output_tokens");
  if (!prompt) {
    prompt = 5;
    c.assumptions.push_back("prompt length not stated: 5 tokens (gpt-fast's)");
  }
  if (!output) {
    output = 128;
    c.assumptions.push_back("output length not stated: 128 tokens");
  }
  c.stream.prompt = {LengthKind::fixed, *prompt, 0, 1, 0};
  c.stream.output = {LengthKind::fixed, *output, 0, 1, 0};
  return true;
}

bool describe_load(const Row& row, ServingCase& c) {
  const std::string scenario = text(row, "scenario");
  const double requests = number(row, "num_requests").value_or(0);
  const double concurrency = number(row, "max_concurrency").value_or(0);
  if (scenario == "offline") {
    if (requests <= 0) return (c.skip = "offline run without a request count", false);
    c.stream.arrivals.kind = ArrivalKind::all_at_once;
    c.stream.count = static_cast<uint32_t>(requests);
    // An offline engine batches far more than a server's 256 sequences.
    c.spec.limits.max_seqs = 1024;
    c.spec.limits.max_batched_tokens = 16384;
    c.assumptions.push_back("offline batch limits: vLLM V1's LLM defaults (max_num_seqs 1024, 16384 tokens)");
  } else if (scenario == "poisson") {
    if (requests <= 0) return (c.skip = "Poisson run without a request count", false);
    c.stream.arrivals = {ArrivalKind::poisson, number(row, "request_rate").value_or(0), 1};
    c.stream.count = static_cast<uint32_t>(requests);
  } else if (scenario == "batch-latency" || scenario == "concurrency") {
    c.stream.arrivals.kind = ArrivalKind::all_at_once;
    c.stream.count = static_cast<uint32_t>(std::max(1.0, scenario == "concurrency" ? requests : concurrency));
    if (scenario == "concurrency") c.spec.max_concurrency = static_cast<uint32_t>(concurrency);
  } else {
    return (c.skip = "scenario '" + scenario + "' not described", false);
  }
  return true;
}

// Latency rows of one batch of identical requests: every request has the batch's latency, so the
// mean the source gives (in its notes) is also the median.
void describe_measured(const Row& row, ServingCase& c) {
  ServingMeasured& m = c.measured;
  m.output_tokens_per_s = number(row, "throughput_output_tok_s");
  m.total_tokens_per_s = number(row, "throughput_total_tok_s");
  m.requests_per_s = number(row, "throughput_req_s");
  m.ttft_p50_ms = number(row, "ttft_p50_ms");
  m.tpot_p50_ms = number(row, "tpot_p50_ms");
  if (!m.tpot_p50_ms) m.tpot_p50_ms = number(row, "itl_p50_ms");
  m.e2e_p50_ms = number(row, "e2e_p50_ms");
  std::smatch match;
  const std::string notes = text(row, "notes");
  if (!m.e2e_p50_ms && text(row, "scenario") == "batch-latency" &&
      std::regex_search(notes, match, std::regex("mean_e2e_ms=([0-9.]+)"))) {
    m.e2e_p50_ms = std::stod(match[1]);
  }
}

}  // namespace

ServingCase describe_serving_row(const Row& row) {
  ServingCase c;
  c.id = text(row, "id");
  c.framework = text(row, "framework");
  if (!describe_gpu(text(row, "gpu"), c)) return (c.skip = "GPU '" + text(row, "gpu") + "' not in the catalogue", c);
  const std::optional<std::string> name = catalogue_model(text(row, "model"));
  if (!name) return (c.skip = "model '" + text(row, "model") + "' not in the catalogue", c);
  c.spec.model = model(*name);
  describe_formats(row, c);
  c.spec.tp = static_cast<uint32_t>(number(row, "tp").value_or(1));
  c.spec.replicas = static_cast<uint32_t>(number(row, "replicas").value_or(1));
  if (lower(c.framework).find("eager") != std::string::npos) c.spec.limits.cuda_graphs = false;
  if (!describe_lengths(row, c) || !describe_load(row, c)) return c;
  describe_measured(row, c);
  const ServingMeasured& m = c.measured;
  if (!m.output_tokens_per_s && !m.total_tokens_per_s && !m.requests_per_s && !m.ttft_p50_ms && !m.tpot_p50_ms &&
      !m.e2e_p50_ms) {
    c.skip = "no throughput and no median latency (means only, in the notes)";
  }
  return c;
}

}  // namespace weft::bench
