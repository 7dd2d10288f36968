#include "workloads/traces/chakra_json_reader.h"

#include <fmt/format.h>

#include <istream>
#include <nlohmann/json.hpp>

#include "chakra_et.pb.h"
#include "sim/core/errors.h"
#include "workloads/traces/byte_reader.h"

namespace weft {

namespace {

using nlohmann::json;

uint64_t unsigned_value(const json& v, const std::string& where) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  if (v.is_number_float() && v.get<double>() >= 0 && v.get<double>() < 1.8e19) {
    return static_cast<uint64_t>(v.get<double>());
  }
  throw ConfigError(fmt::format("{}: expected a non-negative number, got {}", where, v.dump().substr(0, 40)));
}

void add_int_attr(ChakraProtoMsg::Node& node, const char* name, int64_t value) {
  auto* a = node.add_attr();
  a->set_name(name);
  a->set_int64_val(value);
}

void add_deps(const json& n, const char* key, google::protobuf::RepeatedField<uint64_t>* out,
              const std::string& where) {
  auto it = n.find(key);
  if (it == n.end()) return;
  if (!it->is_array()) throw ConfigError(fmt::format("{}.{}: expected a list of node ids", where, key));
  for (size_t i = 0; i < it->size(); ++i) out->Add(unsigned_value((*it)[i], fmt::format("{}.{}[{}]", where, key, i)));
}

// The JSON node as the protobuf Node it stands for.
ChakraProtoMsg::Node to_node(const json& n, const std::string& where) {
  if (!n.is_object()) throw ConfigError(where + ": expected an object");
  ChakraProtoMsg::Node node;
  auto get = [&](const char* key) -> const json* {
    auto it = n.find(key);
    return it == n.end() ? nullptr : &*it;
  };
  const json* id = get("Id");
  const json* type = get("NodeType");
  if (id == nullptr || type == nullptr) throw ConfigError(where + ": expected keys \"Id\" and \"NodeType\"");
  node.set_id(unsigned_value(*id, where + ".Id"));
  const uint64_t t = unsigned_value(*type, where + ".NodeType");
  if (t > 7) throw ConfigError(fmt::format("{}.NodeType: {} is not a Chakra NodeType (0..7)", where, t));
  node.set_type(static_cast<ChakraProtoMsg::NodeType>(t));
  if (const json* name = get("Name")) {
    if (!name->is_string()) throw ConfigError(where + ".Name: expected a string");
    node.set_name(name->get<std::string>());
  }
  if (const json* rt = get("runtime")) node.set_duration_micros(unsigned_value(*rt, where + ".runtime"));
  add_deps(n, "data_deps", node.mutable_data_deps(), where);
  add_deps(n, "ctrlDeps", node.mutable_ctrl_deps(), where);
  add_deps(n, "ctrl_deps", node.mutable_ctrl_deps(), where);
  if (const json* cpu = get("is_cpu_op")) {
    if (!cpu->is_boolean()) throw ConfigError(where + ".is_cpu_op: expected true or false");
    auto* a = node.add_attr();
    a->set_name("is_cpu_op");
    a->set_bool_val(cpu->get<bool>());
  }
  for (const char* key : {"comm_type", "comm_size", "comm_src", "comm_dst", "comm_tag", "num_ops"}) {
    if (const json* v = get(key)) {
      const uint64_t value = unsigned_value(*v, fmt::format("{}.{}", where, key));
      if (value > static_cast<uint64_t>(INT64_MAX)) throw ConfigError(fmt::format("{}.{}: too large", where, key));
      add_int_attr(node, key, static_cast<int64_t>(value));
    }
  }
  if (const json* pg = get("pg_name")) {
    if (!pg->is_string()) throw ConfigError(where + ".pg_name: expected a string");
    auto* a = node.add_attr();
    a->set_name("pg_name");
    a->set_string_val(pg->get<std::string>());
  }
  return node;
}

}  // namespace

ChakraFile read_chakra_json_file(const std::string& path) {
  TraceFile input(path);
  TraceStreambuf buffer(input);
  std::istream in(&buffer);
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw ConfigError(fmt::format("trace file '{}': not JSON: {}", path, e.what()));
  }
  auto graph = doc.is_object() ? doc.find("workload_graph") : doc.end();
  if (!doc.is_object() || graph == doc.end() || !graph->is_array()) {
    throw ConfigError(
        fmt::format("trace file '{}': expected an object with a \"workload_graph\" list (Chakra "
                    "feeder JSON)",
                    path));
  }
  ChakraFile file;
  file.trace.file = path;
  for (size_t i = 0; i < graph->size(); ++i) {
    const std::string where = fmt::format("trace file '{}': workload_graph[{}]", path, i);
    const ChakraProtoMsg::Node node = to_node((*graph)[i], where);
    file.trace.nodes.push_back(map_chakra_node(node, file, fmt::format("{} (node id {})", where, node.id())));
  }
  file.messages = graph->size();
  return file;
}

}  // namespace weft
