// Disaggregated serving (workloads/serving/kv_transport.h, serving_sim.h): how the KV heads are split
// between the GPUs of a prefill and a decode replica, a cache's crossing of the fabric against the
// NIC's rate, the layerwise push hiding behind the prefill, and a whole run's bookkeeping.
#include <catch2/catch.hpp>

#include "sim/simulation.h"
#include "tests/serving_runs.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/clusters.h"
#include "topologies/systems.h"
#include "workloads/serving/serving.h"

using namespace weft;
using weft::test::poisson_requests;
using weft::test::serve;

namespace {

constexpr double kLlama8bKvBytesPerToken = 2.0 * 32 * 8 * 128 * 2;  // K and V, layers, KV heads, head_dim, bf16

std::vector<uint32_t> gpus(uint32_t first, uint32_t count) {
  std::vector<uint32_t> out(count);
  for (uint32_t i = 0; i < count; ++i) out[i] = first + i;
  return out;
}

struct Sent {
  uint64_t transfers = 0;
  double bytes = 0;
  Time done;
};

// One cache of `tokens` tokens from a prefill replica on GPUs `from` to a decode replica on `to`, alone.
Sent send_alone(const Topology& topology, const std::vector<uint32_t>& from, const std::vector<uint32_t>& to,
                uint32_t tokens, uint32_t from_pp = 1, uint32_t to_pp = 1) {
  Simulation sim(topology, SimulationSetup{"flow", 1, {}});
  KvTransport kv(sim.fabric(), topology, model("llama-3-8b"), Precision::bf16, {from}, {to}, from_pp, to_pp);
  Sent out;
  kv.send(0, 0, tokens, 1, Time(), [&] { out.done = sim.engine().now(); });
  sim.run();
  out.transfers = kv.transfers();
  out.bytes = kv.bytes();
  return out;
}

ServingSpec disaggregated(KvTransferMode mode) {
  ServingSpec spec;
  spec.model = model("llama-3-8b");
  spec.disaggregated = {.prefill_tp = 1, .prefill_replicas = 8, .decode_tp = 1, .decode_replicas = 8, .transfer = mode};
  return spec;
}

}  // namespace

TEST_CASE("a KV cache goes to each decode GPU from the prefill GPUs that hold its heads", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 2, {}, "--set");
  const Topology topology = build_cluster(cluster);
  const double whole = 1000 * kLlama8bKvBytesPerToken;
  // tp 1 -> 2, 2 -> 1 and 2 -> 8: every head once, in one transfer per pair of GPUs that share heads.
  const Sent one_to_two = send_alone(topology, {0}, {8, 9}, 1000);
  CHECK(one_to_two.transfers == 2);
  CHECK(one_to_two.bytes == Approx(whole));
  const Sent two_to_one = send_alone(topology, {0, 1}, {8}, 1000);
  CHECK(two_to_one.transfers == 2);
  CHECK(two_to_one.bytes == Approx(whole));
  const Sent two_to_eight = send_alone(topology, {0, 1}, gpus(8, 8), 1000);
  CHECK(two_to_eight.transfers == 8);  // each decode GPU holds one of the 8 KV heads, from one prefill GPU
  CHECK(two_to_eight.bytes == Approx(whole));
  // Across hosts the cache is bound by the NIC (ConnectX-7, 400 Gb/s NDR): no faster, and within 10 %
  // (packet headers, the path's latency).
  const double nic_seconds = whole * 8 / 400e9;
  CHECK(one_to_two.done.seconds() >= nic_seconds / 2);  // two GPUs, two rails: both NICs of the pair
  CHECK(two_to_one.done.seconds() >= nic_seconds);      // one decode GPU: its one NIC
  CHECK(two_to_one.done.seconds() < 1.1 * nic_seconds);
  // Within a host, NVLink (450 GB/s per direction) is an order of magnitude faster.
  CHECK(send_alone(topology, {0}, {1}, 1000).done.seconds() < nic_seconds / 5);
}

TEST_CASE("disaggregated: the cache crosses the fabric after the prefill, or layer by layer behind it", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 2, {}, "--set");
  const Topology topology = build_cluster(cluster);
  // One request: prefill replica 0 on host 0, decode replica 8 on host 1 (over InfiniBand).
  const std::vector<Request> one{{.id = 0, .arrival = Time(), .prompt = 2048, .output = 64}};
  const ServingOutcome pulled = serve(topology, cluster, disaggregated(KvTransferMode::after_prefill), one);
  const ServingOutcome pushed = serve(topology, cluster, disaggregated(KvTransferMode::layerwise), one);
  ServingSpec mixed;
  mixed.model = model("llama-3-8b");
  const ServingOutcome colocated = serve(topology, cluster, mixed, one);

  const double nic_seconds = 2048 * kLlama8bKvBytesPerToken * 8 / 400e9;
  REQUIRE(pulled.metrics.kv_wait.count == 1);
  CHECK(pulled.run.kv_bytes == Approx(2048 * kLlama8bKvBytesPerToken));
  CHECK(pulled.metrics.kv_wait.max.seconds() >= nic_seconds);
  CHECK(pulled.metrics.kv_wait.max.seconds() < 1.1 * nic_seconds);
  // The push starts after the first of 32 layers and keeps pace with the prefill (tens of ms for 2048
  // tokens on an H100), far below the NIC's rate: little is left when the prompt is done.
  CHECK(pushed.metrics.kv_wait.max.seconds() < pulled.metrics.kv_wait.max.seconds() * 0.25);
  // The first token comes from the prefill replica as it would alone; the wait for the cache lands on
  // the second token.
  CHECK(pulled.metrics.ttft.max == colocated.metrics.ttft.max);
  CHECK(pulled.metrics.e2e.max > colocated.metrics.e2e.max);
  CHECK((pulled.metrics.e2e.max - pulled.metrics.kv_wait.max).seconds() ==
        Approx(colocated.metrics.e2e.max.seconds()).epsilon(0.001));
  CHECK(pulled.run.sequences[0].generated == 64);
}

TEST_CASE("disaggregated: a loaded run finishes every request, deterministically", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 2, {}, "--set");
  const Topology topology = build_cluster(cluster);
  const std::vector<Request> requests = poisson_requests(40, 400, {LengthKind::lognormal, 1500, 800, 1, 6000},
                                                         {LengthKind::lognormal, 150, 100, 1, 1000}, 3);
  ServingSpec spec = disaggregated(KvTransferMode::after_prefill);
  spec.disaggregated = {.prefill_tp = 2, .prefill_replicas = 2, .decode_tp = 4, .decode_replicas = 2};
  const ServingOutcome a = serve(topology, cluster, spec, requests), b = serve(topology, cluster, spec, requests);
  uint64_t outputs = 0, handed_off = 0;
  for (const Request& r : requests) {
    outputs += r.output;
    handed_off += r.output > 1 ? 1 : 0;
  }
  CHECK(a.metrics.output_tokens == outputs);
  CHECK(a.metrics.kv_wait.count == handed_off);
  CHECK(a.run.replicas == 4);
  CHECK(a.pool_kv.size() == 2);
  CHECK(a.pool_kv[0].blocks < a.pool_kv[1].blocks);  // tp 2 holds more weights per GPU than tp 4
  CHECK(a.metrics.e2e.p99 == b.metrics.e2e.p99);
  CHECK(a.run.kv_transfers == b.run.kv_transfers);
  // Prefill replicas run prompts only, decode replicas decodes only (no preemption at this load).
  REQUIRE(a.metrics.preemptions == 0);
  for (const IterationSample& it : a.run.iterations) {
    if (it.replica < 2) CHECK(it.prefill_tokens == it.tokens);
    if (it.replica >= 2) CHECK(it.prefill_tokens == 0);
  }
}

TEST_CASE("disaggregated: a decode pool short of KV blocks preempts and still finishes every request", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 1, {}, "--set");
  const Topology topology = build_cluster(cluster);
  const std::vector<Request> requests = poisson_requests(60, 300, {LengthKind::lognormal, 2000, 800, 100, 6000},
                                                         {LengthKind::lognormal, 400, 200, 2, 1500}, 7);
  const uint64_t outputs = weft::test::output_tokens(requests);
  for (KvTransferMode mode : {KvTransferMode::after_prefill, KvTransferMode::layerwise}) {
    ServingSpec spec = disaggregated(mode);
    spec.disaggregated = {
        .prefill_tp = 1, .prefill_replicas = 4, .decode_tp = 1, .decode_replicas = 1, .transfer = mode};
    spec.limits.gpu_memory_utilization = 0.3;  // about 6 GB of KV cache: some 45,000 tokens per replica
    const ServingOutcome o = serve(topology, cluster, spec, requests);
    CAPTURE(to_string(mode));
    CHECK(o.metrics.preemptions > 0);
    CHECK(o.metrics.output_tokens == outputs);
    for (const Sequence& s : o.run.sequences) REQUIRE(s.finish >= s.first_token);
  }
}

TEST_CASE("pipelined pools: each layer's KV goes from the stage that computed it to the stage that holds it",
          "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 2, {}, "--set");
  const Topology topology = build_cluster(cluster);
  const double whole = 1000 * kLlama8bKvBytesPerToken;
  // Prefill pp 2 (tp 1) to decode tp 2: each stage's 16 layers to both decode GPUs, half the heads each.
  const Sent stages_to_tp = send_alone(topology, {0, 1}, {8, 9}, 1000, 2, 1);
  CHECK(stages_to_tp.transfers == 4);
  CHECK(stages_to_tp.bytes == Approx(whole));
  // pp 2 to pp 2, the same split: stage to stage only. pp 2 to pp 4: each decode stage from one prefill
  // stage (8 of 32 layers each; 16 | 16 against 8 | 8 | 8 | 8).
  CHECK(send_alone(topology, {0, 1}, {8, 9}, 1000, 2, 2).transfers == 2);
  const Sent two_to_four = send_alone(topology, {0, 1}, gpus(8, 4), 1000, 2, 4);
  CHECK(two_to_four.transfers == 4);
  CHECK(two_to_four.bytes == Approx(whole));
  // A run with pipelined pools hands every sequence off and finishes it.
  ServingSpec spec = disaggregated(KvTransferMode::after_prefill);
  spec.disaggregated = {.prefill_tp = 2,
                        .prefill_replicas = 2,
                        .decode_tp = 2,
                        .decode_replicas = 2,
                        .prefill_pp = 2,
                        .decode_pp = 2,
                        .transfer = KvTransferMode::after_prefill};
  const std::vector<Request> requests = poisson_requests(10, 40, {LengthKind::fixed, 500}, {LengthKind::fixed, 16}, 9);
  const ServingOutcome o = serve(topology, cluster, spec, requests);
  for (const Sequence& q : o.run.sequences) CHECK(q.generated == 16);
  CHECK(o.run.kv_bytes == Approx(40 * 500 * kLlama8bKvBytesPerToken));
  CHECK(o.run.kv_transfers == 160);  // 2 stages x 2 tensor-parallel ranks, each to its counterpart
  CHECK(o.run.stage_transfers > 0);
  // A layer-by-layer push from a pipelined prefill is refused; parallel.pp with pools too.
  spec.disaggregated.transfer = KvTransferMode::layerwise;
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  CHECK_THROWS_WITH(check(spec, 16, h100), Catch::Contains("set kv_transfer: after_prefill"));
  spec.disaggregated.transfer = KvTransferMode::after_prefill;
  spec.disaggregated.decode_pp = 40;
  CHECK_THROWS_WITH(check(spec, 1024, h100), Catch::Contains("disaggregated.decode_pp: 40 stages"));
}
