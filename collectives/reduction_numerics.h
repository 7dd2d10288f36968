// The reduction order as numbers (issue 21): seeded inputs summed on the CPU in the exact order of a
// ReductionOrder, in fp32 or bf16, against the exactly rounded sum, and against another order.
// Additions on a GPU round to the data type after each one (NCCL's FuncSum); additions in an NVSwitch
// accumulate in fp32 and round once, when the sum leaves the switch (multimem.ld_reduce .acc::f32).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "collectives/reduction_order.h"

namespace weft {

enum class SumFormat : uint8_t { fp32, bf16 };
std::string_view to_string(SumFormat f);

// x rounded to bfloat16 (to nearest, ties to even), as a float.
float round_bf16(float x);
// The spacing of the format's numbers at |x| (its unit in the last place).
double ulp(double x, SumFormat f);

// values[r][e]: rank r's input, element e, already representable in the format.
using RankValues = std::vector<std::vector<float>>;

// Seeded inputs, `count` per rank: standard normal, or heavy-tailed (Student's t, 3 degrees of
// freedom: a few values far larger than the rest), rounded to the format. Deterministic by seed.
RankValues reduction_inputs(uint32_t ranks, uint64_t count, bool heavy_tailed, uint64_t seed, SumFormat f);

// Every element's sum in `order` (elements beyond the inputs' count are not summed).
std::vector<float> sum_in_order(const ReductionOrder& order, const RankValues& values, SumFormat f);
// The exact sum of each element (compensated, in long double), rounded once to the format.
std::vector<float> exact_sum(const RankValues& values, SumFormat f);

struct SumDifference {
  uint64_t elements = 0;
  uint64_t differing = 0;  // elements whose two sums are not bit-identical
  double max_abs = 0, rms_abs = 0;
  // In ulps of the element's magnitude sum(|x_r|): a summation's rounding errors are bounded by
  // multiples of it, where ulps of the sum itself blow up when the ranks' values cancel.
  double max_ulps = 0, rms_ulps = 0;
};
// The magnitude sum(|x_r|) of each element.
std::vector<double> magnitudes(const RankValues& values);
SumDifference difference(const std::vector<float>& a, const std::vector<float>& reference,
                         const std::vector<double>& magnitude, SumFormat f);

}  // namespace weft
