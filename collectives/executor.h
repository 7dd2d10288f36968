// Runs any Schedule on any Fabric: each stream issues its steps in program order as soon as the
// step's cross-stream dependency is done and the stream has a free slot (max_in_flight).
// Streams that run alike (stream_classes: e.g. the channels of NVLS) run as one when the fabric
// moves their transfers alike (Fabric::runs_copies): one stream per class issues each step with
// `copies` = the class's size, which the fabric moves as that many transfers.
#pragma once

#include <span>
#include <vector>

#include "collectives/schedule.h"
#include "collectives/stream_cursor.h"
#include "sim/fabric.h"

namespace weft {

class ScheduleExecutor {
 public:
  using OnComplete = InlineFunction<void(), 32>;

  // rank_nodes[r] is the topology node of rank r. The schedule must outlive the executor.
  ScheduleExecutor(Engine& engine, Fabric& fabric, const Schedule& schedule, std::span<const NodeIndex> rank_nodes,
                   Recorder& recorder);
  ScheduleExecutor(const ScheduleExecutor&) = delete;
  ScheduleExecutor& operator=(const ScheduleExecutor&) = delete;

  // Added to each stream's index to form its transfers' flow entropy: the fabric keeps one queue pair
  // per (sender, entropy) and hashes it for ECMP, so two collectives running at once (two NCCL
  // communicators, each with its own connections) need different bases.
  void set_entropy_base(uint64_t base) { entropy_base_ = base; }
  // Nothing else runs on this fabric (simulate(), an isolated collective): streams of ranks that are
  // images of one another may run as one (collectives/rank_images.h).
  void allow_rank_images() { rank_images_ = true; }
  // How many ranks each stream the executor ran stood for (1 unless rank images ran as one).
  uint32_t images() const { return images_; }
  // Issues the first steps now; `on_complete` runs when the last step is done.
  void start(OnComplete on_complete = {});

  bool done() const { return finished_streams_ == schedule_.streams.size(); }
  Time start_time() const { return start_time_; }
  Time end_time() const { return end_time_; }
  uint64_t steps_done() const { return steps_done_; }

 private:
  void form_classes();
  bool form_image_classes();
  bool alike(uint32_t a, uint32_t b);
  void pump(uint32_t c);
  void issue(uint32_t c, const StepRun& run, uint64_t index);
  void step_done(uint32_t c, uint64_t index);
  void finish();

  Engine& engine_;
  Fabric& fabric_;
  const Schedule& schedule_;
  std::span<const NodeIndex> rank_nodes_;
  Recorder& recorder_;
  OnComplete on_complete_;
  uint64_t entropy_base_ = 0;
  bool rank_images_ = false;
  uint32_t images_ = 1;

  // One per Schedule::groups entry, the ranks already mapped to nodes: a group step only sets the
  // bytes, entropy and tag (the fabric does not keep the struct), so it allocates nothing.
  std::vector<GroupTransfer> groups_;
  // Streams run by class (all of size 1 when the fabric does not run copies); the rest is by class.
  StreamClasses classes_;
  std::vector<StreamCursor> cursors_;        // over the lead stream's runs
  std::vector<ConnectionMemo> connections_;  // the last peer each class sent to (a ring's only one)
  std::vector<uint64_t> done_;               // steps done, a prefix in program order
  std::vector<uint64_t> done_beyond_;        // bit i = step done_ + i is done (out of order)
  std::vector<uint64_t> total_steps_;
  std::vector<uint32_t> dependent_offset_;  // CSR: classes that wait on class c
  std::vector<uint32_t> dependents_;
  size_t finished_streams_ = 0;
  uint64_t steps_done_ = 0;
  Time start_time_;
  Time end_time_;
};

}  // namespace weft
