// How trace fields become Op fields: Chakra comm_type numbers, the byte-size conventions of each
// producer, and element sizes of PyTorch dtypes. Sources: ../shared/reference/workloads.md §1.1
// (CollectiveCommType values, comm_size semantics), §2.2 (Kineto NCCL fields), §3.0 (nccl-tests).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "collectives/collective_op.h"
#include "sim/core/units.h"

namespace weft {

// Chakra CollectiveCommType values (et_def.proto).
inline constexpr int64_t kChakraAllReduce = 0;
inline constexpr int64_t kChakraReduce = 1;
inline constexpr int64_t kChakraAllGather = 2;
inline constexpr int64_t kChakraGather = 3;
inline constexpr int64_t kChakraScatter = 4;
inline constexpr int64_t kChakraBroadcast = 5;
inline constexpr int64_t kChakraAllToAll = 6;
inline constexpr int64_t kChakraReduceScatter = 7;
inline constexpr int64_t kChakraReduceScatterBlock = 8;
inline constexpr int64_t kChakraBarrier = 9;

// The weft collective of a Chakra comm_type; nullopt for GATHER, SCATTER, BARRIER and unknown values.
std::optional<CollectiveOp> collective_from_chakra(int64_t comm_type);
int64_t chakra_comm_type(CollectiveOp op);  // op must not be send_recv

// Chakra comm_size is the per-rank *input* (the PyTorch converter sums the input tensors; ASTRA-sim's
// Ring uses the same): only all-gather differs from nccl-tests, whose size is the total output = x n.
Bytes nccl_bytes_from_chakra(CollectiveOp op, uint64_t comm_size, uint32_t ranks);
uint64_t chakra_size_from_nccl(CollectiveOp op, Bytes bytes, uint32_t ranks);

// Kineto's `In msg nelems` / `Out msg nelems` are per rank: nccl-tests' size is the input for
// all-reduce, broadcast, reduce, reduce-scatter (total input) and all-to-all (per-rank buffer), the
// output for all-gather (total output).
Bytes nccl_bytes_from_kineto(CollectiveOp op, uint64_t in_nelems, uint64_t out_nelems, uint32_t elem_bytes);

// Bytes per element of a PyTorch dtype as profilers write it ("Float", "BFloat16", "c10::Half",
// "long int", "int", ...); 0 when unknown.
uint32_t dtype_bytes(std::string_view dtype);

// The collective a profiler name means: "allreduce", "all_reduce", "_allgather_base",
// "nccl:all_to_all", "c10d::reduce_scatter_", "AllReduce" in a kernel name...; nullopt otherwise.
std::optional<CollectiveOp> collective_from_name(std::string_view name);

}  // namespace weft
