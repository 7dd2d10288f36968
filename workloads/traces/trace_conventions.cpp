#include "workloads/traces/trace_conventions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

#include "sim/core/errors.h"
#include "sim/core/names.h"

namespace weft {

std::optional<CollectiveOp> collective_from_chakra(int64_t comm_type) {
  switch (comm_type) {
    case kChakraAllReduce:
      return CollectiveOp::all_reduce;
    case kChakraReduce:
      return CollectiveOp::reduce;
    case kChakraAllGather:
      return CollectiveOp::all_gather;
    case kChakraBroadcast:
      return CollectiveOp::broadcast;
    case kChakraAllToAll:
      return CollectiveOp::all_to_all;
    case kChakraReduceScatter:
    case kChakraReduceScatterBlock:
      return CollectiveOp::reduce_scatter;
    default:
      return std::nullopt;
  }
}

int64_t chakra_comm_type(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce:
      return kChakraAllReduce;
    case CollectiveOp::reduce:
      return kChakraReduce;
    case CollectiveOp::all_gather:
      return kChakraAllGather;
    case CollectiveOp::broadcast:
      return kChakraBroadcast;
    case CollectiveOp::all_to_all:
      return kChakraAllToAll;
    case CollectiveOp::reduce_scatter:
      return kChakraReduceScatter;
    case CollectiveOp::send_recv:
      break;
  }
  throw InvariantError("send_recv has no Chakra collective type");
}

Bytes nccl_bytes_from_chakra(CollectiveOp op, uint64_t comm_size, uint32_t ranks) {
  if (op == CollectiveOp::all_gather) return Bytes(comm_size * std::max<uint32_t>(ranks, 1));
  return Bytes(comm_size);
}

uint64_t chakra_size_from_nccl(CollectiveOp op, Bytes bytes, uint32_t ranks) {
  if (op == CollectiveOp::all_gather) return bytes.count() / std::max<uint32_t>(ranks, 1);
  return bytes.count();
}

Bytes nccl_bytes_from_kineto(CollectiveOp op, uint64_t in_nelems, uint64_t out_nelems, uint32_t elem_bytes) {
  const uint64_t nelems = op == CollectiveOp::all_gather ? out_nelems : in_nelems;
  return Bytes(nelems * elem_bytes);
}

uint32_t dtype_bytes(std::string_view dtype) {
  std::string d = lowercase(dtype);
  if (d.starts_with("c10::")) d = d.substr(5);
  static constexpr std::array<std::pair<std::string_view, uint32_t>, 22> kSizes{{
      {"float", 4},    {"float32", 4},     {"double", 8}, {"float64", 8},       {"half", 2},          {"float16", 2},
      {"bfloat16", 2}, {"int", 4},         {"int32", 4},  {"long", 8},          {"long int", 8},      {"int64", 8},
      {"short", 2},    {"int16", 2},       {"byte", 1},   {"uint8", 1},         {"unsigned char", 1}, {"char", 1},
      {"int8", 1},     {"signed char", 1}, {"bool", 1},   {"float8_e4m3fn", 1},
  }};
  for (const auto& [name, size] : kSizes) {
    if (d == name) return size;
  }
  return 0;
}

std::optional<CollectiveOp> collective_from_name(std::string_view name) {
  std::string n = lowercase(name);
  std::erase(n, '_');
  // Order matters: "reducescatter" before "reduce", "allreduce" before "reduce".
  static constexpr std::array<std::pair<std::string_view, CollectiveOp>, 8> kNames{{
      {"allreduce", CollectiveOp::all_reduce},
      {"reducescatter", CollectiveOp::reduce_scatter},
      {"allgather", CollectiveOp::all_gather},
      {"alltoall", CollectiveOp::all_to_all},
      {"broadcast", CollectiveOp::broadcast},
      {"reduce", CollectiveOp::reduce},
      {"sendrecv", CollectiveOp::send_recv},
      {"send", CollectiveOp::send_recv},
  }};
  for (const auto& [key, op] : kNames) {
    if (n.find(key) != std::string::npos) return op;
  }
  if (n.find("recv") != std::string::npos) return CollectiveOp::send_recv;
  return std::nullopt;
}

}  // namespace weft
