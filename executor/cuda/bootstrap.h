// How the ranks of weft-exec find each other: one process per GPU under MPI (the NCCL unique id
// goes round with MPI_Bcast), or one thread per GPU in a single process.
#pragma once

#include <barrier>
#include <memory>
#include <string>
#include <vector>

namespace weft::gpu_exec {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // among the ranks of this host: picks the GPU
  virtual void barrier() = 0;
  // Every rank calls it; `bytes` of `data` of rank `root` land in every rank's `data`.
  virtual void broadcast(void* data, size_t bytes, int root) = 0;
  // Every rank's text, at rank 0 (empty elsewhere).
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  // Whether this rank sets process-wide NCCL environment variables (one per process).
  virtual bool owns_environment() const = 0;
};

#ifdef WEFT_EXEC_HAVE_MPI
std::unique_ptr<Bootstrap> mpi_bootstrap();  // after MPI_Init
#endif

// State shared by the threads of --single-process.
struct ThreadGroup {
  explicit ThreadGroup(int n) : size(n), sync(n), slots(static_cast<size_t>(n)) {}
  int size;
  std::barrier<> sync;
  std::vector<char> shared;
  std::vector<std::string> slots;
};
std::unique_ptr<Bootstrap> thread_bootstrap(ThreadGroup& group, int rank);

}  // namespace weft::gpu_exec
