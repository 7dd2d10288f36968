#include "workloads/serving/requests.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "sim/core/errors.h"
#include "sim/core/rng.h"

namespace weft {

std::string_view to_string(ArrivalKind k) {
  switch (k) {
    case ArrivalKind::all_at_once:
      return "all_at_once";
    case ArrivalKind::poisson:
      return "poisson";
    case ArrivalKind::gamma:
      return "gamma";
  }
  return "?";
}

ArrivalKind parse_arrival_kind(std::string_view text) {
  for (ArrivalKind k : {ArrivalKind::all_at_once, ArrivalKind::poisson, ArrivalKind::gamma}) {
    if (text == to_string(k)) return k;
  }
  throw ConfigError(fmt::format("arrivals '{}': expected poisson, gamma or all_at_once", text));
}

std::string_view to_string(LengthKind k) {
  constexpr std::string_view kNames[] = {"fixed", "uniform", "normal", "lognormal", "exponential"};
  return kNames[static_cast<size_t>(k)];
}

LengthKind parse_length_kind(std::string_view text) {
  for (LengthKind k :
       {LengthKind::fixed, LengthKind::uniform, LengthKind::normal, LengthKind::lognormal, LengthKind::exponential}) {
    if (text == to_string(k)) return k;
  }
  throw ConfigError(
      fmt::format("length distribution '{}': expected fixed, uniform, normal, lognormal or exponential", text));
}

double sample_exponential(Rng& rng) { return -std::log1p(-rng.uniform01()); }

double sample_normal(Rng& rng) {
  const double u1 = 1.0 - rng.uniform01();  // (0, 1]: log stays finite
  const double u2 = rng.uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

double sample_gamma(Rng& rng, double shape) {
  if (shape < 1) {  // Gamma(a) = Gamma(a + 1) U^(1/a)
    const double u = 1.0 - rng.uniform01();
    return sample_gamma(rng, shape + 1) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3, c = 1.0 / std::sqrt(9 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = sample_normal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = 1.0 - rng.uniform01();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

namespace {

void check(const LengthSpec& l, std::string_view which) {
  if (!(l.mean >= 1)) throw ConfigError(fmt::format("{} length: the mean must be at least 1 token", which));
  if (l.spread < 0) throw ConfigError(fmt::format("{} length: the spread must be >= 0", which));
  if (l.max != 0 && l.min > l.max) {
    throw ConfigError(fmt::format("{} length: min {} is above max {}", which, l.min, l.max));
  }
}

void check(const RequestStreamSpec& s) {
  if (s.arrivals.kind != ArrivalKind::all_at_once && !(s.arrivals.rate > 0)) {
    throw ConfigError("requests: the rate must be above 0 requests/s");
  }
  if (s.arrivals.kind == ArrivalKind::gamma && !(s.arrivals.cv > 0)) {
    throw ConfigError("requests: the gamma arrivals' cv must be above 0");
  }
  if (s.count == 0 && (s.duration <= Time() || s.arrivals.kind == ArrivalKind::all_at_once)) {
    throw ConfigError("requests: expected a count, or a duration with poisson or gamma arrivals");
  }
  check(s.prompt, "prompt");
  check(s.output, "output");
  if (s.prefix_tokens > 0 && s.prefixes == 0) throw ConfigError("requests.prefixes: expected at least 1");
}

uint32_t draw_length(const LengthSpec& l, Rng& rng) {
  double x = l.mean;
  switch (l.kind) {
    case LengthKind::fixed:
      break;
    case LengthKind::uniform:
      x = l.mean - l.spread + 2 * l.spread * rng.uniform01();
      break;
    case LengthKind::normal:
      x = l.mean + l.spread * sample_normal(rng);
      break;
    case LengthKind::lognormal: {
      const double sigma2 = std::log1p((l.spread / l.mean) * (l.spread / l.mean));
      x = std::exp(std::log(l.mean) - sigma2 / 2 + std::sqrt(sigma2) * sample_normal(rng));
      break;
    }
    case LengthKind::exponential:
      x = l.mean * sample_exponential(rng);
      break;
  }
  const double hi = l.max == 0 ? 1e9 : l.max;
  return static_cast<uint32_t>(std::clamp(std::round(x), static_cast<double>(l.min), hi));
}

// Seconds to the next arrival.
double draw_gap(const ArrivalSpec& a, Rng& rng) {
  switch (a.kind) {
    case ArrivalKind::all_at_once:
      return 0;
    case ArrivalKind::poisson:
      return sample_exponential(rng) / a.rate;
    case ArrivalKind::gamma: {
      const double shape = 1 / (a.cv * a.cv);  // mean shape·scale = 1/rate
      return sample_gamma(rng, shape) / (shape * a.rate);
    }
  }
  return 0;
}

}  // namespace

std::vector<Request> generate_requests(const RequestStreamSpec& spec, uint64_t seed) {
  check(spec);
  Rng gaps(seed, "serving.arrivals"), prompts(seed, "serving.prompt"), outputs(seed, "serving.output");
  Rng groups(seed, "serving.prefix");
  std::vector<Request> out;
  double t = 0;  // seconds
  for (uint32_t id = 0; spec.count == 0 || id < spec.count; ++id) {
    if (id > 0 || spec.arrivals.kind == ArrivalKind::gamma || spec.arrivals.kind == ArrivalKind::poisson) {
      t += draw_gap(spec.arrivals, gaps);
    }
    const Time arrival = Time::ps(std::llround(t * 1e12));
    if (spec.count == 0 && arrival >= spec.duration) break;
    Request r{id, arrival, draw_length(spec.prompt, prompts), std::max(1u, draw_length(spec.output, outputs))};
    if (spec.prefix_tokens > 0) {
      r.prefix = spec.prefix_tokens;
      r.prompt += spec.prefix_tokens;
      r.prefix_group = static_cast<uint32_t>(groups.uniform_below(spec.prefixes));
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace weft
