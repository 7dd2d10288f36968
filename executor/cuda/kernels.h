// Device code of weft-exec (kernels.cu, compiled by nvcc): a kernel that holds its stream for a
// fixed time, for compute ops lowered as durations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

extern "C" cudaError_t weft_launch_spin(uint64_t nanoseconds, cudaStream_t stream);
