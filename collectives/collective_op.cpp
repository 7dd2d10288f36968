#include "collectives/collective_op.h"

#include <fmt/format.h>
#include <algorithm>
#include <string>

#include "sim/core/errors.h"

namespace weft {

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce:
      return "all_reduce";
    case CollectiveOp::all_gather:
      return "all_gather";
    case CollectiveOp::reduce_scatter:
      return "reduce_scatter";
    case CollectiveOp::broadcast:
      return "broadcast";
    case CollectiveOp::all_to_all:
      return "all_to_all";
    case CollectiveOp::reduce:
      return "reduce";
    case CollectiveOp::send_recv:
      return "send_recv";
  }
  return "?";
}

CollectiveOp parse_collective_op(std::string_view text, std::string_view what) {
  std::string key;
  for (char c : text) {
    if (c != '_' && c != '-') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (key == "allreduce") return CollectiveOp::all_reduce;
  if (key == "allgather") return CollectiveOp::all_gather;
  if (key == "reducescatter") return CollectiveOp::reduce_scatter;
  if (key == "broadcast") return CollectiveOp::broadcast;
  if (key == "alltoall") return CollectiveOp::all_to_all;
  if (key == "reduce") return CollectiveOp::reduce;
  if (key == "sendrecv") return CollectiveOp::send_recv;
  throw ConfigError(SourceLocation{}, std::string(what),
                    fmt::format("unknown collective '{}' (expected all_reduce, all_gather, reduce_scatter, "
                                "broadcast, all_to_all, reduce or send_recv)",
                                text));
}

double bus_bandwidth_factor(CollectiveOp op, uint32_t ranks) {
  double n = ranks;
  switch (op) {
    case CollectiveOp::all_reduce:
      return 2.0 * (n - 1) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all:
      return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
    case CollectiveOp::send_recv:
      return 1.0;
  }
  return 1.0;
}

}  // namespace weft
