#include "cost/plan.h"

#include <fmt/format.h>
#include <algorithm>
#include <numeric>

namespace weft::cost {

std::optional<size_t> cheapest_meeting(std::span<const PlanPoint> points, Time target) {
  std::optional<size_t> best;
  for (size_t i = 0; i < points.size(); ++i) {
    const PlanPoint& p = points[i];
    if (p.step_time > target) continue;
    if (!best || p.usd < points[*best].usd || (p.usd == points[*best].usd && p.step_time < points[*best].step_time)) {
      best = i;
    }
  }
  return best;
}

std::optional<size_t> fastest_within(std::span<const PlanPoint> points, double budget) {
  std::optional<size_t> best;
  for (size_t i = 0; i < points.size(); ++i) {
    const PlanPoint& p = points[i];
    if (p.usd > budget) continue;
    if (!best || p.step_time < points[*best].step_time ||
        (p.step_time == points[*best].step_time && p.usd < points[*best].usd)) {
      best = i;
    }
  }
  return best;
}

std::vector<size_t> pareto_frontier(std::span<const PlanPoint> points) {
  std::vector<size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  // Cheapest first, then fastest, then earliest: a point is on the frontier when it is strictly
  // faster than every point before it in this order.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (points[a].usd != points[b].usd) return points[a].usd < points[b].usd;
    return points[a].step_time < points[b].step_time;
  });
  std::vector<size_t> frontier;
  for (size_t i : order) {
    if (frontier.empty() || points[i].step_time < points[frontier.back()].step_time) frontier.push_back(i);
  }
  return frontier;
}

std::vector<GridPoint> expand_grid(std::span<const GridAxis> axes) {
  std::vector<GridPoint> out{GridPoint{}};
  for (const GridAxis& axis : axes) {
    std::vector<GridPoint> next;
    next.reserve(out.size() * axis.values.size());
    for (const GridPoint& p : out) {
      for (const std::string& v : axis.values) {
        GridPoint q = p;
        q.emplace_back(axis.key, v);
        next.push_back(std::move(q));
      }
    }
    out = std::move(next);
  }
  return out;
}

std::string grid_point_name(const GridPoint& point) {
  std::string out;
  for (const auto& [k, v] : point) out += fmt::format("{}{}={}", out.empty() ? "" : " ", k, v);
  return out;
}

std::string format_plan(std::span<const PlanPoint> points, std::optional<size_t> chosen, const char* cost_label) {
  const std::vector<size_t> frontier = pareto_frontier(points);
  size_t width = 4;
  for (const PlanPoint& p : points) width = std::max(width, p.name.size());
  std::string out = fmt::format("  {:<{}}  {:>14}  {:>16}  frontier\n", "name", width, "step time (ms)", cost_label);
  for (size_t i = 0; i < points.size(); ++i) {
    const bool on = std::find(frontier.begin(), frontier.end(), i) != frontier.end();
    out += fmt::format("{} {:<{}}  {:>14.3f}  {:>16.2f}  {}\n", chosen == i ? '*' : ' ', points[i].name, width,
                       points[i].step_time.seconds() * 1e3, points[i].usd, on ? "yes" : "");
  }
  return out;
}

}  // namespace weft::cost
