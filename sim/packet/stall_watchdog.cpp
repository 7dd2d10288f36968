// The stall watchdog and the description of a stall (see stall_watchdog.h).
#include "sim/packet/stall_watchdog.h"

#include <fmt/format.h>
#include <algorithm>
#include <functional>

#include "sim/core/errors.h"

namespace weft::packet {

StallWatchdog::StallWatchdog(const FabricContext& c, const Egress& egress, const PfcState& pfc)
    : engine_(c.engine),
      config_(c.config),
      topology_(c.router.topology()),
      stats_(c.stats),
      packets_(c.packets),
      egress_(egress),
      pfc_(pfc) {}

void StallWatchdog::arm() {
  if (armed_) return;
  armed_ = true;
  engine_.schedule_at(engine_.now() + config_.deadlock_timeout, [this] { look(); });
}

void StallWatchdog::look() {
  armed_ = false;
  bool active = stats_.transfers_done < stats_.transfers_started;
  if (!active) return;
  if (packets_.in_network() > 0 && engine_.now() - egress_.last_progress() >= config_.deadlock_timeout) {
    stats_.deadlocked = true;
    throw ModelError(describe_stall());
  }
  arm();
}

// A port holding packets of a priority it may not send now.
bool StallWatchdog::stuck(const EgressPort& p) const {
  for (int pr = 0; pr < kPriorities; ++pr) {
    if (!p.queue[pr].empty() && pfc_.paused_until(p.link, static_cast<uint8_t>(pr)) > engine_.now()) return true;
  }
  return false;
}

std::string StallWatchdog::name(LinkId l) const {
  const EgressPort& p = egress_.port(l);
  return fmt::format("{}->{}", topology_.node(p.from).name, topology_.node(p.to).name);
}

// A stuck port waits on the stuck egress ports of the node it feeds; a cycle of such waits is a
// PFC deadlock. Depth-first search from each stuck port; empty when there is no cycle.
std::vector<LinkId> StallWatchdog::find_cycle() const {
  const std::vector<EgressPort>& ports = egress_.ports();
  std::vector<int> state(ports.size(), 0);  // 0 unseen, 1 on the stack, 2 done
  std::vector<LinkId> stack;
  std::vector<LinkId> cycle;
  std::function<bool(LinkId)> visit = [&](LinkId l) {
    state[l] = 1;
    stack.push_back(l);
    for (LinkId next : topology_.out_links(ports[l].to)) {
      if (!stuck(ports[next])) continue;
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
  for (LinkId l = 0; l < ports.size() && cycle.empty(); ++l) {
    if (state[l] == 0 && stuck(ports[l])) visit(l);
  }
  return cycle;
}

std::string StallWatchdog::describe_stall() const {
  std::vector<LinkId> cycle = find_cycle();
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
  for (LinkId l = 0; l < egress_.ports().size() && listed < 8; ++l) {
    uint64_t queued = egress_.port(l).queued_total();
    if (queued > 0) {
      waiting += fmt::format("{}{} ({} B queued)", listed ? ", " : "", name(l), queued);
      ++listed;
    }
  }
  return fmt::format(
      "packet fabric: stalled at {} us with {} packets in the network and {} of {} transfers "
      "unfinished; waiting ports: {}",
      engine_.now().microseconds(), packets_.in_network(), stats_.transfers_started - stats_.transfers_done,
      stats_.transfers_started, waiting.empty() ? "none" : waiting);
}

}  // namespace weft::packet
