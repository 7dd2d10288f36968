// The packet fabric's stall watchdog and end-of-run checks (see packet_fabric.h). A PFC deadlock
// keeps pause refreshes going for ever, so the run would never end: every deadlock_timeout the
// watchdog looks whether any packet started on a link since the last look; if packets wait and none
// moved, it names the paused ports that wait on each other and stops the run.
#include <fmt/format.h>
#include <functional>

#include "sim/core/errors.h"
#include "sim/packet/packet_fabric.h"

namespace weft {

void PacketFabric::arm_watchdog() {
  if (watchdog_armed_) return;
  watchdog_armed_ = true;
  engine_.schedule_at(engine_.now() + config_.deadlock_timeout, [this] { watchdog(); });
}

void PacketFabric::watchdog() {
  watchdog_armed_ = false;
  bool active = stats_.transfers_done < stats_.transfers_started;
  if (!active) return;
  if (in_network_ > 0 && engine_.now() - last_progress_ >= config_.deadlock_timeout) {
    stats_.deadlocked = true;
    throw ModelError(describe_stall());
  }
  arm_watchdog();
}

// A port waits on the egress ports of the node it feeds that hold packets and are paused; a cycle
// of such waits is a PFC deadlock. Without one, list what is stuck.
std::string PacketFabric::describe_stall() {
  const Topology& t = router_.topology();
  auto name = [&](LinkId l) { return fmt::format("{}->{}", t.node(ports_[l].from).name, t.node(ports_[l].to).name); };
  auto stuck = [&](const Port& p) {
    for (int pr = 0; pr < packet::kPriorities; ++pr) {
      if (!p.queue[pr].empty() && p.paused_until[pr] > engine_.now()) return true;
    }
    return false;
  };
  std::vector<int> state(ports_.size(), 0);  // 0 unseen, 1 on the stack, 2 done
  std::vector<LinkId> stack;
  std::vector<LinkId> cycle;
  const TopologyGraph& g = t.graph();
  std::function<bool(LinkId)> visit = [&](LinkId l) {
    state[l] = 1;
    stack.push_back(l);
    for (auto [e, end] = boost::out_edges(ports_[l].to, g); e != end; ++e) {
      LinkId next = g[*e].id;
      if (!stuck(ports_[next])) continue;
      if (state[next] == 1) {
        cycle.assign(std::find(stack.begin(), stack.end(), next), stack.end());
        return true;
      }
      if (state[next] == 0 && visit(next)) return true;
    }
    stack.pop_back();
    state[l] = 2;
    return false;
  };
  for (LinkId l = 0; l < ports_.size() && cycle.empty(); ++l) {
    if (state[l] == 0 && stuck(ports_[l])) visit(l);
  }
  if (!cycle.empty()) {
    std::string ring;
    for (LinkId l : cycle) ring += name(l) + " -> ";
    ring += name(cycle.front());
    return fmt::format(
        "packet fabric: PFC deadlock at {}: paused ports wait on each other in a cycle: {} "
        "(no packet moved for {} us)",
        engine_.now().microseconds(), ring, config_.deadlock_timeout.microseconds());
  }
  std::string waiting;
  int listed = 0;
  for (LinkId l = 0; l < ports_.size() && listed < 8; ++l) {
    if (queued_bytes(l) > 0) {
      waiting += fmt::format("{}{} ({} B queued)", listed ? ", " : "", name(l), queued_bytes(l));
      ++listed;
    }
  }
  return fmt::format(
      "packet fabric: stalled at {} us with {} packets in the network and {} of {} transfers "
      "unfinished; waiting ports: {}",
      engine_.now().microseconds(), in_network_, stats_.transfers_started - stats_.transfers_done,
      stats_.transfers_started, waiting.empty() ? "none" : waiting);
}

void PacketFabric::run(Engine& engine) {
  engine.run();
  if (stats_.transfers_done < stats_.transfers_started) throw ModelError(describe_stall());
  if (!check_) return;
  for (const Port& p : ports_) {
    WEFT_ASSERT(!p.busy);
    for (int pr = 0; pr < packet::kPriorities; ++pr) WEFT_ASSERT(p.queue[pr].empty() && p.ingress[pr] == 0);
  }
  for (uint64_t used : buffer_used_) WEFT_ASSERT(used == 0);
  WEFT_ASSERT(in_network_ == 0);
}

FabricStats PacketFabric::stats() const { return stats_; }

}  // namespace weft
