#include "executor/cuda/bootstrap.h"

#include <cstring>

#ifdef WEFT_EXEC_HAVE_MPI
#include <mpi.h>
#endif

namespace weft::gpu_exec {
namespace {

#ifdef WEFT_EXEC_HAVE_MPI
class MpiBootstrap : public Bootstrap {
 public:
  MpiBootstrap() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm local = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &local_rank_);
    MPI_Comm_free(&local);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  void broadcast(void* data, size_t bytes, int root) override {
    MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, MPI_COMM_WORLD);
  }
  std::vector<std::string> gather(const std::string& mine) override {
    const int n = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_));
    MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    int total = 0;
    for (int i = 0; i < size_; ++i) {
      offsets[static_cast<size_t>(i)] = total;
      total += counts[static_cast<size_t>(i)];
    }
    if (rank_ == 0) all.resize(static_cast<size_t>(total));
    MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), counts.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> out;
    if (rank_ != 0) return out;
    for (int i = 0; i < size_; ++i) {
      out.push_back(all.substr(static_cast<size_t>(offsets[static_cast<size_t>(i)]),
                               static_cast<size_t>(counts[static_cast<size_t>(i)])));
    }
    return out;
  }
  bool owns_environment() const override { return true; }

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};
#endif

class ThreadBootstrap : public Bootstrap {
 public:
  ThreadBootstrap(ThreadGroup& g, int rank) : g_(g), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return g_.size; }
  int local_rank() const override { return rank_; }
  void barrier() override { g_.sync.arrive_and_wait(); }
  void broadcast(void* data, size_t bytes, int root) override {
    g_.sync.arrive_and_wait();
    if (rank_ == root) g_.shared.assign(static_cast<char*>(data), static_cast<char*>(data) + bytes);
    g_.sync.arrive_and_wait();
    if (rank_ != root) std::memcpy(data, g_.shared.data(), bytes);
    g_.sync.arrive_and_wait();
  }
  std::vector<std::string> gather(const std::string& mine) override {
    g_.slots[static_cast<size_t>(rank_)] = mine;
    g_.sync.arrive_and_wait();
    std::vector<std::string> out;
    if (rank_ == 0) out = g_.slots;
    g_.sync.arrive_and_wait();
    return out;
  }
  bool owns_environment() const override { return rank_ == 0; }

 private:
  ThreadGroup& g_;
  int rank_;
};

}  // namespace

#ifdef WEFT_EXEC_HAVE_MPI
std::unique_ptr<Bootstrap> mpi_bootstrap() { return std::make_unique<MpiBootstrap>(); }
#endif

std::unique_ptr<Bootstrap> thread_bootstrap(ThreadGroup& group, int rank) {
  return std::make_unique<ThreadBootstrap>(group, rank);
}

}  // namespace weft::gpu_exec
