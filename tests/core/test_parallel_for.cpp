// parallel_for (sim/core/parallel_for.h): every index once, on any number of threads; the first
// exception comes back to the caller.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "sim/core/parallel_for.h"

using namespace weft;

TEST_CASE("parallel_for: every index exactly once, whatever the thread count", "[core]") {
  for (unsigned threads : {0u, 1u, 2u, 7u}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{1000}}) {
      std::vector<std::atomic<int>> calls(n);
      parallel_for(n, threads, [&](size_t i) { ++calls[i]; });
      for (size_t i = 0; i < n; ++i) CHECK(calls[i] == 1);
    }
  }
}

TEST_CASE("parallel_for: an exception from a job is rethrown after the threads stop", "[core]") {
  std::atomic<size_t> ran{0};
  auto job = [&](size_t i) {
    ++ran;
    if (i == 5) throw std::runtime_error("job 5 failed");
  };
  CHECK_THROWS_WITH(parallel_for(100, 2, job), "job 5 failed");
  CHECK(ran >= 6);
  CHECK_THROWS_WITH(parallel_for(100, 1, job), "job 5 failed");
}
