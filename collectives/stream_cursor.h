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

  // True when the current step's cross-stream dependency (if any) is done; `done[i]` counts the
  // finished steps of stream i (steps finish in program order).
  bool dependency_met(const Stream& s, const std::vector<uint64_t>& done) const {
    const StepRun& r = s.runs[run_];
    return met(r.wait_stream, r.wait_offset, done) && met(r.also_wait_stream, r.also_wait_offset, done);
  }

  void advance(const Stream& s) {
    ++index_;
    if (++in_run_ == s.runs[run_].count) {
      ++run_;
      in_run_ = 0;
    }
  }

 private:
  bool met(int32_t stream, int32_t offset, const std::vector<uint64_t>& done) const {
    if (stream < 0) return true;
    int64_t target = static_cast<int64_t>(index_) + offset;
    return target < 0 || static_cast<int64_t>(done[static_cast<size_t>(stream)]) > target;
  }

  size_t run_ = 0;
  uint32_t in_run_ = 0;
  uint64_t index_ = 0;
};

}  // namespace weft
