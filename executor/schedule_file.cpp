#include "executor/schedule_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "executor/schedule_check.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 5> kKinds = {"compute", "collective", "send", "recv", "copy"};

// Field access with the file and the JSON path in every message.
struct Reader {
  const json& j;
  std::string where;

  const json& at(const char* key) const {
    auto it = j.find(key);
    if (it == j.end()) throw ConfigError(fmt::format("{}: missing '{}'", where, key));
    return *it;
  }
  template <class T>
  T get(const char* key) const {
    try {
      return at(key).get<T>();
    } catch (const json::exception&) {
      throw ConfigError(fmt::format("{}: '{}' has the wrong type ({})", where, key, at(key).dump()));
    }
  }
  template <class T>
  T get_or(const char* key, T fallback) const {
    return j.contains(key) ? get<T>(key) : fallback;
  }
  Reader child(const json& c, const std::string& name) const { return Reader{c, where + "/" + name}; }
};

LoweredKind parse_kind(const std::string& text, const std::string& where) {
  for (size_t i = 0; i < kKinds.size(); ++i) {
    if (kKinds[i] == text) return static_cast<LoweredKind>(i);
  }
  throw ConfigError(fmt::format("{}: kind '{}': expected compute, collective, send, recv or copy", where, text));
}

json op_to_json(const LoweredOp& o) {
  json j = {{"id", o.id}, {"kind", to_string(o.kind)}, {"stream", o.stream}, {"deps", o.deps}};
  if (!o.label.empty()) j["label"] = o.label;
  if (!o.group.empty() && o.group != "none") j["group"] = o.group;
  switch (o.kind) {
    case LoweredKind::compute:
      j["duration_ps"] = o.duration_ps;
      j["flops"] = o.flops;
      if (o.gemm) j["gemm"] = {{"m", o.gemm->m}, {"n", o.gemm->n}, {"k", o.gemm->k}, {"dtype", o.gemm->dtype}};
      break;
    case LoweredKind::collective:
      j.update({{"op", o.op},
                {"bytes", o.bytes},
                {"dtype", o.dtype},
                {"comm", o.comm},
                {"instance", o.instance},
                {"algorithm", o.algorithm},
                {"protocol", o.protocol},
                {"channels", o.channels},
                {"link", o.link}});
      if (o.op == "broadcast" || o.op == "reduce") j["root"] = o.root;
      break;
    case LoweredKind::send:
    case LoweredKind::recv:
      j.update({{"peer", o.peer}, {"bytes", o.bytes}, {"tag", o.tag}, {"instance", o.instance}, {"link", o.link}});
      break;
    case LoweredKind::copy:
      j.update({{"bytes", o.bytes}, {"direction", o.direction}});
      break;
  }
  if (o.kind != LoweredKind::compute && o.duration_ps > 0) j["duration_ps"] = o.duration_ps;
  return j;
}

LoweredOp op_from_json(const Reader& r) {
  LoweredOp o;
  o.id = r.get<uint32_t>("id");
  o.kind = parse_kind(r.get<std::string>("kind"), r.where);
  o.stream = r.get_or<uint32_t>("stream", 0);
  o.deps = r.get_or<std::vector<uint32_t>>("deps", {});
  o.label = r.get_or<std::string>("label", "");
  o.group = r.get_or<std::string>("group", "none");
  o.duration_ps = r.get_or<int64_t>("duration_ps", 0);
  switch (o.kind) {
    case LoweredKind::compute:
      o.duration_ps = r.get<int64_t>("duration_ps");
      o.flops = r.get_or<double>("flops", 0);
      if (r.j.contains("gemm")) {
        const Reader g = r.child(r.at("gemm"), "gemm");
        o.gemm = GemmShape{g.get<uint64_t>("m"), g.get<uint64_t>("n"), g.get<uint64_t>("k"),
                           g.get_or<std::string>("dtype", "bf16")};
      }
      break;
    case LoweredKind::collective:
      o.op = r.get<std::string>("op");
      o.bytes = r.get<uint64_t>("bytes");
      o.dtype = r.get_or<std::string>("dtype", "float32");
      o.comm = r.get<uint32_t>("comm");
      o.instance = r.get<uint64_t>("instance");
      o.algorithm = r.get_or<std::string>("algorithm", "ring");
      o.protocol = r.get_or<std::string>("protocol", "simple");
      o.channels = r.get_or<uint32_t>("channels", 1);
      o.root = r.get_or<uint32_t>("root", 0);
      o.link = r.get_or<std::string>("link", "");
      break;
    case LoweredKind::send:
    case LoweredKind::recv:
      o.peer = r.get<uint32_t>("peer");
      o.bytes = r.get<uint64_t>("bytes");
      o.tag = r.get_or<uint32_t>("tag", 0);
      o.instance = r.get_or<uint64_t>("instance", 0);
      o.link = r.get_or<std::string>("link", "");
      break;
    case LoweredKind::copy:
      o.bytes = r.get<uint64_t>("bytes");
      o.direction = r.get<std::string>("direction");
      break;
  }
  return o;
}

json programs_json(const LoweredSchedule& s) {
  json programs = json::array();
  for (uint32_t rank = 0; rank < s.ranks(); ++rank) {
    json ops = json::array();
    for (const LoweredOp& o : s.programs[rank]) ops.push_back(op_to_json(o));
    programs.push_back({{"rank", rank}, {"ops", std::move(ops)}});
  }
  return programs;
}

json comms_json(const LoweredSchedule& s) {
  json comms = json::array();
  for (size_t i = 0; i < s.comms.size(); ++i) {
    comms.push_back({{"id", i}, {"ranks", s.comms[i].ranks}, {"group", s.comms[i].group}, {"link", s.comms[i].link}});
  }
  return comms;
}

void check_header(const Reader& r, const char* format, int version) {
  const std::string f = r.get_or<std::string>("format", "");
  if (f != format) throw ConfigError(fmt::format("{}: not a {} file (format '{}')", r.where, format, f));
  const int v = r.get<int>("version");
  if (v != version) {
    throw ConfigError(
        fmt::format("{}: {} version {} is not supported: this weft reads version {} "
                    "(lower the scenario again with this weft)",
                    r.where, format, v, version));
  }
}

}  // namespace

nlohmann::json to_json(const LoweredOp& o) { return op_to_json(o); }
LoweredOp lowered_op_from_json(const nlohmann::json& j, const std::string& where) {
  return op_from_json(Reader{j, where});
}

std::string_view to_string(LoweredKind k) { return kKinds[static_cast<size_t>(k)]; }

uint32_t collective_dtype_bytes(std::string_view dtype) {
  if (dtype == "float32") return 4;
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "uint8") return 1;
  throw ConfigError(fmt::format("dtype '{}': expected float32, bf16, fp16 or uint8", dtype));
}

std::string fingerprint(const LoweredSchedule& s) {
  const std::string text = json{{"comms", comms_json(s)}, {"programs", programs_json(s)}}.dump();
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis and prime (IETF draft-eastlake-fnv)
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

nlohmann::json to_json(const LoweredSchedule& s) {
  return json{{"format", "weft-schedule"},
              {"version", s.version},
              {"name", s.name},
              {"source", s.source},
              {"gpu", s.gpu},
              {"ranks", s.ranks()},
              {"fingerprint", fingerprint(s)},
              {"comms", comms_json(s)},
              {"programs", programs_json(s)}};
}

LoweredSchedule schedule_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw ConfigError(fmt::format("{}: not a JSON object", source));
  const Reader r{j, source};
  check_header(r, "weft-schedule", kScheduleVersion);
  LoweredSchedule s;
  s.name = r.get_or<std::string>("name", "");
  s.source = r.get_or<std::string>("source", "");
  s.gpu = r.get_or<std::string>("gpu", "");
  for (const json& c : r.at("comms")) {
    const Reader cr = r.child(c, fmt::format("comms/{}", s.comms.size()));
    s.comms.push_back({cr.get<std::vector<uint32_t>>("ranks"), cr.get_or<std::string>("group", "other"),
                       cr.get_or<std::string>("link", "")});
  }
  const json& programs = r.at("programs");
  const auto ranks = r.get<uint32_t>("ranks");
  if (programs.size() != ranks) {
    throw ConfigError(fmt::format("{}: 'ranks' is {} but there are {} programs", source, ranks, programs.size()));
  }
  for (size_t rank = 0; rank < programs.size(); ++rank) {
    const Reader pr = r.child(programs[rank], fmt::format("programs/{}", rank));
    auto& ops = s.programs.emplace_back();
    for (const json& o : pr.at("ops")) ops.push_back(op_from_json(pr.child(o, fmt::format("ops/{}", ops.size()))));
  }
  const std::string stated = r.get_or<std::string>("fingerprint", "");
  if (!stated.empty() && stated != fingerprint(s)) {
    throw ConfigError(
        fmt::format("{}: the ops were edited after lowering (fingerprint {} in the file, {} of its "
                    "content); remove 'fingerprint' to accept the edit",
                    source, stated, fingerprint(s)));
  }
  return s;
}

nlohmann::json to_json(const Predicted& p) {
  json ops = json::array();
  for (const PredictedOp& o : p.ops) {
    ops.push_back(
        {{"rank", o.rank}, {"id", o.id}, {"issued_ps", o.issued_ps}, {"start_ps", o.start_ps}, {"end_ps", o.end_ps}});
  }
  return json{{"format", "weft-predicted"},
              {"version", p.version},
              {"schedule", {{"name", p.schedule_name}, {"fingerprint", p.fingerprint}}},
              {"model", p.model},
              {"step_ps", p.step_ps},
              {"ops", std::move(ops)}};
}

Predicted predicted_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw ConfigError(fmt::format("{}: not a JSON object", source));
  const Reader r{j, source};
  check_header(r, "weft-predicted", kPredictedVersion);
  Predicted p;
  const Reader sr = r.child(r.at("schedule"), "schedule");
  p.schedule_name = sr.get_or<std::string>("name", "");
  p.fingerprint = sr.get<std::string>("fingerprint");
  p.model = r.get_or<std::string>("model", "");
  p.step_ps = r.get_or<int64_t>("step_ps", 0);
  for (const json& o : r.at("ops")) {
    const Reader orr = r.child(o, fmt::format("ops/{}", p.ops.size()));
    p.ops.push_back({orr.get<uint32_t>("rank"), orr.get<uint32_t>("id"), orr.get<int64_t>("issued_ps"),
                     orr.get<int64_t>("start_ps"), orr.get<int64_t>("end_ps")});
  }
  return p;
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: cannot open", path));
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw ConfigError(fmt::format("{}: not JSON: {}", path, e.what()));
  }
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw ConfigError(fmt::format("{}: cannot write", tmp));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw ConfigError(fmt::format("{}: cannot rename into place: {}", path, ec.message()));
  }
}

LoweredSchedule load_schedule(const std::string& path) {
  LoweredSchedule s = schedule_from_json(read_json_file(path), path);
  at(SourceLocation{path}, [&] { check_schedule(s); });
  return s;
}

void save_schedule(const LoweredSchedule& s, const std::string& path) {
  write_file_atomically(path, to_json(s).dump(1) + "\n");
}

}  // namespace weft
