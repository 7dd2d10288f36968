#include "workloads/traces/chakra_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "chakra_et.pb.h"
#include "sim/core/errors.h"
#include "workloads/traces/comm_groups.h"
#include "workloads/traces/trace_conventions.h"

namespace weft {

namespace {

void write_delimited(std::ofstream& out, const google::protobuf::MessageLite& message) {
  const std::string bytes = message.SerializeAsString();
  uint64_t n = bytes.size();
  char varint[10];
  size_t len = 0;
  do {
    varint[len] = static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>= 7;
    ++len;
  } while (n != 0);
  out.write(varint, static_cast<std::streamsize>(len));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void add_attr(ChakraProtoMsg::Node& node, const char* name, int64_t v) {
  auto* a = node.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

void add_int32_attr(ChakraProtoMsg::Node& node, const char* name, uint32_t v) {
  auto* a = node.add_attr();
  a->set_name(name);
  a->set_int32_val(static_cast<int32_t>(v));
}

bool needs_groups(const Workload& w) {
  return w.communicators.size() > 1 || (w.communicators.size() == 1 && w.communicators[0].ranks.size() != w.ranks());
}

ChakraProtoMsg::Node to_node(const Workload& w, const Op& op, uint64_t id) {
  ChakraProtoMsg::Node node;
  node.set_id(id);
  node.set_name(op.label < w.labels.size() ? w.labels[op.label] : std::string(to_string(op.collective)));
  auto* cpu = node.add_attr();
  cpu->set_name("is_cpu_op");
  cpu->set_bool_val(false);
  switch (op.kind) {
    case OpKind::compute:
      node.set_type(ChakraProtoMsg::COMP_NODE);
      node.set_duration_micros(static_cast<uint64_t>((std::max<int64_t>(op.duration.ps(), 0) + 500'000) / 1'000'000));
      if (op.flops > 0) add_attr(node, "num_ops", static_cast<int64_t>(op.flops));
      break;
    case OpKind::collective: {
      node.set_type(ChakraProtoMsg::COMM_COLL_NODE);
      const auto n = static_cast<uint32_t>(w.communicators.at(op.comm).ranks.size());
      add_attr(node, "comm_type", chakra_comm_type(op.collective));
      add_attr(node, "comm_size", static_cast<int64_t>(chakra_size_from_nccl(op.collective, op.bytes, n)));
      if (needs_groups(w)) {
        auto* pg = node.add_attr();
        pg->set_name("pg_name");
        pg->set_string_val(std::to_string(op.comm));
      }
      break;
    }
    case OpKind::send:
    case OpKind::recv:
      node.set_type(op.kind == OpKind::send ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
      add_attr(node, "comm_size", static_cast<int64_t>(op.bytes.count()));
      add_int32_attr(node, op.kind == OpKind::send ? "comm_dst" : "comm_src", op.peer);
      add_int32_attr(node, "comm_tag", op.tag);
      break;
  }
  return node;
}

}  // namespace

std::vector<std::string> write_chakra_trace(const Workload& w, const std::string& prefix,
                                            const ChakraWriteOptions& options) {
  std::vector<std::string> written;
  ChakraProtoMsg::GlobalMetadata meta;
  meta.set_version(options.version);
  if (!options.schema.empty()) {
    auto* a = meta.add_attr();
    a->set_name("schema");
    a->set_string_val(options.schema);
  }
  uint64_t next_id = 0;
  for (uint32_t r = 0; r < w.ranks(); ++r) {
    const std::string path = fmt::format("{}.{}.et", prefix, r);
    std::ofstream out(path, std::ios::binary);
    if (!out) throw ConfigError(fmt::format("trace export: cannot write '{}'", path));
    write_delimited(out, meta);
    const Program& p = w.programs[r];
    const uint64_t first_id = next_id;
    std::vector<int64_t> last_on_stream(256, -1);
    std::vector<uint64_t> deps;
    for (uint32_t i = 0; i < p.ops.size(); ++i) {
      const Op& op = p.ops[i];
      ChakraProtoMsg::Node node = to_node(w, op, first_id + i);
      deps.assign(p.deps.begin() + op.first_dep, p.deps.begin() + op.first_dep + op.dep_count);
      if (last_on_stream[op.stream] >= 0) deps.push_back(static_cast<uint64_t>(last_on_stream[op.stream]));
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      for (uint64_t d : deps) node.add_data_deps(first_id + d);
      last_on_stream[op.stream] = i;
      write_delimited(out, node);
    }
    next_id += p.ops.size();
    if (!out) throw ConfigError(fmt::format("trace export: cannot write '{}'", path));
    written.push_back(path);
  }
  if (needs_groups(w)) {
    CommGroups groups;
    for (size_t c = 0; c < w.communicators.size(); ++c) groups[std::to_string(c)] = w.communicators[c].ranks;
    const std::string path = prefix + ".comm_group.json";
    write_comm_groups(groups, path);
    written.push_back(path);
  }
  return written;
}

}  // namespace weft
