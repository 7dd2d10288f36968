// Writes any Workload as Chakra ETs, one `prefix.{rank}.et` per rank, in the varint-delimited
// protobuf stream our reader (and ASTRA-sim) reads: GlobalMetadata{version}, then one Node per op.
//
// Node ids are numbered across the whole workload, rank after rank, in op order (ASTRA-sim's
// microbenchmark generator does the same: the one node of all_reduce.r.et has id r). Each node
// carries is_cpu_op = false first; collectives comm_type and comm_size (Chakra's per-rank input:
// nccl-tests' all-gather size / n); sends comm_size, comm_dst, comm_tag; recvs comm_size, comm_src,
// comm_tag; compute duration_micros (rounded to the nearest us) and num_ops when FLOPs are known.
// data_deps hold the op's dependencies plus its predecessor on the same stream (an ET has no
// streams). When the workload has more than one communicator, or one that is not all ranks,
// collectives carry pg_name = communicator index and `prefix.comm_group.json` maps those names to
// ranks (ASTRA-sim's --comm-group-configuration).
#pragma once

#include <string>
#include <vector>

#include "workloads/program.h"

namespace weft {

struct ChakraWriteOptions {
  std::string version = "0.0.4";  // GlobalMetadata.version, as ASTRA-sim's generators write it
  std::string schema;             // a GlobalMetadata `schema` attr when not empty ("1.0.2-chakra.0.0.4")
};

// Returns the files written (rank files, then the comm-group file if any). ConfigError when a file
// cannot be written.
std::vector<std::string> write_chakra_trace(const Workload& workload, const std::string& prefix,
                                            const ChakraWriteOptions& options = {});

}  // namespace weft
