// A move-only callable stored inline: scheduling an event never allocates on the heap.
// A callable larger than Capacity fails to compile rather than silently allocating.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace weft {

template <typename Signature, size_t Capacity = 48>
class InlineFunction;

template <typename R, typename... Args, size_t Capacity>
class InlineFunction<R(Args...), Capacity> {
 public:
  InlineFunction() = default;

  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InlineFunction>>>
  InlineFunction(F&& f) {  // NOLINT(google-explicit-constructor): used like std::function
    emplace(std::forward<F>(f));
  }

  InlineFunction(InlineFunction&& other) noexcept { take(other); }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { reset(); }

  // Replaces the held callable with `f`, built in place: no temporary to copy from (a copy of one
  // just built reads its bytes before the stores that wrote them have landed: perf showed the stall).
  template <typename F>
  void emplace(F&& f) {
    if constexpr (std::is_same_v<std::decay_t<F>, InlineFunction>) {
      *this = std::forward<F>(f);
    } else {
      reset();
      using Fn = std::decay_t<F>;
      static_assert(sizeof(Fn) <= Capacity, "callable too large for InlineFunction; capture less");
      static_assert(alignof(Fn) <= alignof(std::max_align_t));
      static_assert(std::is_nothrow_move_constructible_v<Fn>);
      new (storage_) Fn(std::forward<F>(f));
      ops_ = &kOps<Fn>;
    }
  }

  explicit operator bool() const { return ops_ != nullptr; }
  R operator()(Args... args) { return ops_->invoke(storage_, std::forward<Args>(args)...); }

  void reset() {
    if (ops_ && !ops_->trivial) ops_->destroy(storage_);
    ops_ = nullptr;
  }

 private:
  struct Ops {
    R (*invoke)(void*, Args&&...);
    void (*move)(void* from, void* to);
    void (*destroy)(void*);
    // Copied as bytes and never destroyed (most callables: a `this` and a few integers), so that
    // moving one, as the engine does twice per event, costs no indirect call.
    bool trivial;
  };

  template <typename Fn>
  static constexpr Ops kOps = {
      [](void* p, Args&&... args) -> R { return (*static_cast<Fn*>(p))(std::forward<Args>(args)...); },
      [](void* from, void* to) {
        new (to) Fn(std::move(*static_cast<Fn*>(from)));
        static_cast<Fn*>(from)->~Fn();
      },
      [](void* p) { static_cast<Fn*>(p)->~Fn(); },
      (std::is_trivially_copyable_v<Fn> && std::is_trivially_destructible_v<Fn>),
  };

  void take(InlineFunction& other) {
    if (other.ops_) {
      if (other.ops_->trivial) {
        std::memcpy(storage_, other.storage_, Capacity);
      } else {
        other.ops_->move(other.storage_, storage_);
      }
      ops_ = other.ops_;
      other.ops_ = nullptr;
    }
  }

  alignas(std::max_align_t) unsigned char storage_[Capacity];
  const Ops* ops_ = nullptr;
};

}  // namespace weft
