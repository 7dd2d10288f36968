// Chakra's feeder-JSON form (src/feeder/json_node.{h,cpp}; ../shared/reference/workloads.md §1.3):
// {"workload_graph": [{"Id", "Name", "NodeType", "data_deps", "ctrlDeps", "runtime" (us),
// "is_cpu_op", "comm_type", "comm_size", "comm_src", "comm_dst", "comm_tag", ...}, ...]}. Each node
// is mapped exactly as its protobuf twin (chakra_reader.h).
#pragma once

#include <string>

#include "workloads/traces/chakra_reader.h"

namespace weft {

// ConfigError names the file and the JSON path ("workload_graph[12].NodeType") of a bad value.
ChakraFile read_chakra_json_file(const std::string& path);

}  // namespace weft
