// MLCommons Chakra execution traces (protobuf, ../shared/reference/workloads.md §1.1-1.2): one
// varint-delimited file per rank, GlobalMetadata first, then Node messages, plain or gzip.
//
// Mapping: COMP_NODE -> compute of duration_micros (flops from the `num_ops` attr), or host compute
// when is_cpu_op; COMM_COLL_NODE with comm_type -> collective of comm_size bytes (per-rank input:
// converted to nccl-tests' size, trace_conventions.h) on the communicator of its `pg_name`;
// COMM_COLL_NODE with is_cpu_op and no comm_type (PyTorch's c10d::allreduce_ host op) -> dropped;
// COMM_SEND / COMM_RECV -> send / recv with comm_dst / comm_src and comm_tag (a comm_type on them is
// meaningless, MSCCL-derived ETs put the node type there); MEM_* and METADATA nodes -> dropped.
// data_deps and ctrl_deps are both dependencies; dropped nodes pass theirs on.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "workloads/traces/trace_graph.h"

namespace ChakraProtoMsg {
class Node;
}

namespace weft {

struct ChakraFile {
  RankTrace trace;
  std::string version;                   // GlobalMetadata.version ("0.0.4")
  std::string schema;                    // GlobalMetadata attr `schema` ("1.0.1"), may be empty
  uint64_t messages = 0;                 // metadata included
  std::array<uint64_t, 8> node_types{};  // count per NodeType value (COMP_NODE = 4, ...)
  uint64_t cpu_collectives = 0;          // COMM_COLL nodes dropped as CPU-side
};

// Reads and checks one rank file; ConfigError names the file, message index and node id.
ChakraFile read_chakra_file(const std::string& path);

// One node as the mapping above says (shared with the feeder-JSON reader); counts into `file`.
TraceNode map_chakra_node(const ChakraProtoMsg::Node& node, ChakraFile& file, const std::string& where);

}  // namespace weft
