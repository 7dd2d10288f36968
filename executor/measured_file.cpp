#include "executor/measured_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "sim/core/errors.h"

namespace weft {

using nlohmann::json;

nlohmann::json to_json(const MeasuredOp& o) {
  std::vector<double> durations;
  for (size_t i = 0; i < o.start_us.size() && i < o.end_us.size(); ++i)
    durations.push_back(o.end_us[i] - o.start_us[i]);
  return json{{"rank", o.rank},         {"id", o.id},
              {"op", to_json(o.op)},    {"comm_ranks", o.comm_ranks},
              {"executed", o.executed}, {"start_us", o.start_us},
              {"end_us", o.end_us},     {"median_us", durations.empty() ? 0.0 : median(durations)}};
}

MeasuredOp measured_op_from_json(const nlohmann::json& j, const std::string& where) {
  try {
    MeasuredOp o;
    o.rank = j.at("rank").get<uint32_t>();
    o.id = j.at("id").get<uint32_t>();
    o.op = lowered_op_from_json(j.at("op"), where + "/op");
    o.comm_ranks = j.value("comm_ranks", 1u);
    o.executed = j.value("executed", "");
    o.start_us = j.at("start_us").get<std::vector<double>>();
    o.end_us = j.at("end_us").get<std::vector<double>>();
    if (o.start_us.size() != o.end_us.size() || o.start_us.empty()) {
      throw ConfigError(fmt::format("{}: start_us and end_us must hold one value per repeat", where));
    }
    return o;
  } catch (const json::exception& e) {
    throw ConfigError(fmt::format("{}: {}", where, e.what()));
  }
}

Measured gathered_measurement(const LoweredSchedule& s, const MeasuredRun& run,
                              const std::vector<nlohmann::json>& ranks) {
  Measured m;
  m.schedule_name = s.name;
  m.fingerprint = fingerprint(s);
  m.ranks = s.ranks();
  m.gpu = s.gpu;
  m.executor = run.executor;
  m.mode = run.mode;
  m.warmup = run.warmup;
  m.repeats = run.repeats;
  for (const json& rank : ranks) {
    for (const json& row : rank.at("rows")) m.ops.push_back(measured_op_from_json(row, "gathered"));
  }
  return m;
}

nlohmann::json to_json(const Measured& m) {
  json ops = json::array();
  for (const MeasuredOp& o : m.ops) ops.push_back(to_json(o));
  // `complete` comes last in the text as well as in meaning: the file is renamed into place whole.
  return json{
      {"format", "weft-measured"},
      {"version", m.version},
      {"schedule", {{"name", m.schedule_name}, {"fingerprint", m.fingerprint}, {"ranks", m.ranks}, {"gpu", m.gpu}}},
      {"executor", {{"name", m.executor}, {"mode", m.mode}, {"warmup", m.warmup}, {"repeats", m.repeats}}},
      {"environment", m.environment},
      {"ops", std::move(ops)},
      {"complete", m.complete}};
}

Measured measured_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object() || j.value("format", "") != "weft-measured") {
    throw ConfigError(fmt::format("{}: not a weft-measured file", source));
  }
  const int version = j.value("version", 0);
  if (version != kMeasuredVersion) {
    throw ConfigError(fmt::format("{}: weft-measured version {} is not supported: this weft reads version {}", source,
                                  version, kMeasuredVersion));
  }
  if (!j.value("complete", false)) {
    throw ConfigError(fmt::format("{}: the measurement is not complete (the run stopped half-way)", source));
  }
  try {
    Measured m;
    const json& s = j.at("schedule");
    m.schedule_name = s.value("name", "");
    m.fingerprint = s.at("fingerprint").get<std::string>();
    m.ranks = s.at("ranks").get<uint32_t>();
    m.gpu = s.value("gpu", "");
    const json& e = j.at("executor");
    m.executor = e.value("name", "");
    m.mode = e.value("mode", "");
    m.warmup = e.value("warmup", 0u);
    m.repeats = e.value("repeats", 0u);
    m.environment = j.value("environment", json::object());
    for (const json& o : j.at("ops"))
      m.ops.push_back(measured_op_from_json(o, fmt::format("{}: ops/{}", source, m.ops.size())));
    return m;
  } catch (const json::exception& e) {
    throw ConfigError(fmt::format("{}: {}", source, e.what()));
  }
}

Measured load_measured(const std::string& path) { return measured_from_json(read_json_file(path), path); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

std::string instance_key(uint32_t rank, const LoweredOp& op) {
  switch (op.kind) {
    case LoweredKind::collective:
      return fmt::format("c{}.{}", op.comm, op.instance);
    case LoweredKind::send:
      return fmt::format("p{}-{}.t{}.{}", rank, op.peer, op.tag, op.instance);
    case LoweredKind::recv:
      return fmt::format("p{}-{}.t{}.{}", op.peer, rank, op.tag, op.instance);
    default:
      return fmt::format("o{}.{}", rank, op.id);
  }
}

std::vector<Instance> measured_instances(const Measured& m) {
  std::vector<Instance> out;
  std::map<std::string, size_t> index;
  std::vector<std::vector<const MeasuredOp*>> rows;
  for (const MeasuredOp& o : m.ops) {
    const std::string key = instance_key(o.rank, o.op);
    auto [it, fresh] = index.try_emplace(key, out.size());
    if (fresh) {
      out.push_back({key, o.op, o.op.kind == LoweredKind::collective ? o.comm_ranks : 1u, {}, 0});
      rows.emplace_back();
    }
    out[it->second].members.emplace_back(o.rank, o.id);
    rows[it->second].push_back(&o);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].op.kind == LoweredKind::send || out[i].op.kind == LoweredKind::recv) out[i].ranks = 2;
    size_t repeats = SIZE_MAX;
    for (const MeasuredOp* o : rows[i]) repeats = std::min(repeats, o->start_us.size());
    std::vector<double> times;
    for (size_t r = 0; r < repeats; ++r) {
      double start = -1e300, end = -1e300;
      for (const MeasuredOp* o : rows[i]) {
        start = std::max(start, o->start_us[r]);
        end = std::max(end, o->end_us[r]);
      }
      times.push_back(end - start);
    }
    out[i].measured_us = median(times);
  }
  return out;
}

}  // namespace weft
