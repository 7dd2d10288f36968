// An allocator for large arrays read in random order (the flow fabric's per-flow solve state): it
// asks Linux for transparent huge pages on blocks of 2 MiB and more, so that a component's tens of
// thousands of flows sit behind a few TLB entries instead of thousands. Elsewhere, or when the
// kernel says no, it is plain aligned memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace weft {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHugePage = size_t{2} << 20;  // bytes, x86-64's huge page

  HugePageAllocator() = default;
  template <class U>
  explicit HugePageAllocator(const HugePageAllocator<U>& /*other*/) {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    const size_t align = bytes >= kHugePage ? kHugePage : std::max<size_t>(alignof(T), alignof(std::max_align_t));
    void* p = std::aligned_alloc(align, (bytes + align - 1) / align * align);
    if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= kHugePage) madvise(p, bytes, MADV_HUGEPAGE);  // advice only: ignore a refusal
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t /*n*/) { std::free(p); }

  template <class U>
  bool operator==(const HugePageAllocator<U>& /*other*/) const {
    return true;
  }
};

}  // namespace weft
