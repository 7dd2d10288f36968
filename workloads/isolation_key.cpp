#include "workloads/isolation_key.h"

#include <algorithm>
#include <type_traits>
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

// The paths a run asks for, in the order asked, each as its links then kEnd.
class PathList {
 public:
  static constexpr LinkId kEnd = static_cast<LinkId>(-1);

  // One path of a route, one of a group's legs, or a striped route's set of paths.
  void add(const Path& p) {
    tail_ += 'U';
    add_path(p);
  }
  void add_leg(const Path& p) {
    tail_ += 'G';
    add_path(p);
  }
  void add_all(const PathSet& paths) {
    tail_ += 'S';
    put(tail_, paths.size());
    for (const Path& p : paths) add_path(p);
  }

  // The paths with each link renamed by its rank among the links they touch (so the order of link
  // ids, which breaks ties in the max-min solver, is kept), then each renamed link's rate and latency.
  void put_renamed(std::string& out, const Topology& topology) const {
    std::vector<LinkId> touched;
    touched.reserve(links_.size());
    for (LinkId l : links_) {
      if (l != kEnd) touched.push_back(l);
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    put(out, touched.size());
    for (LinkId l : links_) {
      put(out, l == kEnd ? kEnd
                         : static_cast<LinkId>(std::lower_bound(touched.begin(), touched.end(), l) - touched.begin()));
    }
    for (LinkId l : touched) {
      put(out, topology.link(l).goodput().bps());
      put(out, topology.link(l).latency.ps());
    }
    out += tail_;
  }

 private:
  void add_path(const Path& p) {
    links_.insert(links_.end(), p.links.begin(), p.links.end());
    links_.push_back(kEnd);
    put(tail_, p.latency.ps());
    put(tail_, p.bottleneck.bps());
  }

  std::vector<LinkId> links_;
  std::string tail_;  // latencies, bottlenecks and stripe counts, in order
};

// The routes a group step of stream entropy `entropy` takes (GroupPaths::union_path's legs), or
// false when the group crosses hosts.
bool add_group_routes(const RankGroup& group, std::span<const NodeIndex> rank_nodes, uint64_t entropy, Router& router,
                      PathList& out) {
  const Topology& t = router.topology();
  GroupTransfer g;
  for (uint32_t r : group.srcs) g.srcs.push_back(rank_nodes[r]);
  for (uint32_t r : group.dsts) g.dsts.push_back(rank_nodes[r]);
  for (NodeIndex via : group_switches(t, g)) {
    if (t.node(via).kind == NodeKind::network_switch) return false;
    for (NodeIndex s : g.srcs) {
      if (s != via) out.add_leg(router.route(s, via, entropy));
    }
    for (NodeIndex d : g.dsts) {
      if (d != via) out.add_leg(router.route(via, d, entropy));
    }
  }
  return true;
}

// The paths of every send and group step, stream by stream (entropy = stream index, as
// ScheduleExecutor gives an isolated run); false when a group crosses hosts.
bool add_routes(const Schedule& s, std::span<const NodeIndex> rank_nodes, Router& router, PathList& out) {
  for (uint32_t i = 0; i < s.streams.size(); ++i) {
    const Stream& stream = s.streams[i];
    int64_t last_peer = -1;
    for (const StepRun& r : stream.runs) {
      if (r.kind == StepKind::local || static_cast<int64_t>(r.peer) == last_peer) continue;
      last_peer = r.peer;
      if (r.kind == StepKind::group) {
        if (!add_group_routes(s.groups[r.peer], rank_nodes, i, router, out)) return false;
        last_peer = -1;
        continue;
      }
      const PathSet* stripes = nullptr;
      const Path& path = router.route(rank_nodes[stream.rank], rank_nodes[r.peer], i, stripes);
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
                          IsolationKeying keying) {
  std::string key;
  put_schedule(key, schedule);
  if (keying == IsolationKeying::by_paths) {
    PathList paths;
    if (add_routes(schedule, rank_nodes, router, paths)) {
      key += 'P';
      paths.put_renamed(key, router.topology());
      return key;
    }
  }
  key += 'N';
  for (NodeIndex n : rank_nodes) put(key, n);
  return key;
}

}  // namespace weft
