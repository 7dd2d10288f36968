// Flow-level fabric: every active transfer is a flow holding a max-min fair share of each directed
// link on its path. Rates are recomputed incrementally, once per instant: only the flows whose
// rate a start or a finish can move are re-solved (flow_fabric_repair.cpp), or, when that cannot be
// proved, the connected component (flows that share links, transitively) around it.
// A flow's last byte leaves the source when its bytes drain at its (changing) fair rate, and
// arrives one path latency later. Transfers of one queue pair (src, entropy) go one at a time, in
// order: the next joins the links when the previous one has drained.
// Identical flows that join the links at the same instant (same path, bytes and sender limit: the
// channels of a collective, each on its own queue pair) ride as one flow of that weight: max-min
// gives every copy the same rate (MaxMinSolver), so they drain together, and each still arrives,
// frees its queue pair and is reported on its own. A transfer with copies > 1 (the executor's
// streams that run alike, see Fabric::runs_copies) is one flow of that weight from the start.
#pragma once

#include <array>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/batch_calendar.h"
#include "sim/core/huge_page_allocator.h"
#include "sim/fabric.h"
#include "sim/group_paths.h"
#include "sim/link_quotient.h"
#include "sim/queue_pair.h"
#include "sim/same_flow_links.h"
#include "sim/stripes.h"
#include "topologies/routing.h"

namespace weft {

struct FlowFabricConfig {
  // Re-checks after every solve that no link carries more than its rate and that MaxMinSolver, the
  // reference, gives the same rates (on in tests).
  bool check_invariants = false;
};

class FlowFabric final : public Fabric {
 public:
  FlowFabric(Engine& engine, Router& router, Recorder& recorder, FlowFabricConfig config = {});

  std::string_view name() const override { return "flow"; }
  TransferId start(const Transfer& transfer, OnTransferDone on_done) override;
  TransferId start_group(const GroupTransfer& group, OnTransferDone on_done) override;
  // Remembers an unstriped transfer's route and queue pair in the memo.
  TransferId start_connected(const Transfer& transfer, OnTransferDone on_done, ConnectionMemo& memo) override;
  // Copies (see Fabric): a unicast is interchangeable when both entropies route it the same way;
  // a group always is (its stripes depend on its members only, see GroupPaths). Not while the
  // Recorder listens: it gets one record per transfer.
  bool runs_copies() const override { return !recorder_.wants(Hook::transfers); }
  bool interchangeable(NodeIndex src, NodeIndex dst, uint64_t a, uint64_t b, Bytes smallest) override;
  bool interchangeable(const GroupTransfer& group, uint64_t a, uint64_t b, Bytes smallest) override;
  bool path_determined() const override { return true; }
  // Rank images: checks the orbits' routes (LinkQuotient); then each link that stands for an orbit
  // has the orbit's capacity and every transfer runs on its path's representatives. Not while the
  // Recorder listens for link bytes (it would see the representatives only).
  bool enter_quotient(std::span<const std::vector<Transfer>> orbits) override;
  FabricStats stats() const override { return stats_; }
  // Payload each link carried (a group stripe counts once per link of its union, as the switch
  // reduces and replicates), with the headers its MTU adds: packets = payload / MTU, rounded up.
  std::vector<LinkStats> link_stats() const override;

  // Sum of the current rates of the flows crossing link `l` (bit/s).
  uint64_t link_load(LinkId l) const;

 private:
  struct Link {
    uint64_t capacity;            // bit/s
    std::vector<uint32_t> flows;  // active flows crossing this link
    uint32_t mark = 0;            // component search epoch
    // The fill's state: capacity not yet given to fixed flows (bit/s), and the weight of the
    // flows not yet fixed.
    uint64_t remaining = 0;
    uint32_t unfixed = 0;
    // Flows that the last solve of its component fixed at this link's share (the skip rules'
    // record of where each rate came from, kept as starts and finishes skip solves).
    uint32_t fixed_here = 0;
    uint32_t flow_set = 0;  // its set in the component search's SameFlowLinks
    uint128 key_sum = 0;    // of SameFlowLinks::flow_key over its flows
  };
  // A sender's queue: its flows go on the links one at a time, in start order. The waiting flows
  // form a list through Flow::next_waiting (a std::deque here cost a cache miss on its block at
  // every finish: a third of leave()'s samples on an 8,192-GPU replay).
  static constexpr uint32_t kNoFlow = UINT32_MAX;
  struct QueuePair {
    bool busy = false;         // a flow of this QP is on the links
    uint32_t first = kNoFlow;  // the next waiting flow
    uint32_t last = kNoFlow;   // the last waiting flow
  };
  // Per flow, what every solve of its component reads (the search, the solver's input, the new
  // rate), packed in two cache lines with the first links of its path: a component holds tens of
  // thousands of flows on a 256-GPU all-to-all, and reading these from Flow and the Router's paths
  // (all over the heap) missed the cache several times per flow and solve.
  static constexpr size_t kCopiedLinks = 15;
  struct alignas(64) FlowHot {
    uint128 remaining = 0;  // bits still to send, times 1e12 (bit·ps: exact arithmetic)
    uint64_t rate = 0;      // bit/s; 0 until the first solve
    int64_t updated = 0;    // ps, when `remaining` was last brought up to date
    uint64_t max_rate = 0;  // bit/s, the transfer's sender limit (0 = none)
    uint32_t mark = 0;      // component search epoch
    uint32_t weight = 1;    // copies on the links: this flow's and its followers'
    uint32_t version = 0;   // bumps when the finish time changes; stale calendar items skip
    uint32_t link_count = 0;
    uint64_t solved = 0;  // bit/s, its rate once the current fill fixed it (0: not yet)
    // What fixed its rate in the last solve: a LinkId, or kLimitKey for its own sender limit.
    uint32_t fixed_by = 0;
    std::array<LinkId, kCopiedLinks> links{};  // the path's links when it has at most kCopiedLinks
  };
  static_assert(sizeof(FlowHot) == 128);
  struct Flow {
    const Path* path = nullptr;
    QueuePair* queue_pair = nullptr;     // its sender's queue (map nodes never move)
    uint32_t next_waiting = kNoFlow;     // behind it in its queue pair, while it waits
    std::vector<uint32_t> followers;     // identical flows riding on this one (not on the links)
    std::vector<uint32_t> slot_in_link;  // position in links_[path->links[i]].flows
    Transfer transfer;
    TransferId id = 0;
    Time start;
    int64_t joined = 0;  // ps, when it joined the links (for the link timeline)
    OnTransferDone on_done;
  };
  enum class Phase : uint64_t { drained = 0, arrived = 1 };

  // The last flow that joined the links over a path, and when (ps): later identical flows of the
  // same instant ride on it.
  struct Joined {
    int64_t at = -1;
    uint32_t flow = 0;
  };

  // `queue_pair`: the transfer's, when the caller has it (null: looked up).
  TransferId start_on(const Path& path, const Transfer& transfer, OnTransferDone on_done,
                      QueuePair* queue_pair = nullptr);
  // start_on as PartJoin takes it.
  auto starter() {
    return
        [this](const Path& path, const Transfer& t, OnTransferDone done) { return start_on(path, t, std::move(done)); };
  }
  static uint64_t item(uint32_t flow, uint32_t version, Phase phase);
  uint32_t allocate_flow();
  void join_links(uint32_t f);
  void attach(uint32_t f, bool dirty = true);
  void detach(uint32_t f, bool dirty = true);
  void mark_dirty(LinkId l);
  void recompute();
  // The local repair (sim/flow_fabric_repair.cpp): re-solves only the flows whose rate this instant
  // can move; false when it cannot prove the whole component's fill would agree.
  bool repair();
  void gather_region();
  void enter_region(LinkId l);
  void free_flow(uint32_t f);
  void list_frozen();
  void fix_frozen(uint32_t f);
  bool fill_region();
  void gather_component(LinkId seed);
  void solve_component();
  // Max-min rates of the gathered component into FlowHot::solved (sim/flow_fabric_fill.cpp).
  void fill_component();
  void fix_flow(uint32_t f, uint64_t rate, uint32_t by);
  bool pops_in_fill(LinkId l) const;
  // The skip rules (sim/flow_fabric_skip.cpp): true when the flow joined or left the links without
  // a solve, every other rate provably the one a solve would give.
  bool join_without_solve(uint32_t f);
  bool leave_without_solve(uint32_t f);
  bool may_skip() const;
  // The rejoin rule (sim/flow_fabric_rejoin.cpp): true when this instant's starts put back on the
  // links, path for path, the flows its finishes took off, every rate then the one a solve gives.
  bool rejoin_without_solve();
  uint128 path_key(uint32_t f) const;
  void note_change(uint32_t f, uint32_t weight, bool joined);
  // The single flow of a component: what fixes its rate, as the fill would say.
  uint32_t alone_fixed_by(uint32_t f, uint64_t rate) const;
  // Tests: re-solves the components around `links` and checks that the skip left every rate as is.
  void check_skip(std::span<const LinkId> links);
  void list_limits();
  void rerate(uint32_t f, uint64_t rate);
  void on_due(const std::vector<uint64_t>& items);
  void drained(uint32_t f);
  // Its wire bytes (payload plus each link's headers) over [joined the links, drained], to the Recorder.
  void record(const Flow& head, uint32_t weight);
  void leave(uint32_t f);
  void arrived(uint32_t f);
  void check_component() const;

  Engine& engine_;
  Router& router_;
  Recorder& recorder_;
  FlowFabricConfig config_;
  BatchCalendar calendar_;
  std::vector<Link> links_;
  std::vector<uint64_t> link_bytes_;  // payload bytes each link has carried, by LinkId
  std::vector<Flow> flows_;
  std::span<const LinkId> links_of(uint32_t f) const {
    const FlowHot& hot = hot_[f];
    if (hot.link_count > kCopiedLinks) return flows_[f].path->links;
    return {hot.links.data(), hot.link_count};
  }
  std::vector<FlowHot, HugePageAllocator<FlowHot>> hot_;  // by flow, beside flows_
  // A component's flows lie all over hot_: the loops over them ask for the lines of the flow
  // kPrefetchAhead places on while they work on this one (a guess at a miss's latency).
  static constexpr size_t kPrefetchAhead = 8;
  void prefetch(uint32_t f) const {
    __builtin_prefetch(&hot_[f]);
    __builtin_prefetch(hot_[f].links.data());
  }
  std::vector<uint32_t> free_flows_;
  QueuePairTable<QueuePair> queue_pairs_;
  std::vector<Joined> joined_;  // by Path::id (paths without one share slot 0: join_links checks the path)
  std::vector<LinkId> dirty_;
  // Since the last consistent state (a solve or a skip): per link, the sum of path_key · weight of
  // the flows that joined minus those that left, valid while `instant` is instant_; the flows
  // that left with their rates and what fixed them; the flows that joined.
  struct LinkChange {
    uint128 delta = 0;
    uint32_t instant = 0;
  };
  struct Departed {
    const Path* path;
    uint64_t max_rate;
    uint64_t rate;
    uint32_t fixed_by;
    uint32_t weight;
  };
  std::vector<LinkChange> changes_;  // by LinkId
  std::vector<Departed> departed_;
  std::vector<uint32_t> arrivals_;
  std::vector<uint32_t> matched_;  // scratch: arrivals_[i]'s entry in departed_
  uint32_t instant_ = 1;           // counts recomputes
  bool recompute_pending_ = false;
  uint32_t epoch_ = 0;
  // scratch for one component, reused
  std::vector<LinkId> component_links_;
  std::vector<uint32_t> component_flows_;
  // A pop of the fill: (share, key) in one integer, so that its order is one compare.
  struct FillCandidate {
    uint128 packed;  // share (bit/s) << 32 | key
    FillCandidate(uint64_t share, uint32_t key) : packed(static_cast<uint128>(share) << 32 | key) {}
    uint64_t share() const { return static_cast<uint64_t>(packed >> 32); }
    // A LinkId, or kLimitKey | a limited flow's index (after every link of the same share).
    uint32_t key() const { return static_cast<uint32_t>(packed); }
  };
  static constexpr uint32_t kLimitKey = 1U << 31;
  enum class FillSource : uint8_t { none, order, heap, limit, frozen };
  FillCandidate next_candidate(FillSource* source = nullptr);
  // The fill's pops (flow_fabric_fill.cpp), shared by the whole fill and the repair.
  bool fix_at_limit(const FillCandidate& c);
  bool link_due(const FillCandidate& c, uint64_t& share);
  SameFlowLinks same_flows_;               // the component's links by their flows
  std::vector<FillCandidate> fill_order_;  // those by (first share, key)
  size_t fill_next_link_ = 0;
  size_t fill_next_limit_ = 0;
  std::vector<FillCandidate> fill_heap_;    // links back with a grown share
  std::vector<FillCandidate> fill_limits_;  // the sender limits, sorted by (share, key)
  std::vector<uint32_t> limited_flows_;     // the component's flows with a sender limit, in order
  // The repair's frozen flows, each with the pop (its rate, what fixed it) that fixes it, in order.
  struct FrozenPop {
    FillCandidate pop;
    uint32_t flow;
  };
  std::vector<FrozenPop> fill_frozen_;
  size_t fill_next_frozen_ = 0;
  std::vector<uint32_t> reweighted_;  // flows on the links whose weight grew in this instant
  std::vector<uint32_t> forced_;      // frozen flows a region link would fix: free in the next attempt
  // When the repair gives way to whole-component solves (sim/flow_fabric_repair.cpp; measured on
  // the Nemotron step and on NVL72 NVLSTree sweeps, whose instants change many links at once):
  // after kRepairAttempts; after a failed attempt over more than kRepairMaxRetried flows, free and
  // frozen (the next would read them all again); and in an instant of more than kRepairMaxChanged
  // link changes (its components would be filled as one, and a frozen flow that moves anywhere in
  // them retries them all).
  static constexpr int kRepairAttempts = 4;
  static constexpr size_t kRepairMaxRetried = 1024;
  static constexpr size_t kRepairMaxChanged = 32;
  uint64_t next_id_ = 0;
  FabricStats stats_;
  GroupPaths groups_{router_};
  PartJoin joins_;  // of striped transfers and groups' stripes
  LinkQuotient quotient_;
};

}  // namespace weft
