#include <catch2/catch.hpp>

#include "workloads/gemm_waves.h"

using namespace weft;

TEST_CASE("gemm waves: the guide's A100 example fills 98 of 108 SMs", "[gemm_waves]") {
  // 1792 x 1792 with 256 x 128 tiles: 7 x 14 = 98 tiles in one wave of 108 SMs; 128 x 128 tiles
  // give 196 in two waves of half the area: the same slots.
  CHECK(wave_efficiency(1792, 1792, 108) == Approx(98.0 / 108.0).epsilon(1e-12));
}

TEST_CASE("gemm waves: full waves cost nothing, one tile more costs a wave", "[gemm_waves]") {
  // 3072 x 1408 is 12 x 11 tiles of 256 x 128: one full wave of 132 SMs.
  CHECK(wave_efficiency(3072, 1408, 132) == 1.0);
  // One more column of tiles: 144 large tiles need two waves (264 slots); 288 tiles of 128 x 128
  // need three waves of 132 at half the area (198 large slots), the better choice.
  CHECK(wave_efficiency(3072, 1536, 132) == Approx(288.0 / 396.0).epsilon(1e-12));
  // A ragged edge: 3,073 rows need a 13th row of 256-row tiles or a 25th of 128-row tiles.
  // 25 x 11 = 275 tiles of 128 x 128 in 3 waves (396 / 2 = 198 large slots) beat 13 x 11 = 143
  // large ones in 2 (264).
  CHECK(wave_efficiency(3073, 1408, 132) == Approx(3073.0 * 1408 / (396 * 128.0 * 128)).epsilon(1e-12));
}

TEST_CASE("gemm waves: small GEMMs and unknown SM counts are left alone", "[gemm_waves]") {
  CHECK(wave_efficiency(64, 4096, 132) == 1.0);
  CHECK(wave_efficiency(4096, 127, 132) == 1.0);
  CHECK(wave_efficiency(4097, 4097, 0) == 1.0);
  CHECK(full_wave_flops(1792, 1792, 1000, 108) == Approx(2.0 * 1792 * 1792 * 1000 * 108 / 98).epsilon(1e-12));
}

TEST_CASE("gemm waves: a layer's GEMM shapes add up to its FLOPs", "[gemm_waves]") {
  // Llama 3 8B (GQA, a gated MLP), tp 4, cp 2: with the SM count unknown, each pass of each piece
  // costs exactly the forward FLOPs the model counts (so the shapes are the right ones).
  const ModelConfig& m = model("llama-3-8b");
  const LayerShape shape{.micro_batch = 2, .seq = 8192, .tp = 4, .cp = 2};
  const LayerFlops plain = layer_forward_flops(m, shape);
  const LayerGemmCost cost = layer_gemm_cost(m, shape, GemmDevice{});
  for (const LayerFlops* f : {&cost.forward, &cost.input_grad, &cost.weight_grad}) {
    CHECK(f->qkv == Approx(plain.qkv).epsilon(1e-12));
    CHECK(f->out_proj == Approx(plain.out_proj).epsilon(1e-12));
    CHECK(f->mlp == Approx(plain.mlp).epsilon(1e-12));
    CHECK(f->attention == plain.attention);
  }
  const GemmPasses logits = logits_gemm_cost(m, shape, GemmDevice{});
  CHECK(logits.forward == Approx(logits_forward_flops(m, shape)).epsilon(1e-12));
  CHECK(logits.input_grad == Approx(logits.forward).epsilon(1e-12));
}

TEST_CASE("gemm waves: each pass quantises its own output shape", "[gemm_waves]") {
  // 4,096 tokens, h 5120 (MHA), tp 2: QKV has 5120 inputs and 3 x 5120 / 2 = 7680 outputs; 132 SMs.
  ModelConfig m{.name = "t", .layers = 1, .hidden = 5120, .heads = 40, .kv_heads = 40, .ffn = 13824, .vocab = 32000};
  const LayerShape shape{.micro_batch = 1, .seq = 4096, .tp = 2};
  const LayerFlops plain = layer_forward_flops(m, shape);
  const LayerGemmCost cost = layer_gemm_cost(m, shape, GemmDevice{.sms = 132});
  // Forward, 4096 x 7680: 960 large tiles in 8 waves (1056 slots), or 1920 of 128 x 128 in 15
  // (1980 at half the area = 990): 960 / 990.
  CHECK(cost.forward.qkv == Approx(plain.qkv * 990 / 960).epsilon(1e-12));
  // Input gradient, 4096 x 5120: 640 large tiles in 5 waves (660), or 1280 small in 10 (660 too).
  CHECK(cost.input_grad.qkv == Approx(plain.qkv * 660 / 640).epsilon(1e-12));
  // Weight gradient, 5120 x 7680: 1200 large in 10 waves (1320), or 2400 small in 19 (1254).
  CHECK(cost.weight_grad.qkv == Approx(plain.qkv * 1254 / 1200).epsilon(1e-12));
}

TEST_CASE("gemm waves: a grouped GEMM's experts share their waves", "[gemm_waves]") {
  // One 640 x 4096 output: 80 tiles of 128 x 256 in one wave of 132. Three in one kernel: 240 tiles
  // in two waves (264 slots), where three kernels would take three waves.
  CHECK(wave_efficiency(640, 4096, 132) == Approx(80.0 / 132).epsilon(1e-12));
  CHECK(wave_efficiency(640, 4096, 132, 3) == Approx(240.0 / 264).epsilon(1e-12));
  CHECK(full_wave_flops(640, 4096, 1024, 132, 3) == Approx(3 * 2.0 * 640 * 4096 * 1024 * 264 / 240).epsilon(1e-12));
}

TEST_CASE("gemm waves: the experts' rows are their capacity, all of them the model's expert FLOPs", "[gemm_waves]") {
  // Mixtral 8x7B (8 experts, top 2), ep 2: 4 experts per rank, each padded to 4096 x 2 x 1.25 x 2 / 8
  // = 2560 rows.
  const ModelConfig& m = model("mixtral-8x7b");
  const LayerShape shape{.micro_batch = 1, .seq = 4096};
  const GemmPasses plain = expert_gemm_cost(m, shape, 2, 1.25, GemmDevice{});
  CHECK(plain.forward == Approx(layer_forward_flops(m, shape).mlp * 1.25).epsilon(1e-12));
  CHECK(plain.weight_grad == Approx(plain.forward).epsilon(1e-12));
  const GemmPasses waves = expert_gemm_cost(m, shape, 2, 1.25, GemmDevice{.sms = 132});
  CHECK(waves.forward ==
        Approx(full_wave_flops(2560, 28672, 4096, 132, 4) + full_wave_flops(2560, 4096, 14336, 132, 4)).epsilon(1e-12));
  CHECK(waves.weight_grad ==
        Approx(full_wave_flops(4096, 28672, 2560, 132, 4) + full_wave_flops(14336, 4096, 2560, 132, 4)).epsilon(1e-12));
}

TEST_CASE("gemm waves: a GEMM's output costs its unhidden write on top of its FLOPs", "[gemm_waves]") {
  // H100 SXM: 3.35 TB/s of HBM3, 132 SMs; bf16 GEMMs at 0.803 x 989 TFLOP/s. Writing one bf16 output
  // at 3.35 TB/s takes 2 / 3.35e12 s = 0.597 ps; 0.56 of it stays unhidden: 0.334 ps, which the
  // GEMM rate turns into 0.334e-12 x 794.2e12 = 265.5 FLOPs of work per output.
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  REQUIRE(h100.memory_bandwidth == Approx(3.35e12));
  const double rate = 0.803 * h100.bf16_flops;
  const GemmDevice device = gemm_device(h100, rate, 2);
  CHECK(device.sms == 132);
  CHECK(unhidden_write_seconds(h100, 2) == Approx(0.56 * 2 / 3.35e12).epsilon(1e-12));
  CHECK(device.flops_per_output == Approx(0.56 * 2 / 3.35e12 * rate).epsilon(1e-12));
  // 4096 x 4096 x 4096 fills its waves (512 tiles of 128 x 256 on 132 SMs: 3.88 waves; 128 x 128
  // tiles: 1024 in 8 waves, 1056 slots at half the area = 528 > 512): 2 m n k / (512/528) plus
  // 16.8 M outputs' write.
  const double outputs = 4096.0 * 4096;
  CHECK(gemm_cost(4096, 4096, 4096, device) ==
        Approx(full_wave_flops(4096, 4096, 4096, 132) + outputs * device.flops_per_output).epsilon(1e-12));
  // The write is the same time whatever k: a share 4x larger at k = 1024 than at k = 4096 (its
  // time over the FLOPs' time: 265.5 / (2 k x 528/512), 3.2 % at k = 4096).
  const double share_4096 = outputs * device.flops_per_output / full_wave_flops(4096, 4096, 4096, 132);
  const double share_1024 = outputs * device.flops_per_output / full_wave_flops(4096, 4096, 1024, 132);
  CHECK(share_4096 == Approx(0.0314).epsilon(0.01));
  CHECK(share_1024 == Approx(4 * share_4096).epsilon(1e-9));
  // A GPU without a known HBM bandwidth leaves the write out.
  catalogue::GpuSpec unknown = h100;
  unknown.memory_bandwidth = 0;
  CHECK(gemm_device(unknown, rate, 2).flops_per_output == 0);
}

TEST_CASE("gemm waves: a weight gradient's outputs are the gradient buffer, read and written", "[gemm_waves]") {
  // One linear layer of 4096 x 4096 over 8192 tokens, 132 SMs: the forward and input-gradient GEMMs
  // (8192 x 4096 outputs) pay flops_per_output per output, the weight gradient (4096 x 4096) pays
  // flops_per_gradient: 4 + 4 bytes of fp32 main_grad against 2 written in bf16, 4x the cost.
  ModelConfig m{.name = "t", .layers = 1, .hidden = 4096, .heads = 32, .kv_heads = 32, .ffn = 4096, .vocab = 32000};
  const LayerShape shape{.micro_batch = 1, .seq = 8192};
  const GemmDevice waves{.sms = 132};
  const GemmDevice device{.sms = 132, .flops_per_output = 100, .flops_per_gradient = 400};
  const LayerGemmCost plain = layer_gemm_cost(m, shape, waves), costed = layer_gemm_cost(m, shape, device);
  CHECK(costed.forward.out_proj == Approx(plain.forward.out_proj + 100 * 8192.0 * 4096).epsilon(1e-12));
  CHECK(costed.input_grad.out_proj == Approx(plain.input_grad.out_proj + 100 * 8192.0 * 4096).epsilon(1e-12));
  CHECK(costed.weight_grad.out_proj == Approx(plain.weight_grad.out_proj + 400 * 4096.0 * 4096).epsilon(1e-12));
}
