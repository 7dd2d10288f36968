#include "executor/cuda/kernels.h"

namespace {

// One thread reads the global nanosecond timer (PTX %globaltimer) until `ns` have passed: the
// stream is busy for the op's duration whatever the clock speed.
__global__ void spin(uint64_t ns) {
  uint64_t start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

}  // namespace

extern "C" cudaError_t weft_launch_spin(uint64_t nanoseconds, cudaStream_t stream) {
  spin<<<1, 1, 0, stream>>>(nanoseconds);
  return cudaGetLastError();
}
