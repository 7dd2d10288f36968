#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "scenarios/compute_profile_file.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/compute_model.h"

using namespace weft;

namespace {

const catalogue::GpuSpec& h100() { return catalogue::gpu("h100-sxm"); }
const catalogue::GpuSpec& a100() { return catalogue::gpu("a100-80gb"); }

ComputeProfile profile(const std::string& text) { return parse_compute_profile(text, "<test>"); }

}  // namespace

TEST_CASE("a large bf16 GEMM on H100 runs at peak x GEMM efficiency", "[compute_model][validation]") {
  // C = A B with n = 8192: 2 n^3 FLOPs; it reads A and B and writes C, 3 n^2 x 2 bytes. Arithmetic
  // intensity n/3 = 2731 FLOP/B, far above H100's ridge (~259 FLOP/B at these efficiencies).
  const double n = 8192, flops = 2 * n * n * n, bytes = 3 * n * n * 2;
  const ComputeProfile defaults = default_compute_profile();
  const Time t = op_time(h100(), Precision::bf16, OpClass::gemm, flops, bytes, defaults);
  // 989.5 TFLOP/s dense (catalogue) x 0.803 (MAMF table, H100 SXM bf16): 1.3838 ms.
  CHECK(t.seconds() == Approx(flops / (989.5e12 * 0.803)).epsilon(1e-9));
  CHECK(t.seconds() == Approx(1.3838e-3).epsilon(1e-3));
  // fp8 doubles the peak but runs at 0.709 of it.
  const Time t8 = op_time(h100(), Precision::fp8, OpClass::gemm, flops, bytes / 2, defaults);
  CHECK(t8.seconds() == Approx(flops / (1979e12 * 0.709)).epsilon(1e-9));
  // Attention stays in bf16 under fp8 training: the bf16 peak x the attention efficiency (0.60).
  const Time a8 = op_time(h100(), Precision::fp8, OpClass::attention, flops, 0, defaults);
  CHECK(a8 == op_time(h100(), Precision::bf16, OpClass::attention, flops, 0, defaults));
  CHECK(a8.seconds() == Approx(flops / (989.5e12 * 0.60)).epsilon(1e-9));
}

TEST_CASE("ops switch from memory- to compute-bound at the ridge point", "[compute_model][validation]") {
  const Efficiencies ideal{.gemm = 1, .gemm_fp8 = 1, .attention = 1, .memory = 1};
  // A100 80 GB: 312e12 FLOP/s over 2.039e12 B/s = 153.0 FLOP/B.
  const double ridge = ridge_point(a100(), Precision::bf16, OpClass::gemm, ideal);
  CHECK(ridge == Approx(312e12 / 2039e9));
  const double bytes = 1e9;
  const auto time = [&](double flops) { return op_time(a100(), Precision::bf16, OpClass::gemm, flops, bytes, ideal); };
  // Below the ridge the bytes decide: 1 GB at 2.039 TB/s = 490.4 us whatever the FLOPs.
  CHECK(time(0.5 * ridge * bytes) == time(0.25 * ridge * bytes));
  CHECK(time(0.5 * ridge * bytes).seconds() == Approx(bytes / 2039e9).margin(1e-12));  // 1 ps rounding
  // At the ridge both roofs meet; above it the FLOPs decide and time grows with them.
  CHECK(time(ridge * bytes).seconds() == Approx(bytes / 2039e9).margin(1e-12));
  CHECK(time(4 * ridge * bytes).seconds() == Approx(4 * ridge * bytes / 312e12).epsilon(1e-9));
  CHECK(time(4 * ridge * bytes) > time(2 * ridge * bytes));
}

TEST_CASE("memory-bound ops are costed by their bytes over HBM bandwidth", "[compute_model][validation]") {
  const ComputeProfile defaults = default_compute_profile();
  // A layernorm over 4 x 2048 x 12288 bf16 activations: read + write = 402.7 MB, ~5 FLOPs per element.
  const double elements = 4.0 * 2048 * 12288, bytes = 2 * 2 * elements;
  const Time t = op_time(h100(), Precision::bf16, OpClass::memory_bound, 5 * elements, bytes, defaults);
  // 3.35 TB/s x 0.916 (STREAM triad ratio): 131.2 us.
  CHECK(t.seconds() == Approx(bytes / (3.35e12 * 0.916)).margin(1e-12));
  // Nothing to do takes no time; picoseconds round up.
  CHECK(op_time(h100(), Precision::bf16, OpClass::gemm, 0, 0, defaults) == Time());
  CHECK(op_time(h100(), Precision::bf16, OpClass::memory_bound, 0, 1, defaults) == Time::ps(1));
}

TEST_CASE("a precision the GPU lacks names the GPU and what it has", "[compute_model]") {
  const ComputeProfile defaults = default_compute_profile();
  CHECK_THROWS_WITH(op_time(a100(), Precision::fp8, OpClass::gemm, 1e12, 0, defaults),
                    Catch::Contains("a100-80gb has no fp8") && Catch::Contains("fp32, tf32, bf16, fp16"));
  CHECK_THROWS_WITH(peak_flops(catalogue::gpu("v100"), Precision::tf32), Catch::Contains("v100 has no tf32"));
  CHECK(peak_flops(a100(), Precision::fp16) == 312e12);
  CHECK(parse_precision("BF16") == Precision::bf16);
  CHECK_THROWS_WITH(parse_precision("bf61"), Catch::Contains("did you mean 'bf16'"));
  CHECK(element_bytes(Precision::fp8) == 1);
}

TEST_CASE("the default profile cites a source for every catalogue GPU it tunes", "[compute_model]") {
  const ComputeProfile p = default_compute_profile();
  CHECK_FALSE(p.source.empty());
  for (const GpuEfficiencies& g : p.gpus) {
    CHECK_NOTHROW(catalogue::gpu(g.gpu));
    CHECK_FALSE(g.source.empty());
  }
  for (const catalogue::GpuSpec& gpu : catalogue::gpus()) {
    const Efficiencies e = p.resolve(gpu.name);
    for (double v : {e.gemm, e.gemm_fp8, e.attention, e.memory}) CHECK((v > 0 && v <= 1));
  }
  CHECK(p.resolve("a100-80gb").gemm == 0.869);
  CHECK(p.resolve("rtx-4090").gemm == 0.80);
}

TEST_CASE("a calibration profile overrides the defaults and changes op times", "[compute_model]") {
  const double flops = 1e15;
  const auto gemm_s = [&](const ComputeProfile& p, const catalogue::GpuSpec& g) {
    return op_time(g, Precision::bf16, OpClass::gemm, flops, 0, p).seconds();
  };
  const ComputeProfile defaults = default_compute_profile();
  // `efficiency` applies to every GPU, beating weft's per-GPU values: H100 0.803 -> 0.5.
  const ComputeProfile all = profile("source: my cluster\nefficiency:\n  gemm: 0.5\n");
  CHECK(gemm_s(all, h100()) == Approx(gemm_s(defaults, h100()) * 0.803 / 0.5).epsilon(1e-9));
  CHECK(all.resolve("h100-sxm").memory == defaults.resolve("h100-sxm").memory);
  CHECK_THAT(all.source, Catch::StartsWith("my cluster"));
  // A per-GPU entry beats `efficiency`; fractions may be written 3/4.
  const ComputeProfile both = profile("efficiency: {gemm: 0.5}\ngpus:\n  H100-SXM: {gemm: 3/4}\n");
  CHECK(both.resolve("h100-sxm").gemm == 0.75);
  CHECK(both.resolve("a100-80gb").gemm == 0.5);
  CHECK(gemm_s(both, h100()) == Approx(flops / (989.5e12 * 0.75)).epsilon(1e-9));
}

TEST_CASE("bad profile files name file, line, key and what was expected", "[compute_model]") {
  CHECK_THROWS_WITH(profile("efficiency:\n  gemm: 1.5\n"),
                    Catch::Contains("<test>:2:9") && Catch::Contains("gemm: expected a fraction in (0, 1]"));
  CHECK_THROWS_WITH(profile("efficiency:\n  gem: 0.5\n"), Catch::Contains("<test>:2:3: unknown key 'gem'"));
  CHECK_THROWS_WITH(profile("efficency:\n  gemm: 0.5\n"), Catch::Contains("<test>:1:1: unknown key 'efficency'"));
  CHECK_THROWS_WITH(profile("gpus:\n  h100-smx: {gemm: 0.5}\n"),
                    Catch::Contains("<test>:2:") && Catch::Contains("did you mean 'h100-sxm'"));
  CHECK_THROWS_WITH(profile("gpus:\n  h100-sxm: 0.5\n"), Catch::Contains("<test>:2:13: h100-sxm: expected a mapping"));
  CHECK_THROWS_WITH(profile("efficiency:\n  memory: fast\n"),
                    Catch::Contains("<test>:2:11: memory: expected a number"));
}

TEST_CASE("a profile loads from a file", "[compute_model]") {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "weft_test_compute_profile.yaml";
  {
    std::ofstream out(path);
    out << "source: nsys, 8x H100\ngpus:\n  h100-sxm:\n    attention: 0.7\n    memory: 1.2\n";
  }
  CHECK_THROWS_WITH(load_compute_profile(path.string()),
                    Catch::Contains(path.string() + ":5:13: memory: expected a fraction"));
  {
    std::ofstream out(path);
    out << "source: nsys, 8x H100\ngpus:\n  h100-sxm:\n    attention: 0.7\n";
  }
  CHECK(load_compute_profile(path.string()).resolve("h100-sxm").attention == 0.7);
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(load_compute_profile(path.string()), Catch::Contains("cannot open"));
}

TEST_CASE("the 2023 software stack runs attention as flash-attention 1 / 2 did; the rest is 2025's",
          "[compute_model]") {
  const ComputeProfile now = default_compute_profile();
  const ComputeProfile then = default_compute_profile(SoftwareStack::y2023);
  CHECK(now.software == SoftwareStack::y2025);
  CHECK(then.software == SoftwareStack::y2023);
  // FlashAttention 1 on Ampere: half of FlashAttention-2's 50 % (arXiv:2307.08691: "around 2x").
  CHECK(then.resolve("a100-80gb").attention == Approx(0.25));
  CHECK(now.resolve("a100-80gb").attention == Approx(0.50));
  // FlashAttention-2 on Hopper: 35 % of peak (arXiv:2407.08608).
  CHECK(then.resolve("h100-sxm").attention == Approx(0.35));
  CHECK(now.resolve("h100-sxm").attention == Approx(0.60));
  // Blackwell had no 2023 stack; GEMM and HBM efficiencies are the same in both.
  CHECK(then.resolve("b200").attention == now.resolve("b200").attention);
  CHECK(then.resolve("a100-80gb").gemm == now.resolve("a100-80gb").gemm);
  CHECK(then.resolve("h100-sxm").memory == now.resolve("h100-sxm").memory);
  // So a flash-attention op takes twice as long on an A100 under the 2023 stack.
  const double flops = 1e12;
  CHECK(op_time(a100(), Precision::bf16, OpClass::attention, flops, 0, then).seconds() ==
        Approx(2 * op_time(a100(), Precision::bf16, OpClass::attention, flops, 0, now).seconds()).epsilon(1e-9));
  CHECK(then.source.find("2307.08691") != std::string::npos);
}

TEST_CASE("software: in a profile file picks the base generation; a bad one is named", "[compute_model]") {
  const ComputeProfile p = profile("software: \"2023\"\nefficiency: {gemm: 0.7}\n");
  CHECK(p.software == SoftwareStack::y2023);
  CHECK(p.resolve("a100-80gb").attention == Approx(0.25));
  CHECK(p.resolve("a100-80gb").gemm == Approx(0.7));
  // The caller's base when the file is silent.
  CHECK(parse_compute_profile("source: x\n", "<test>", SoftwareStack::y2023).software == SoftwareStack::y2023);
  CHECK_THROWS_WITH(profile("software: 2019\n"),
                    Catch::Contains("<test>:1:") && Catch::Contains("2019") && Catch::Contains("2021, 2023, 2025"));
  CHECK(software_name(parse_software("2023")) == "2023");
  CHECK(software_name(parse_software("2021")) == "2021");
}

TEST_CASE("norm kernels: fused in 2025, PyTorch's eager backward in 2023, apex's 2020 kernels in 2021",
          "[compute_model]") {
  const Efficiencies now = default_compute_profile().resolve("a100-80gb");
  const Efficiencies eager = default_compute_profile(SoftwareStack::y2023).resolve("a100-80gb");
  const Efficiencies apex = default_compute_profile(SoftwareStack::y2021).resolve("a100-80gb");
  // apex#1037's fused kernels on GA100 over 0.86 x 1,555 GB/s: 1258.0 and 1163.4 GB/s.
  CHECK(now.norm == Approx(0.9407).epsilon(1e-3));
  CHECK(now.norm_backward == Approx(0.8700).epsilon(1e-3));
  // Eager backward: dY and X read by two kernels, five tensors where the fused kernel moves three.
  CHECK(eager.norm == now.norm);
  CHECK(eager.norm_backward == Approx(now.norm * 3 / 5));
  // apex's 2020 kernels, timed in the same run: 895.8 and 572.2 GB/s, so 712 and 492 per mille of the
  // fused ones; everything else is the 2023 stack's.
  CHECK(apex.norm == Approx(now.norm * 895.8 / 1258.0));
  CHECK(apex.norm_backward == Approx(now.norm_backward * 572.2 / 1163.4));
  CHECK(apex.norm * 0.86 * 1555 == Approx(895.8).epsilon(1e-6));
  CHECK(apex.attention == eager.attention);
  CHECK(apex.gemm == now.gemm);
  CHECK(default_compute_profile(SoftwareStack::y2021).source.find("apex#1037") != std::string::npos);
  // A profile file sets them like any other field, as fractions.
  const ComputeProfile p = profile("efficiency: {norm: 0.5, norm_backward: 0.25}\n");
  CHECK(p.resolve("h100-sxm").norm == 0.5);
  CHECK(p.resolve("h100-sxm").norm_backward == 0.25);
  CHECK_THROWS_WITH(profile("efficiency: {norm: 1.5}\n"), Catch::Contains("norm: expected a fraction"));
}
