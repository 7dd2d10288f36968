#include "workloads/traces/chakra_reader.h"

#include <fmt/format.h>

#include <optional>

#include "chakra_et.pb.h"
#include "sim/core/errors.h"
#include "workloads/traces/byte_reader.h"
#include "workloads/traces/trace_conventions.h"

namespace weft {

namespace {

using ChakraProtoMsg::AttributeProto;

// An attribute as a signed integer, whatever integer member of the oneof the producer chose.
std::optional<int64_t> attr_int(const AttributeProto& a) {
  switch (a.value_case()) {
    case AttributeProto::kInt64Val:
      return a.int64_val();
    case AttributeProto::kInt32Val:
      return a.int32_val();
    case AttributeProto::kUint32Val:
      return a.uint32_val();
    case AttributeProto::kUint64Val:
      return static_cast<int64_t>(a.uint64_val());
    case AttributeProto::kSint32Val:
      return a.sint32_val();
    case AttributeProto::kSint64Val:
      return a.sint64_val();
    case AttributeProto::kFixed32Val:
      return a.fixed32_val();
    case AttributeProto::kFixed64Val:
      return static_cast<int64_t>(a.fixed64_val());
    case AttributeProto::kSfixed32Val:
      return a.sfixed32_val();
    case AttributeProto::kSfixed64Val:
      return a.sfixed64_val();
    case AttributeProto::kBoolVal:
      return a.bool_val() ? 1 : 0;
    default:
      return std::nullopt;
  }
}

// The attributes of one node that the mapping reads.
struct NodeAttrs {
  std::optional<int64_t> comm_type, comm_size, comm_src, comm_dst, comm_tag, num_ops;
  bool is_cpu_op = false;
  std::string pg_name;
};

NodeAttrs read_attrs(const ChakraProtoMsg::Node& node, const std::string& where) {
  NodeAttrs out;
  for (const AttributeProto& a : node.attr()) {
    const std::string& n = a.name();
    auto integer = [&]() -> int64_t {
      auto v = attr_int(a);
      if (!v) throw ConfigError(fmt::format("{}: attr '{}' is not an integer", where, n));
      return *v;
    };
    if (n == "comm_type")
      out.comm_type = integer();
    else if (n == "comm_size")
      out.comm_size = integer();
    else if (n == "comm_src")
      out.comm_src = integer();
    else if (n == "comm_dst")
      out.comm_dst = integer();
    else if (n == "comm_tag")
      out.comm_tag = integer();
    else if (n == "num_ops")
      out.num_ops = integer();
    else if (n == "is_cpu_op")
      out.is_cpu_op = integer() != 0;
    else if (n == "pg_name") {
      if (a.value_case() == AttributeProto::kStringVal)
        out.pg_name = a.string_val();
      else
        out.pg_name = std::to_string(integer());
    }
  }
  return out;
}

// Largest duration we accept: 10^12 us (11.6 days) keeps Time's int64 picoseconds far from overflow.
constexpr uint64_t kMaxDurationMicros = 1'000'000'000'000ull;
constexpr int64_t kMaxBytes = int64_t{1} << 50;  // 1 PiB: more is corruption

uint32_t rank_attr(const std::optional<int64_t>& v, const char* name, const std::string& where) {
  if (!v) throw ConfigError(fmt::format("{}: no `{}` attr (the peer rank)", where, name));
  if (*v < 0 || *v > INT32_MAX) throw ConfigError(fmt::format("{}: `{}` = {} is not a rank", where, name, *v));
  return static_cast<uint32_t>(*v);
}

uint64_t size_attr(const std::optional<int64_t>& v, const std::string& where) {
  if (!v) throw ConfigError(where + ": no `comm_size` attr (bytes)");
  if (*v < 0 || *v > kMaxBytes) throw ConfigError(fmt::format("{}: comm_size {} is not a byte count", where, *v));
  return static_cast<uint64_t>(*v);
}

void map_comm_coll(const NodeAttrs& a, TraceNode& t, ChakraFile& file, const std::string& where) {
  if (!a.comm_type) {
    if (a.is_cpu_op) {  // c10d::allreduce_ and friends: the host side of a GPU collective
      ++file.cpu_collectives;
      t.kind = TraceNodeKind::skip;
      return;
    }
    // Chakra's feeder-JSON sample carries neither comm_type nor comm_size on its GPU collectives: the
    // kernel name says which collective (the converter decides the same way); the size is unknown.
    auto named = collective_from_name(t.name);
    if (!named || *named == CollectiveOp::send_recv) {
      throw ConfigError(where + ": GPU COMM_COLL_NODE without `comm_type`, and its name names no collective");
    }
    t.kind = TraceNodeKind::collective;
    t.collective = *named;
    t.size = a.comm_size ? size_attr(a.comm_size, where) : 0;
    t.size_is_chakra_input = true;
    t.group = a.pg_name;
    return;
  }
  if (*a.comm_type == kChakraBarrier) {  // a barrier moves no data: a zero-byte all-reduce syncs ranks
    t.kind = TraceNodeKind::collective;
    t.collective = CollectiveOp::all_reduce;
    t.group = a.pg_name;
    return;
  }
  auto op = collective_from_chakra(*a.comm_type);
  if (!op) {
    throw ConfigError(
        fmt::format("{}: comm_type {} is not supported (expected ALL_REDUCE 0, REDUCE 1, "
                    "ALL_GATHER 2, BROADCAST 5, ALL_TO_ALL 6, REDUCE_SCATTER 7/8, BARRIER 9)",
                    where, *a.comm_type));
  }
  t.kind = TraceNodeKind::collective;
  t.collective = *op;
  t.size = size_attr(a.comm_size, where);
  t.size_is_chakra_input = true;
  t.group = a.pg_name;
}

}  // namespace

TraceNode map_chakra_node(const ChakraProtoMsg::Node& node, ChakraFile& file, const std::string& where) {
  TraceNode t;
  t.id = node.id();
  t.name = node.name();
  t.deps.assign(node.data_deps().begin(), node.data_deps().end());
  t.ctrl_deps.assign(node.ctrl_deps().begin(), node.ctrl_deps().end());
  const NodeAttrs a = read_attrs(node, where);
  const int type = node.type();
  if (type < 0 || type >= static_cast<int>(file.node_types.size())) {
    throw ConfigError(fmt::format("{}: node type {} is not a Chakra NodeType (0..7)", where, type));
  }
  ++file.node_types[static_cast<size_t>(type)];
  switch (type) {
    case ChakraProtoMsg::COMP_NODE:
      if (node.duration_micros() > kMaxDurationMicros) {
        throw ConfigError(fmt::format("{}: duration_micros {} is beyond 10^12 us", where, node.duration_micros()));
      }
      t.kind = a.is_cpu_op ? TraceNodeKind::host_compute : TraceNodeKind::compute;
      t.duration = Time::us(static_cast<int64_t>(node.duration_micros()));
      t.flops = a.num_ops && *a.num_ops > 0 ? static_cast<double>(*a.num_ops) : 0.0;
      break;
    case ChakraProtoMsg::COMM_COLL_NODE:
      map_comm_coll(a, t, file, where);
      break;
    case ChakraProtoMsg::COMM_SEND_NODE:
    case ChakraProtoMsg::COMM_RECV_NODE: {
      const bool send = type == ChakraProtoMsg::COMM_SEND_NODE;
      t.kind = send ? TraceNodeKind::send : TraceNodeKind::recv;
      t.peer = send ? rank_attr(a.comm_dst, "comm_dst", where) : rank_attr(a.comm_src, "comm_src", where);
      t.tag = a.comm_tag ? static_cast<uint32_t>(*a.comm_tag) : 0u;
      t.size = size_attr(a.comm_size, where);
      break;
    }
    default:
      t.kind = TraceNodeKind::skip;
      break;  // INVALID, METADATA, MEM_LOAD, MEM_STORE
  }
  return t;
}

namespace {

// Chakra schema strings seen: "0.0.4" (version), "1.0.1", "1.0.2-chakra.0.0.4", "1.1.1-chakra.0.0.4".
void check_schema(const std::string& text, const std::string& path) {
  if (text.empty()) return;
  if (!(text.starts_with("0.") || text.starts_with("1."))) {
    throw ConfigError(
        fmt::format("trace file '{}': schema '{}' is not supported (expected 0.x or 1.x, e.g. "
                    "\"0.0.4\", \"1.0.1\", \"1.1.1-chakra.0.0.4\")",
                    path, text));
  }
}

void read_metadata(const std::string& message, ChakraFile& file, const std::string& path) {
  ChakraProtoMsg::GlobalMetadata meta;
  if (!meta.ParseFromString(message)) {
    throw ConfigError(
        fmt::format("trace file '{}': message #0 is not a Chakra GlobalMetadata (not a Chakra ET, "
                    "or an old pre-0.0.4 schema)",
                    path));
  }
  file.version = meta.version();
  for (const AttributeProto& a : meta.attr()) {
    if (a.name() == "schema" && a.value_case() == AttributeProto::kStringVal) file.schema = a.string_val();
  }
  check_schema(file.version, path);
  check_schema(file.schema, path);
}

}  // namespace

ChakraFile read_chakra_file(const std::string& path) {
  ChakraFile file;
  file.trace.file = path;
  TraceFile input(path);
  DelimitedReader reader(input);
  std::string message;
  if (!reader.next(message)) throw ConfigError(fmt::format("trace file '{}': empty (no GlobalMetadata)", path));
  read_metadata(message, file, path);
  ChakraProtoMsg::Node node;
  while (reader.next(message)) {
    const uint64_t index = reader.index() - 1;
    if (!node.ParseFromString(message)) {
      throw ConfigError(
          fmt::format("trace file '{}': message #{} is not a Chakra Node (corrupt, or an old "
                      "pre-0.0.4 schema)",
                      path, index));
    }
    const std::string where = fmt::format("trace file '{}': message #{} node id {}", path, index, node.id());
    file.trace.nodes.push_back(map_chakra_node(node, file, where));
  }
  file.messages = reader.index();
  return file;
}

}  // namespace weft
