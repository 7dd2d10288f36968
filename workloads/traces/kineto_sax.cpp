#include "workloads/traces/kineto_sax.h"

#include <fmt/format.h>

#include <charconv>
#include <istream>
#include <nlohmann/json.hpp>
#include <variant>

#include "sim/core/errors.h"
#include "workloads/traces/byte_reader.h"
#include "workloads/traces/trace_conventions.h"

namespace weft {

uint32_t KinetoEvents::intern(const std::string& name) {
  auto [it, added] = name_index.try_emplace(name, static_cast<uint32_t>(names.size()));
  if (added) names.push_back(name);
  return it->second;
}

namespace {

using Value = std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string>;

// Where a container sits, as far as the reader cares.
enum class Role : uint8_t {
  other,
  root,
  events,
  event,
  args,
  dims,
  dims_first,
  types,
  info,
  pg_config,
  pg_entry,
  pg_ranks
};

struct Frame {
  Role role = Role::other;
  bool array = false;
  size_t index = 0;  // arrays: elements seen
};

// The fields of the event being streamed.
struct Scratch {
  std::string ph, cat, name;
  std::optional<double> ts, dur;
  int64_t pid = 0, tid = 0;
  std::optional<int64_t> correlation, stream;
  CollArgs args;
  bool has_args = false;
  uint64_t dims_product = 1;
  bool dims_seen = false;
  std::string first_type;
};

constexpr uint64_t kMaxWorld = 1u << 17;  // ranks (131,072); more is a corrupt distributedInfo

class Handler : public nlohmann::json_sax<nlohmann::json> {
 public:
  Handler(KinetoEvents& out, std::string path) : out_(out), path_(std::move(path)) {}

  bool null() override { return value(std::monostate{}); }
  bool boolean(bool v) override { return value(v); }
  bool number_integer(number_integer_t v) override { return value(static_cast<int64_t>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value(static_cast<uint64_t>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return value(static_cast<double>(v)); }
  bool string(string_t& v) override { return value(std::move(v)); }
  bool binary(binary_t&) override { return value(std::monostate{}); }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t) override { return push(false); }
  bool start_array(std::size_t) override { return push(true); }
  bool end_object() override { return pop(); }
  bool end_array() override { return pop(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    throw ConfigError(fmt::format("trace file '{}': not valid JSON at byte {}: {}", path_, position, e.what()));
  }

 private:
  std::string where(const char* key) const {
    return fmt::format("trace file '{}': traceEvents[{}].{}", path_, out_.events, key);
  }
  double number(const Value& v, const char* key) const;
  int64_t integer(const Value& v, const char* key) const;
  std::string text(Value&& v, const char* key) const;
  Role child_role(bool array) const;
  bool push(bool array);
  bool pop();
  bool value(Value v);
  void event_field(Value&& v);
  void args_field(Value&& v);
  void info_field(Value&& v);
  void finish_event();

  KinetoEvents& out_;
  std::string path_;
  std::vector<Frame> stack_;
  std::string key_;
  Scratch cur_;
};

double Handler::number(const Value& v, const char* key) const {
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (auto* u = std::get_if<uint64_t>(&v)) return static_cast<double>(*u);
  throw ConfigError(where(key) + ": expected a number");
}

int64_t Handler::integer(const Value& v, const char* key) const {
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  if (auto* u = std::get_if<uint64_t>(&v); u && *u <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(*u);
  // pid / tid are strings in some traces ("stream 7", "Spans"): the first number in them, else a hash.
  if (auto* s = std::get_if<std::string>(&v)) {
    const size_t digit = s->find_first_of("0123456789");
    int64_t n = 0;
    if (digit != std::string::npos && std::from_chars(s->data() + digit, s->data() + s->size(), n).ec == std::errc{}) {
      return n;
    }
    return static_cast<int64_t>(std::hash<std::string>{}(*s) >> 1) + (int64_t{1} << 40);
  }
  throw ConfigError(where(key) + ": expected an integer");
}

std::string Handler::text(Value&& v, const char* key) const {
  if (auto* s = std::get_if<std::string>(&v)) return std::move(*s);
  throw ConfigError(where(key) + ": expected a string");
}

Role Handler::child_role(bool array) const {
  if (stack_.empty()) return array ? Role::events : Role::root;
  const Frame& p = stack_.back();
  switch (p.role) {
    case Role::root:
      if (array && key_ == "traceEvents") return Role::events;
      if (!array && key_ == "distributedInfo") return Role::info;
      return Role::other;
    case Role::events:
      return array ? Role::other : Role::event;
    case Role::event:
      return !array && key_ == "args" ? Role::args : Role::other;
    case Role::args:
      if (array && key_ == "Input Dims") return Role::dims;
      if (array && key_ == "Input type") return Role::types;
      return Role::other;
    case Role::dims:
      return array && p.index == 0 ? Role::dims_first : Role::other;
    case Role::info:
      return array && key_ == "pg_config" ? Role::pg_config : Role::other;
    case Role::pg_config:
      return array ? Role::other : Role::pg_entry;
    case Role::pg_entry:
      return array && key_ == "ranks" ? Role::pg_ranks : Role::other;
    default:
      return Role::other;
  }
}

// Keys whose value must be a scalar: a list or object there is a wrong type, not something to skip.
bool scalar_key(Role parent, const std::string& key) {
  if (parent == Role::event) return key == "ph" || key == "cat" || key == "name" || key == "ts" || key == "dur";
  if (parent == Role::args) {
    return key == "correlation" || key == "stream" || key == "Collective name" || key == "dtype" ||
           key == "In msg nelems" || key == "Out msg nelems" || key == "Group size" || key == "Src Rank" ||
           key == "Dst Rank" || key == "Process Group Name" || key == "Process Group Ranks";
  }
  return false;
}

bool Handler::push(bool array) {
  if (!stack_.empty() && !stack_.back().array && scalar_key(stack_.back().role, key_)) {
    throw ConfigError(where(key_.c_str()) + ": expected a scalar, got a " + (array ? "list" : "object"));
  }
  const Role role = child_role(array);
  if (role == Role::event) cur_ = Scratch{};
  if (role == Role::pg_entry) out_.pg_config.emplace_back();
  if (role == Role::args) cur_.has_args = true;
  stack_.push_back({role, array, 0});
  return true;
}

bool Handler::pop() {
  const Frame f = stack_.back();
  stack_.pop_back();
  if (!stack_.empty()) ++stack_.back().index;
  if (f.role == Role::event) finish_event();
  return true;
}

bool Handler::value(Value v) {
  if (stack_.empty()) return true;
  Frame& f = stack_.back();
  switch (f.role) {
    case Role::root:
      if (key_ == "schemaVersion") {
        if (auto* i = std::get_if<int64_t>(&v))
          out_.schema = std::to_string(*i);
        else if (auto* u = std::get_if<uint64_t>(&v))
          out_.schema = std::to_string(*u);
        else if (auto* s = std::get_if<std::string>(&v))
          out_.schema = *s;
      }
      break;
    case Role::event:
      event_field(std::move(v));
      break;
    case Role::args:
      args_field(std::move(v));
      break;
    case Role::dims_first: {
      const auto n = static_cast<uint64_t>(integer(v, "args.Input Dims"));
      cur_.dims_seen = true;
      // Saturate: a corrupt shape must not wrap around to a small size.
      cur_.dims_product =
          n != 0 && cur_.dims_product > (uint64_t{1} << 52) / n ? (uint64_t{1} << 52) : cur_.dims_product * n;
      break;
    }
    case Role::types:
      if (f.index == 0) cur_.first_type = text(std::move(v), "args.Input type");
      break;
    case Role::info:
    case Role::pg_entry:
      info_field(std::move(v));
      break;
    case Role::pg_ranks: {
      const int64_t r = integer(v, "distributedInfo.pg_config.ranks");
      if (r < 0 || static_cast<uint64_t>(r) >= kMaxWorld) {
        throw ConfigError(fmt::format("trace file '{}': distributedInfo.pg_config ranks: {} is not a rank", path_, r));
      }
      out_.pg_config.back().ranks.push_back(static_cast<uint32_t>(r));
      break;
    }
    default:
      break;
  }
  if (f.array) ++f.index;
  return true;
}

void Handler::event_field(Value&& v) {
  if (key_ == "ph")
    cur_.ph = text(std::move(v), "ph");
  else if (key_ == "cat")
    cur_.cat = text(std::move(v), "cat");
  else if (key_ == "name")
    cur_.name = text(std::move(v), "name");
  else if (key_ == "ts")
    cur_.ts = number(v, "ts");
  else if (key_ == "dur")
    cur_.dur = number(v, "dur");
  else if (key_ == "pid")
    cur_.pid = integer(v, "pid");
  else if (key_ == "tid")
    cur_.tid = integer(v, "tid");
}

void Handler::args_field(Value&& v) {
  auto unsigned_arg = [&](const char* k) -> uint64_t {
    const int64_t n = integer(v, k);
    if (n < 0) throw ConfigError(where(k) + ": expected a non-negative integer");
    return static_cast<uint64_t>(n);
  };
  CollArgs& a = cur_.args;
  if (key_ == "correlation")
    cur_.correlation = integer(v, "args.correlation");
  else if (key_ == "stream")
    cur_.stream = integer(v, "args.stream");
  else if (key_ == "Collective name")
    a.name = text(std::move(v), "args.Collective name");
  else if (key_ == "dtype")
    a.dtype = text(std::move(v), "args.dtype");
  else if (key_ == "In msg nelems")
    a.in_nelems = unsigned_arg("args.In msg nelems");
  else if (key_ == "Out msg nelems")
    a.out_nelems = unsigned_arg("args.Out msg nelems");
  else if (key_ == "Group size")
    a.group_size = unsigned_arg("args.Group size");
  else if (key_ == "Src Rank")
    a.src_rank = unsigned_arg("args.Src Rank");
  else if (key_ == "Dst Rank")
    a.dst_rank = unsigned_arg("args.Dst Rank");
  else if (key_ == "Process Group Name") {
    if (auto* s = std::get_if<std::string>(&v))
      a.pg_name = *s;
    else
      a.pg_name = std::to_string(integer(v, "args.Process Group Name"));
  } else if (key_ == "Process Group Ranks")
    a.pg_ranks = text(std::move(v), "args.Process Group Ranks");
}

void Handler::info_field(Value&& v) {
  const bool entry = stack_.back().role == Role::pg_entry;
  auto count = [&](const char* k) -> uint32_t {
    const int64_t n = integer(v, k);
    if (n < 0 || static_cast<uint64_t>(n) >= kMaxWorld) {
      throw ConfigError(fmt::format("trace file '{}': {}: {} is out of range (0..{})", path_, k, n, kMaxWorld - 1));
    }
    return static_cast<uint32_t>(n);
  };
  if (entry) {
    if (key_ == "pg_name") {
      if (auto* s = std::get_if<std::string>(&v))
        out_.pg_config.back().name = *s;
      else
        out_.pg_config.back().name = std::to_string(integer(v, "distributedInfo.pg_config.pg_name"));
    }
    return;
  }
  if (key_ == "rank")
    out_.rank = count("distributedInfo.rank");
  else if (key_ == "world_size")
    out_.world_size = count("distributedInfo.world_size");
  else if (key_ == "backend" && std::holds_alternative<std::string>(v))
    out_.backend = std::get<std::string>(v);
}

bool is_gpu_category(const std::string& cat) {
  return cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "Memcpy" || cat == "gpu_memset" ||
         cat == "Memset";
}

bool is_comm_host_op(const std::string& name) {
  return name == "record_param_comms" || name.starts_with("nccl:") || name.starts_with("c10d::") ||
         name.starts_with("gloo:");
}

void Handler::finish_event() {
  ++out_.events;
  const Scratch& e = cur_;
  if (e.ph != "X") return;
  auto args_index = [&]() -> int32_t {
    if (e.args.name.empty() && !e.args.in_nelems) return -1;
    out_.args.push_back(e.args);
    return static_cast<int32_t>(out_.args.size() - 1);
  };
  if (!e.ts) return;
  if (!out_.any_ts || *e.ts < out_.first_ts) out_.first_ts = *e.ts;
  out_.any_ts = true;
  const double dur = e.dur.value_or(0.0);
  if (dur < 0 || !(dur < 1e15)) throw ConfigError(where("dur") + ": expected a duration >= 0 (us)");
  if (is_gpu_category(e.cat)) {
    GpuEvent g{*e.ts, dur, e.stream.value_or(e.tid), e.correlation, out_.intern(e.name), args_index(), false};
    g.nccl = e.name.starts_with("ncclKernel") || e.name.starts_with("ncclDevKernel");
    out_.gpu.push_back(g);
  } else if ((e.cat == "cuda_runtime" || e.cat == "cuda_driver") && e.correlation) {
    out_.launches[*e.correlation] = LaunchEvent{*e.ts, e.tid};
  } else if (e.name.starts_with("ProfilerStep#")) {
    uint32_t n = 0;
    const char* first = e.name.data() + 13;
    if (std::from_chars(first, e.name.data() + e.name.size(), n).ec == std::errc{}) {
      out_.steps.push_back({n, *e.ts, dur});
    }
  } else if ((e.cat == "cpu_op" || e.cat == "user_annotation" || e.cat.empty()) && is_comm_host_op(e.name)) {
    // No `cat`: torch's legacy exporter (builds without Kineto) writes every event as a host op.
    const uint32_t elem = dtype_bytes(e.first_type);
    const uint64_t bytes = e.dims_seen ? e.dims_product * elem : 0;
    out_.host_comms.push_back({*e.ts, dur, e.tid, out_.intern(e.name), args_index(), bytes});
  }
}

}  // namespace

KinetoEvents parse_kineto_events(const std::string& path) {
  TraceFile file(path);
  TraceStreambuf buffer(file);
  std::istream in(&buffer);
  KinetoEvents events;
  Handler handler(events, path);
  nlohmann::json::sax_parse(in, &handler);
  return events;
}

}  // namespace weft
