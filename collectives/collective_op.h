// The collective operations and the nccl-tests conventions for reporting them.
#pragma once

#include <cstdint>
#include <string_view>

namespace weft {

enum class CollectiveOp : uint8_t { all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, reduce, send_recv };

std::string_view to_string(CollectiveOp op);
// Accepts all_reduce / allreduce / all-reduce (and likewise); throws ConfigError otherwise.
CollectiveOp parse_collective_op(std::string_view text, std::string_view what = "op");

// busbw = algbw x factor (nccl-tests doc/PERFORMANCE.md): all-reduce 2(n-1)/n, all-gather,
// reduce-scatter and all-to-all (n-1)/n, broadcast, reduce and send/recv 1.
double bus_bandwidth_factor(CollectiveOp op, uint32_t ranks);

}  // namespace weft
