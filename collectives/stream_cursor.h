// Walks a run-length-encoded Stream one step at a time, in O(1) per step.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.h"

namespace weft {

class StreamCursor {
 public:
  bool has_step(const Stream& s) const { return run_ < s.runs.size(); }
  const StepRun& run(const Stream& s) const { return s.runs[run_]; }
  uint64_t index() const { return index_; }  // absolute index of the current step

  // True when the current step's cross-stream dependency (if any) is done; `done_of(i)` counts the
  // finished steps of stream i (steps finish in program order).
  template <class DoneOf>
  bool dependency_met(const Stream& s, const DoneOf& done_of) const {
    const StepRun& r = s.runs[run_];
    return met(r.wait_stream, r.wait_offset, done_of) && met(r.also_wait_stream, r.also_wait_offset, done_of);
  }

  void advance(const Stream& s) {
    ++index_;
    if (++in_run_ == s.runs[run_].count) {
      ++run_;
      in_run_ = 0;
    }
  }

 private:
  template <class DoneOf>
  bool met(int32_t stream, int32_t offset, const DoneOf& done_of) const {
    if (stream < 0) return true;
    int64_t target = static_cast<int64_t>(index_) + offset;
    return target < 0 || static_cast<int64_t>(done_of(static_cast<uint32_t>(stream))) > target;
  }

  size_t run_ = 0;
  uint32_t in_run_ = 0;
  uint64_t index_ = 0;
};

}  // namespace weft
