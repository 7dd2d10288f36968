// Paths to the shared real traces (../shared/traces, SOURCES.md) and scratch folders for the tests.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "workloads/program.h"

namespace weft::test {

inline std::string traces_dir() { return WEFT_TRACES_DIR; }
inline std::string chakra_resnet() { return traces_dir() + "/chakra/resnet50_ddp_2gpu.rank0.et"; }
inline std::string astra_all_reduce() { return traces_dir() + "/astra-sim/all_reduce_8npus_1MB/all_reduce.{rank}.et"; }
inline std::string astra_ring() {
  return traces_dir() + "/astra-sim/custom_ring_allreduce_8npus_1MB/custom_allreduce.{rank}.et";
}
inline std::string kineto_resnet() { return traces_dir() + "/kineto/resnet_ddp_2gpu_a100.rank0.json.gz"; }

// A fresh folder under the system temp dir, named for the test.
inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("weft_traces_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Extracts a shared tar.gz into a scratch folder (once per process) and returns the folder.
inline std::filesystem::path extracted(const std::string& archive, const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("weft_traces_x_" + name + "_" + std::to_string(::getpid()));
  if (!std::filesystem::exists(dir / ".done")) {
    std::filesystem::create_directories(dir);
    const std::string cmd = "tar -xzf '" + traces_dir() + "/" + archive + "' -C '" + dir.string() + "' && touch '" +
                            (dir / ".done").string() + "'";
    if (std::system(cmd.c_str()) != 0) return {};
  }
  return dir;
}

// The 8 DLRM Kineto traces (one per rank, worker{r}_...json), extracted once per process.
inline std::vector<std::string> dlrm_files() {
  const auto dir = extracted("kineto/dlrm_8rank_kineto.tar.gz", "dlrm");
  std::vector<std::string> files(8);
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("worker") && name.ends_with(".json"))
      files[static_cast<size_t>(name[6] - '0')] = e.path().string();
  }
  return files;
}

// The sizes of one rank's collectives of kind `op`, as a multiset.
inline std::multiset<uint64_t> collective_bytes(const Workload& w, uint32_t rank, CollectiveOp op) {
  std::multiset<uint64_t> out;
  for (const Op& o : w.programs[rank].ops) {
    if (o.kind == OpKind::collective && o.collective == op) out.insert(o.bytes.count());
  }
  return out;
}

}  // namespace weft::test
