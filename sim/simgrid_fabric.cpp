#include "sim/simgrid_fabric.h"

#include "sim/simgrid_setup.h"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include <fmt/format.h>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <deque>
#include <exception>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/core/errors.h"
#include "sim/group_paths.h"
#include "sim/queue_pair.h"
#include "sim/simgrid_rate_caps.h"
#include "sim/stripes.h"

namespace weft {
namespace {

namespace sg4 = simgrid::s4u;
namespace sgr = simgrid::kernel::routing;

// SimGrid's engine cannot be created again in a process once it existed: this flag guards that
// process-wide resource, it holds no simulation state.
std::atomic<bool> simgrid_used{false};

// SimGrid time is double seconds, ours integer picoseconds. Below ~100 s a double resolves far less
// than 1 ps, so rounding to the nearest picosecond is exact for the times SimGrid computes from ours.
int64_t to_ps(double seconds) { return std::llround(seconds * 1e12); }
double to_seconds(int64_t ps) { return static_cast<double>(ps) * 1e-12; }

// A zone whose route for a transfer is the weft Path chosen for it (ECMP by entropy included), not a
// per-(src, dst) table: SimGrid asks for the route once, synchronously, when a communication starts,
// so the fabric names the path right before starting it and checks right after that it was taken.
class PathZone final : public sgr::NetZoneImpl {
 public:
  explicit PathZone(const std::vector<sg4::Link*>& links) : NetZoneImpl("weft"), links_(links) {}

  // The next route asked is `path`, plus `cap` (a sender's rate limit, no latency) when not null.
  void offer(const Path& path, sg4::Link* cap) {
    next_ = &path;
    cap_ = cap;
  }
  bool taken() const { return next_ == nullptr; }

  void get_local_route(const sgr::NetPoint* /*src*/, const sgr::NetPoint* /*dst*/, sgr::Route* into,
                       double* /*latency*/) override {
    WEFT_ASSERT(next_ != nullptr);  // a route asked outside a start: SimGrid changed how it routes
    for (LinkId l : next_->links) into->link_list_.push_back(links_[l]->get_impl());
    if (cap_ != nullptr) into->link_list_.push_back(cap_->get_impl());
    next_ = nullptr;
  }

 private:
  const std::vector<sg4::Link*>& links_;  // by LinkId
  const Path* next_ = nullptr;
  sg4::Link* cap_ = nullptr;
};

}  // namespace

bool simgrid_fabric_used() { return simgrid_used.load(); }

class SimGridFabric::Impl {
 public:
  Impl(Engine& engine, Router& router, Recorder& recorder);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  TransferId start(const Transfer& transfer, OnTransferDone on_done);
  TransferId start_group(const GroupTransfer& group, OnTransferDone on_done);
  FabricStats stats() const { return stats_; }
  void run(Engine& engine);

 private:
  struct QueuePair {
    bool busy = false;             // a transfer of this QP is in SimGrid
    std::deque<uint32_t> waiting;  // slots started behind it, in order
  };
  struct Pending {
    Transfer transfer;
    TransferId id = 0;
    Time start;
    OnTransferDone on_done;
    const Path* path = nullptr;
    QueuePair* queue_pair = nullptr;   // map nodes never move
    sg4::CommPtr comm;                 // while SimGrid carries it
    sg4::Link* private_cap = nullptr;  // its own rate-limit link, back to the pool when it completes
  };

  void build_platform();
  TransferId start_on(const Path& path, const Transfer& transfer, OnTransferDone on_done);
  // start_on as PartJoin takes it.
  auto starter() {
    return
        [this](const Path& path, const Transfer& t, OnTransferDone done) { return start_on(path, t, std::move(done)); };
  }
  uint32_t allocate(const Transfer& transfer, OnTransferDone on_done, const Path& path);
  void launch(uint32_t slot);
  void on_completion(const sg4::Activity& activity);
  void on_timer(int64_t at);
  void catch_up(int64_t at);
  void arm();
  void complete(uint32_t slot);
  void finish(uint32_t slot);
  void fail(std::exception_ptr error);
  template <typename F>
  void guarded(F&& body);

  Engine& engine_;
  Router& router_;
  Recorder& recorder_;
  simgrid_setup::EngineArgs args_{"weft-simgrid-fabric"};
  std::unique_ptr<sg4::Engine> simgrid_;
  PathZone* zone_ = nullptr;                    // owned by SimGrid (its engine deletes the root zone)
  std::vector<sg4::Host*> hosts_;               // by NodeIndex
  std::vector<sg4::Link*> links_;               // by LinkId
  std::unique_ptr<SimGridRateCaps> rate_caps_;  // senders' limits as links (sim/simgrid_rate_caps.h)
  std::vector<Pending> pending_;                // by slot
  std::vector<uint32_t> free_slots_;
  std::unordered_map<const sg4::Activity*, uint32_t> in_simgrid_;  // the comms SimGrid carries -> slot
  std::unordered_map<QueuePairKey, QueuePair, QueuePairKeyHash> queue_pairs_;
  // Completed comms, released at the next callback: SimGrid still uses a comm after its completion
  // signal returns, so ours must not be the last reference dropped inside it.
  std::vector<sg4::CommPtr> retired_;
  std::vector<int64_t> armed_;  // ps of the SimGrid timers set and not fired yet, latest first
  std::exception_ptr failure_;  // thrown inside a SimGrid callback, rethrown by run()
  PartJoin joins_;              // of striped transfers and groups' stripes
  GroupPaths groups_{router_};
  bool closing_ = false;
  uint64_t next_id_ = 0;
  FabricStats stats_;
};

SimGridFabric::Impl::Impl(Engine& engine, Router& router, Recorder& recorder)
    : engine_(engine), router_(router), recorder_(recorder) {
  if (simgrid_used.exchange(true) || sg4::Engine::is_initialized()) {
    throw ModelError("the simgrid fabric can run once per process: SimGrid's engine is a singleton");
  }
  simgrid_ = std::make_unique<sg4::Engine>(args_.argc(), args_.argv());
  simgrid_setup::configure_pure_max_min();
  build_platform();
  simgrid_setup::check_pure_max_min();
  sg4::Activity::on_completion_cb([this](const sg4::Activity& a) { on_completion(a); });
}

SimGridFabric::Impl::~Impl() {
  closing_ = true;  // from now on, completion signals (of cancelled comms) are ignored
  for (Pending& p : pending_) {
    if (p.comm && p.comm->get_state() == sg4::Activity::State::STARTED) p.comm->cancel();
  }
  pending_.clear();
  retired_.clear();
  simgrid_.reset();  // shuts SimGrid down, zones and links included
}

// One host per topology node (switches too: they only anchor links) and one SHARED link per directed
// weft link, at the link's goodput: the payload rate, as `flow` uses. The links have no latency:
// a transfer's path latency is added after its last byte left, as in `flow` (see the header).
void SimGridFabric::Impl::build_platform() {
  zone_ = new PathZone(links_);  // the first zone becomes SimGrid's root, which SimGrid deletes
  sg4::NetZone* zone = zone_->get_iface();
  const Topology& topology = router_.topology();
  for (NodeIndex n = 0; n < topology.node_count(); ++n) {
    sg4::Host* host = zone->create_host(fmt::format("node-{}", n), 1.0)->seal();  // flop/s, unused
    WEFT_ASSERT(host->get_netpoint()->id() == n);
    hosts_.push_back(host);
  }
  for (LinkId l = 0; l < topology.link_count(); ++l) {
    const LinkProps& props = topology.link(l);
    const uint64_t bps = props.goodput().bps();
    if (bps == 0) throw ModelError(fmt::format("simgrid fabric: link {} has no bandwidth", l));
    sg4::Link* link = zone->create_link(fmt::format("link-{}", l), static_cast<double>(bps) / 8.0);  // bytes/s
    link->set_sharing_policy(sg4::Link::SharingPolicy::SHARED);
    links_.push_back(link->seal());
  }
  rate_caps_ = std::make_unique<SimGridRateCaps>(*zone);
  zone->seal();
}

uint32_t SimGridFabric::Impl::allocate(const Transfer& transfer, OnTransferDone on_done, const Path& path) {
  uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(pending_.size());
    pending_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Pending& p = pending_[slot];
  p.transfer = transfer;
  p.id = next_id_++;
  p.start = engine_.now();
  p.on_done = std::move(on_done);
  p.path = &path;
  p.queue_pair = nullptr;
  p.private_cap = nullptr;
  return slot;
}

// A transfer between GPUs on NVSwitches interleaves over every NVLink path, as in flow (sim/stripes.h).
TransferId SimGridFabric::Impl::start(const Transfer& transfer, OnTransferDone on_done) {
  return joins_.start(router_, transfer, std::move(on_done), starter());
}

// As flow's: one part per reducing switch over the union of the group's links through it
// (sim/group_paths.h), in its own queue pair.
TransferId SimGridFabric::Impl::start_group(const GroupTransfer& group, OnTransferDone on_done) {
  return joins_.start_group(groups_.stripes(group), group, std::move(on_done), starter());
}

TransferId SimGridFabric::Impl::start_on(const Path& path, const Transfer& transfer, OnTransferDone on_done) {
  const uint32_t slot = allocate(transfer, std::move(on_done), path);
  const TransferId id = pending_[slot].id;
  ++stats_.transfers_started;
  if (path.links.empty() || transfer.bytes.count() == 0) {
    // Nothing to share: it arrives one path latency later; SimGrid is not involved.
    engine_.schedule_at(engine_.now() + path.latency, [this, slot] { finish(slot); });
    return id;
  }
  QueuePair& qp = queue_pairs_[{transfer.src, transfer.entropy}];
  pending_[slot].queue_pair = &qp;
  if (qp.busy) {
    qp.waiting.push_back(slot);
  } else {
    qp.busy = true;
    launch(slot);
  }
  return id;
}

void SimGridFabric::Impl::launch(uint32_t slot) {
  Pending& p = pending_[slot];
  const double clock = sg4::Engine::get_clock();
  if (to_ps(clock) != engine_.now().ps()) {
    throw ModelError(
        fmt::format("simgrid fabric: transfer started at {} ps while SimGrid is at {} s; drive the "
                    "simulation with the fabric's run()",
                    engine_.now().ps(), clock));
  }
  zone_->offer(*p.path, p.transfer.max_rate > 0 ? rate_caps_->take(p.transfer.max_rate, p.private_cap) : nullptr);
  p.comm = sg4::Comm::sendto_init(hosts_[p.transfer.src], hosts_[p.transfer.dst]);
  p.comm->set_payload_size(p.transfer.bytes.count());
  p.comm->start();
  WEFT_ASSERT(zone_->taken());  // SimGrid routed it now, over p.path
  in_simgrid_.emplace(p.comm.get(), slot);
}

// SimGrid's signal for every activity that ends (in its kernel, at its clock = the completion time).
void SimGridFabric::Impl::on_completion(const sg4::Activity& activity) {
  if (closing_ || failure_) return;
  retired_.clear();
  auto it = in_simgrid_.find(&activity);
  if (it == in_simgrid_.end()) return;  // not one of ours
  const uint32_t slot = it->second;
  in_simgrid_.erase(it);
  guarded([&] {
    WEFT_ASSERT(activity.get_state() == sg4::Activity::State::FINISHED);
    const int64_t at = to_ps(sg4::Engine::get_clock());
    catch_up(at);
    complete(slot);
    catch_up(at);  // what the completion scheduled for this very instant
    arm();
  });
}

// A SimGrid timer set by arm(): the weft engine's next event is due.
void SimGridFabric::Impl::on_timer(int64_t at) {
  retired_.clear();
  WEFT_ASSERT(!armed_.empty() && armed_.back() == at);
  armed_.pop_back();
  if (failure_) return;
  guarded([&] {
    catch_up(at);
    arm();
  });
}

// Runs the weft engine's events up to `at` (ps), which is SimGrid's time now.
void SimGridFabric::Impl::catch_up(int64_t at) {
  WEFT_ASSERT(at >= engine_.now().ps());  // neither clock ever goes back
  engine_.run(Time::ps(at));
}

// Makes sure SimGrid stops at the weft engine's next event. SimGrid never advances past a timer, so
// the engine's events all run at their own time; timers only ever need to be set earlier than the
// earliest one pending (a later one is covered by it: its callback arms again).
void SimGridFabric::Impl::arm() {
  const Time next = engine_.next_time();
  if (next == Time::max()) return;
  if (!armed_.empty() && armed_.back() <= next.ps()) return;
  armed_.push_back(next.ps());
  simgrid::kernel::timer::Timer::set(to_seconds(next.ps()), [this, at = next.ps()] { on_timer(at); });
}

// The transfer's last byte left its sender: the next transfer of its queue pair enters SimGrid, and
// the transfer arrives one path latency later.
void SimGridFabric::Impl::complete(uint32_t slot) {
  Pending& p = pending_[slot];
  retired_.push_back(std::move(p.comm));
  if (p.private_cap != nullptr) rate_caps_->give_back(std::exchange(p.private_cap, nullptr));
  QueuePair& qp = *p.queue_pair;
  if (qp.waiting.empty()) {
    qp.busy = false;  // kept (not erased): the same QP usually sends again soon
  } else {
    const uint32_t next = qp.waiting.front();
    qp.waiting.pop_front();
    launch(next);
  }
  engine_.schedule_at(engine_.now() + p.path->latency, [this, slot] { finish(slot); });
}

void SimGridFabric::Impl::finish(uint32_t slot) {
  Pending& p = pending_[slot];
  count_delivered(stats_, recorder_, p.id, p.transfer, p.start, engine_.now());
  OnTransferDone done = std::move(p.on_done);
  free_slots_.push_back(slot);
  done();  // may start transfers, which may grow pending_: p is not used after this
}

// An exception inside a SimGrid callback must not unwind through SimGrid: keep it, stop everything
// (cancelled comms end at once; armed timers then fire without effect) and let run() rethrow it.
void SimGridFabric::Impl::fail(std::exception_ptr error) {
  failure_ = std::move(error);
  for (Pending& p : pending_) {
    if (p.comm && p.comm->get_state() == sg4::Activity::State::STARTED) p.comm->cancel();
  }
}

template <typename F>
void SimGridFabric::Impl::guarded(F&& body) {
  try {
    body();
  } catch (...) {
    fail(std::current_exception());
  }
}

// No actor drives SimGrid: weft code runs in SimGrid's kernel callbacks (timers, completion signal),
// as in SimGrid's activity-graph mode. A driver actor waiting on all pending comms with
// Comm::wait_any_for would cost O(pending) per completion (3.32 has no ActivitySet), O(n^2) per ring
// step at thousands of ranks, and would bring context switching (and its sanitizer caveats) along.
void SimGridFabric::Impl::run(Engine& engine) {
  WEFT_ASSERT(&engine == &engine_);  // the fabric schedules on the engine it was built with
  arm();
  simgrid_->run();
  retired_.clear();
  if (failure_) std::rethrow_exception(failure_);
  // SimGrid returns when it has neither comms nor timers left: every weft event ran, every
  // transfer arrived.
  WEFT_ASSERT(in_simgrid_.empty() && engine_.next_time() == Time::max());
}

SimGridFabric::SimGridFabric(Engine& engine, Router& router, Recorder& recorder)
    : impl_(std::make_unique<Impl>(engine, router, recorder)) {}

SimGridFabric::~SimGridFabric() = default;

TransferId SimGridFabric::start(const Transfer& transfer, OnTransferDone on_done) {
  return impl_->start(transfer, std::move(on_done));
}

TransferId SimGridFabric::start_group(const GroupTransfer& group, OnTransferDone on_done) {
  return impl_->start_group(group, std::move(on_done));
}

FabricStats SimGridFabric::stats() const { return impl_->stats(); }

void SimGridFabric::run(Engine& engine) { impl_->run(engine); }

}  // namespace weft
