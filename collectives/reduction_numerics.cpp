#include "collectives/reduction_numerics.h"

#include <bit>
#include <cmath>
#include <numbers>
#include <random>

namespace weft {
namespace {

float round_to(double x, SumFormat f) {
  const auto single = static_cast<float>(x);
  return f == SumFormat::bf16 ? round_bf16(single) : single;
}

// x rounded once to the format: a float from long double is one rounding; for bf16 a float that lands
// exactly halfway between two bf16 numbers but is not x itself is moved a float ulp toward x, so that
// the second rounding goes the way x does.
float round_once(long double x, SumFormat f) {
  auto single = static_cast<float>(x);
  if (f == SumFormat::fp32) return single;
  if ((std::bit_cast<uint32_t>(single) & 0xFFFFu) == 0x8000u && static_cast<long double>(single) != x) {
    single = std::nextafter(single, x > single ? INFINITY : -INFINITY);
  }
  return round_bf16(single);
}

// A standard normal draw (Box-Muller on two uniforms of the 64-bit Mersenne Twister, whose output the
// C++ standard fixes: the same numbers on every platform).
double normal(std::mt19937_64& rng) {
  const double u = (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
  const double v = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
}

// The value of node i of `t` for element e, as the format keeps it; `wide` keeps an in-switch
// partial in fp32 until it leaves the switch.
float evaluate(const SumTree& t, int32_t i, const RankValues& values, uint64_t e, SumFormat f, bool wide) {
  const SumTree::Node& n = t.nodes[i];
  if (n.rank >= 0) return values[n.rank][e];
  const bool in_switch = n.site == SumSite::nvswitch;
  const float a = evaluate(t, n.left, values, e, f, in_switch);
  const float b = evaluate(t, n.right, values, e, f, in_switch);
  const float sum = a + b;  // IEEE single: exact rounding of the two operands' sum
  return wide && in_switch ? sum : round_to(sum, f);
}

}  // namespace

std::string_view to_string(SumFormat f) { return f == SumFormat::bf16 ? "bf16" : "fp32"; }

float round_bf16(float x) {
  if (std::isnan(x)) return x;
  const auto bits = std::bit_cast<uint32_t>(x);
  const uint32_t rounded = bits + 0x7FFFu + ((bits >> 16) & 1u);
  return std::bit_cast<float>(rounded & 0xFFFF0000u);
}

double ulp(double x, SumFormat f) {
  const int mantissa_bits = f == SumFormat::bf16 ? 7 : 23;
  const double a = std::abs(x);
  if (a < 1e-30) return std::ldexp(1.0, -126 - mantissa_bits);
  return std::ldexp(1.0, std::ilogb(a) - mantissa_bits);
}

RankValues reduction_inputs(uint32_t ranks, uint64_t count, bool heavy_tailed, uint64_t seed, SumFormat f) {
  std::mt19937_64 rng(seed);
  RankValues values(ranks, std::vector<float>(count));
  for (uint32_t r = 0; r < ranks; ++r) {
    for (uint64_t e = 0; e < count; ++e) {
      double x = normal(rng);
      if (heavy_tailed) {
        double chi2 = 0;
        for (int k = 0; k < 3; ++k) chi2 += std::pow(normal(rng), 2);
        x /= std::sqrt(chi2 / 3);
      }
      values[r][e] = round_to(x, f);
    }
  }
  return values;
}

std::vector<float> sum_in_order(const ReductionOrder& order, const RankValues& values, SumFormat f) {
  const uint64_t count = std::min<uint64_t>(order.count(), values.empty() ? 0 : values[0].size());
  std::vector<float> out(count);
  for (uint64_t e = 0; e < count;) {
    const SumTree& t = order.tree_of(e);
    const uint64_t end = std::min(count, order.run_end(e));
    const auto root = static_cast<int32_t>(t.nodes.size() - 1);
    for (; e < end; ++e) out[e] = evaluate(t, root, values, e, f, false);
  }
  return out;
}

std::vector<float> exact_sum(const RankValues& values, SumFormat f) {
  const uint64_t count = values.empty() ? 0 : values[0].size();
  std::vector<float> out(count);
  for (uint64_t e = 0; e < count; ++e) {
    // Neumaier's compensated sum in long double: the error stays far below a float's ulp.
    long double sum = 0, compensation = 0;
    for (const auto& rank : values) {
      const long double x = rank[e];
      const long double t = sum + x;
      compensation += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
      sum = t;
    }
    out[e] = round_once(sum + compensation, f);
  }
  return out;
}

std::vector<double> magnitudes(const RankValues& values) {
  std::vector<double> out(values.empty() ? 0 : values[0].size(), 0.0);
  for (const auto& rank : values) {
    for (size_t e = 0; e < out.size(); ++e) out[e] += std::abs(static_cast<double>(rank[e]));
  }
  return out;
}

SumDifference difference(const std::vector<float>& a, const std::vector<float>& reference,
                         const std::vector<double>& magnitude, SumFormat f) {
  SumDifference d;
  d.elements = std::min({a.size(), reference.size(), magnitude.size()});
  double squares = 0, ulp_squares = 0;
  for (uint64_t e = 0; e < d.elements; ++e) {
    const double diff = std::abs(static_cast<double>(a[e]) - reference[e]);
    const double in_ulps = diff / ulp(magnitude[e], f);
    d.differing += std::bit_cast<uint32_t>(a[e]) != std::bit_cast<uint32_t>(reference[e]) ? 1 : 0;
    d.max_abs = std::max(d.max_abs, diff);
    d.max_ulps = std::max(d.max_ulps, in_ulps);
    squares += diff * diff;
    ulp_squares += in_ulps * in_ulps;
  }
  if (d.elements > 0) {
    d.rms_abs = std::sqrt(squares / static_cast<double>(d.elements));
    d.rms_ulps = std::sqrt(ulp_squares / static_cast<double>(d.elements));
  }
  return d;
}

}  // namespace weft
