// α-β per path, no contention: a transfer takes path latency + bytes / bottleneck rate, whatever
// else is on the wire. For sanity checks and huge sweeps. Transfers of one queue pair (src,
// entropy) still leave one after another, as in the flow fabric; NVLink transfers are striped and
// groups (NVLS, SHARP) run over their reducing switches as in flow, so analytic is never slower.
#pragma once

#include <unordered_map>
#include <vector>

#include "sim/batch_calendar.h"
#include "sim/fabric.h"
#include "sim/group_paths.h"
#include "sim/queue_pair.h"
#include "sim/stripes.h"
#include "topologies/routing.h"

namespace weft {

class AnalyticFabric final : public Fabric {
 public:
  AnalyticFabric(Engine& engine, Router& router, Recorder& recorder);

  std::string_view name() const override { return "analytic"; }
  TransferId start(const Transfer& transfer, OnTransferDone on_done) override;
  TransferId start_group(const GroupTransfer& group, OnTransferDone on_done) override;
  bool path_determined() const override { return true; }
  FabricStats stats() const override { return stats_; }

 private:
  struct Pending {
    Transfer transfer;
    TransferId id;
    Time start;
    OnTransferDone on_done;
  };
  TransferId start_on(const Path& path, const Transfer& transfer, OnTransferDone on_done);
  // start_on as PartJoin takes it.
  auto starter() {
    return
        [this](const Path& path, const Transfer& t, OnTransferDone done) { return start_on(path, t, std::move(done)); };
  }
  void finish(const std::vector<uint64_t>& slots);

  Engine& engine_;
  Router& router_;
  Recorder& recorder_;
  BatchCalendar calendar_;
  std::vector<Pending> pending_;  // by slot
  std::vector<uint32_t> free_slots_;
  std::unordered_map<QueuePairKey, Time, QueuePairKeyHash> sender_free_at_;  // when each QP's last byte leaves
  uint64_t next_id_ = 0;
  FabricStats stats_;
  PartJoin joins_;  // of striped transfers and groups' stripes
  GroupPaths groups_{router_};
};

}  // namespace weft
