#include "workloads/own_links.h"

#include <algorithm>
#include <set>
#include <utility>

#include "workloads/isolation_key.h"

namespace weft {
namespace {

// What only the fabric reports: each transfer, each schedule run, links' bytes and counters, queues.
constexpr Hook kFabricDetail[] = {Hook::transfers, Hook::collectives, Hook::queue_samples, Hook::link_bytes,
                                  Hook::link_stats};

// Who crosses a link: nobody yet, one owner (a communicator, or the point-to-point sends as one
// more), or several.
class LinkOwners {
 public:
  static constexpr int64_t kNobody = -1;
  static constexpr int64_t kSeveral = -2;

  explicit LinkOwners(size_t links) : owner_(links, kNobody) {}
  void claim(std::span<const LinkId> links, int64_t who) {
    for (LinkId l : links) owner_[l] = owner_[l] == kNobody || owner_[l] == who ? who : kSeveral;
  }
  bool owns_all(std::span<const LinkId> links, int64_t who) const {
    return std::all_of(links.begin(), links.end(), [&](LinkId l) { return owner_[l] == who; });
  }

 private:
  std::vector<int64_t> owner_;
};

// Per communicator: whether every rank issues all its collectives on one stream, so that one
// instance ends on every member before the next can start on any.
std::vector<bool> one_stream_each(const Workload& workload) {
  std::vector<bool> one(workload.communicators.size(), true);
  std::vector<int> stream(workload.communicators.size());
  for (const Program& program : workload.programs) {
    std::fill(stream.begin(), stream.end(), -1);
    for (const Op& op : program.ops) {
      if (op.kind != OpKind::collective) continue;
      int& s = stream[op.comm];
      if (s < 0) s = op.stream;
      if (s != op.stream) one[op.comm] = false;
    }
  }
  return one;
}

// Every link a send of the step crosses (Replayer::post_p2p's transfer: its GPUs, its entropy).
void claim_sends(const Workload& workload, Router& router, int64_t who, LinkOwners& owners) {
  const Topology& topology = router.topology();
  std::set<std::pair<uint32_t, uint32_t>> routed;
  for (uint32_t rank = 0; rank < workload.programs.size(); ++rank) {
    for (const Op& op : workload.programs[rank].ops) {
      if (op.kind != OpKind::send || op.bytes == Bytes() || !routed.emplace(rank, op.peer).second) continue;
      const NodeIndex src = topology.gpus()[workload.gpu_of_rank[rank]];
      const NodeIndex dst = topology.gpus()[workload.gpu_of_rank[op.peer]];
      const PathSet* stripes = nullptr;
      const Path& path = router.route(src, dst, Replayer::p2p_entropy(rank, op.peer), stripes);
      if (stripes == nullptr) {
        owners.claim(path.links, who);
        continue;
      }
      for (const Path& p : *stripes) owners.claim(p.links, who);
    }
  }
}

}  // namespace

std::vector<PlanAlone> plans_on_own_links(Replayer& replayer, const Workload& workload, Router& router) {
  const size_t comms = workload.communicators.size();
  std::vector<bool> eligible = one_stream_each(workload);
  LinkOwners owners(router.topology().link_count());
  claim_sends(workload, router, static_cast<int64_t>(comms), owners);
  const std::vector<Replayer::Upcoming> upcoming = replayer.upcoming_collectives();
  std::vector<std::vector<LinkId>> links(upcoming.size());
  for (size_t i = 0; i < upcoming.size(); ++i) {
    const Replayer::Upcoming& u = upcoming[i];
    std::optional<std::vector<LinkId>> crossed =
        schedule_links(u.plan->schedule, u.nodes, router, Replayer::comm_entropy(u.comm));
    if (!crossed) {
      eligible[u.comm] = false;  // its aggregation tree's legs are not known up front
      continue;
    }
    std::sort(crossed->begin(), crossed->end());  // a link per channel and step: keep each once
    crossed->erase(std::unique(crossed->begin(), crossed->end()), crossed->end());
    links[i] = std::move(*crossed);
    owners.claim(links[i], u.comm);
  }
  for (size_t i = 0; i < upcoming.size(); ++i) {
    if (!owners.owns_all(links[i], upcoming[i].comm)) eligible[upcoming[i].comm] = false;
  }
  std::vector<PlanAlone> out;
  for (const Replayer::Upcoming& u : upcoming) {
    if (eligible[u.comm]) out.push_back({u.plan, Replayer::comm_entropy(u.comm)});
  }
  return out;
}

bool own_links_apply(Simulation& main) {
  if (!main.fabric().path_determined()) return false;
  return std::none_of(std::begin(kFabricDetail), std::end(kFabricDetail),
                      [&main](Hook h) { return main.recorder().wants(h); });
}

void OwnLinksTimer::alone(std::span<const PlanAlone> plans) {
  for (const PlanAlone& p : plans) plans_[p.plan].entropy_base = p.entropy_base;
}

std::optional<TimedCollective> OwnLinksTimer::collective(const CollectivePlan& plan, CollectiveOp /*op*/,
                                                         Bytes /*bytes*/, std::span<const NodeIndex> rank_nodes) {
  const auto it = plans_.find(&plan);
  if (it == plans_.end()) return std::nullopt;
  Alone& alone = it->second;
  if (!alone.run) {
    std::string key = isolated_time_key(main_, plan, rank_nodes, alone.entropy_base);
    if (const auto known = by_key_.find(key); known != by_key_.end()) {
      alone.run = known->second;
    } else {
      ++simulated_;
      FabricStats stats;
      const Time t = run_alone(*main_.isolated(), plan, rank_nodes, alone.entropy_base, &stats);
      alone.run = Run{t, stats.transfers_done, stats.bytes_delivered};
      by_key_.emplace(std::move(key), *alone.run);
    }
  }
  totals_.transfers_started += alone.run->transfers;
  totals_.transfers_done += alone.run->transfers;
  totals_.bytes_delivered += alone.run->bytes;
  return TimedCollective{alone.run->time};
}

}  // namespace weft
