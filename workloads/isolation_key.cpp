#include "workloads/isolation_key.h"

#include <type_traits>
#include <unordered_map>
#include <vector>

#include "sim/fabric.h"
#include "sim/group_paths.h"

namespace weft {
namespace {

template <class T>
void put(std::string& out, T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void put_run(std::string& out, const StepRun& r) {
  put(out, r.count);
  put(out, r.kind);
  put(out, r.peer);
  put(out, r.bytes.count());
  put(out, r.duration.ps());
  put(out, r.wait_stream);
  put(out, r.wait_offset);
  put(out, r.also_wait_stream);
  put(out, r.also_wait_offset);
}

void put_ranks(std::string& out, const std::vector<uint32_t>& ranks) {
  put(out, ranks.size());
  for (uint32_t r : ranks) put(out, r);
}

// Everything the executor reads of the schedule.
void put_schedule(std::string& out, const Schedule& s) {
  put(out, s.ranks);
  put(out, s.max_in_flight);
  put(out, s.channel_rate.bps());
  put(out, s.start_latency.ps());
  put(out, s.streams.size());
  for (const Stream& stream : s.streams) {
    put(out, stream.rank);
    put(out, stream.runs.size());
    for (const StepRun& r : stream.runs) put_run(out, r);
  }
  put(out, s.groups.size());
  for (const RankGroup& g : s.groups) {
    put_ranks(out, g.srcs);
    put_ranks(out, g.dsts);
  }
}

// The paths a run asks for, in the order asked, with each link renamed by its first appearance (the
// flow and analytic fabrics never read a link's id, only its rate and latency: the solver orders a
// component's links by its own search), each renamed link's rate and latency given once.
class PathList {
 public:
  explicit PathList(const Topology& topology) : topology_(topology) {}

  // One path of a route, one leg of a group, or a striped route's set of paths.
  void add(const Path& p) { add_path('U', p); }
  void add_leg(const Path& p) { add_path('G', p); }
  void add_all(const PathSet& paths) {
    out_ += 'S';
    put(out_, paths.size());
    for (const Path& p : paths) add_path('s', p);
  }
  std::string take() { return std::move(out_); }

 private:
  void add_path(char kind, const Path& p) {
    out_ += kind;
    put(out_, p.links.size());
    put(out_, p.latency.ps());
    put(out_, p.bottleneck.bps());
    for (LinkId l : p.links) {
      auto [it, fresh] = renamed_.try_emplace(l, static_cast<uint32_t>(renamed_.size()));
      put(out_, it->second);
      if (fresh) {
        put(out_, topology_.link(l).goodput().bps());
        put(out_, topology_.link(l).latency.ps());
      }
    }
  }

  const Topology& topology_;
  std::unordered_map<LinkId, uint32_t> renamed_;
  std::string out_;
};

// Every link of the paths a run asks for, repeats included (LinkList::links).
class LinkList {
 public:
  void add(const Path& p) { links_.insert(links_.end(), p.links.begin(), p.links.end()); }
  void add_leg(const Path& p) { add(p); }
  void add_all(const PathSet& paths) {
    for (const Path& p : paths) add(p);
  }
  std::vector<LinkId> take() { return std::move(links_); }

 private:
  std::vector<LinkId> links_;
};

// The legs of a group step with stream entropy `entropy` (what GroupPaths joins), or false when the
// group crosses hosts.
template <class Out>
bool add_group_routes(const RankGroup& group, std::span<const NodeIndex> rank_nodes, uint64_t entropy, Router& router,
                      Out& out) {
  GroupTransfer g;
  for (uint32_t r : group.srcs) g.srcs.push_back(rank_nodes[r]);
  for (uint32_t r : group.dsts) g.dsts.push_back(rank_nodes[r]);
  g.entropy = entropy;
  if (!inside_one_node(router.topology(), g)) return false;
  for (NodeIndex via : group_switches(router.topology(), g)) {
    const GroupLegs legs = local_group_legs(router, g, via);
    for (const Path* p : legs.in) out.add_leg(*p);
    for (const Path* p : legs.out) out.add_leg(*p);
  }
  return true;
}
// The paths of every send and group step, stream by stream (entropy = entropy_base + stream index,
// as ScheduleExecutor gives them); false when a group crosses hosts.
template <class Out>
bool add_routes(const Schedule& s, std::span<const NodeIndex> rank_nodes, uint64_t entropy_base, Router& router,
                Out& out) {
  for (uint32_t i = 0; i < s.streams.size(); ++i) {
    const Stream& stream = s.streams[i];
    int64_t last_peer = -1;
    for (const StepRun& r : stream.runs) {
      if (r.kind == StepKind::local || static_cast<int64_t>(r.peer) == last_peer) continue;
      last_peer = r.peer;
      if (r.kind == StepKind::group) {
        if (!add_group_routes(s.groups[r.peer], rank_nodes, entropy_base + i, router, out)) return false;
        last_peer = -1;
        continue;
      }
      const PathSet* stripes = nullptr;
      const Path& path = router.route(rank_nodes[stream.rank], rank_nodes[r.peer], entropy_base + i, stripes);
      if (stripes != nullptr) {
        out.add_all(*stripes);
      } else {
        out.add(path);
      }
    }
  }
  return true;
}

}  // namespace

std::string isolation_key(const Schedule& schedule, std::span<const NodeIndex> rank_nodes, Router& router,
                          IsolationKeying keying, uint64_t entropy_base) {
  std::string key;
  put_schedule(key, schedule);
  if (keying == IsolationKeying::by_paths) {
    PathList paths(router.topology());
    if (add_routes(schedule, rank_nodes, entropy_base, router, paths)) {
      key += 'P';
      key += paths.take();
      return key;
    }
  }
  key += 'N';
  for (NodeIndex n : rank_nodes) put(key, n);
  return key;
}

std::optional<std::vector<LinkId>> schedule_links(const Schedule& schedule, std::span<const NodeIndex> rank_nodes,
                                                  Router& router, uint64_t entropy_base) {
  LinkList links;
  if (!add_routes(schedule, rank_nodes, entropy_base, router, links)) return std::nullopt;
  return links.take();
}

}  // namespace weft
