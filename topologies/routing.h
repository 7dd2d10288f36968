// Routing over a Topology, the way traffic really goes in a GPU cluster:
//  - inside a host or an NVLink domain: equal-cost shortest paths in which only switches relay
//    (a GPU, a NIC or a foreign server never carries others' traffic), GPU peers without PCIe P2P
//    use NVLink if they have it and are otherwise staged through host memory (GPU -> CPU -> GPU);
//  - between hosts: the GPU's own NIC (the affinity the builder recorded, one per rail/plane), then
//    the switch network, where each switch picks among its equal-cost next hops by hashing the
//    flow (ECMP, per hop, as a real switch does), then the destination GPU's NIC on the same plane.
//    With PXN the data first crosses NVLink to the source-host GPU on the destination's rail.
// Path sets and per-destination switch distances are computed once and cached; a flow's path is
// a pure function of (seed, src, dst, entropy), so runs are reproducible.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "topologies/route_table.h"
#include "topologies/topology.h"

namespace weft {

struct Path {
  std::vector<LinkId> links;  // in order from src to dst
  Time latency;               // sum of the links' latencies
  Bandwidth bottleneck;       // smallest link goodput on the path
  // Dense per Router (every path it gives has one; Router::new_path_id for paths built from them),
  // so a fabric can keep state per path in a vector. 0: none (a path built elsewhere).
  uint32_t id = 0;
};

using PathSet = std::vector<Path>;

// How a switch spreads traffic over equal-cost next hops. Flow-level fabrics route whole flows
// (ecmp); per-packet spraying and InfiniBand adaptive routing are applied per packet by the
// packet-level fabric, through next_hops().
enum class RoutingPolicy : uint8_t { ecmp, spray, adaptive };
RoutingPolicy parse_routing_policy(std::string_view name);  // throws ConfigError
std::string_view to_string(RoutingPolicy policy);

// The most NVLink paths kept between two GPUs: above any GPU's link count (18 on Hopper and Blackwell).
inline constexpr uint32_t kNvlinkPathsMax = 64;

struct RouterOptions {
  uint64_t seed = 1;
  bool pxn = false;  // inter-host traffic leaves through the rail-matching GPU's NIC
  RoutingPolicy policy = RoutingPolicy::ecmp;
  uint32_t max_paths = 16;  // paths kept per pair inside a host or domain
};

class Router {
 public:
  Router(const Topology& topology, RouterOptions options);
  Router(const Topology& topology, uint64_t seed) : Router(topology, RouterOptions{.seed = seed}) {}
  ~Router();
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // The path a flow with this entropy (e.g. its queue pair) takes; throws ModelError when dst
  // cannot be reached. The reference stays valid for the Router's lifetime.
  const Path& route(NodeIndex src, NodeIndex dst, uint64_t entropy);

  // The same, and in `stripes` (else null) the set of paths when src and dst are joined by several
  // equal-cost all-NVLink paths (GPUs on NVSwitches): NVSwitch systems interleave a GPU's traffic
  // to a peer over all its NVLinks by address, so a transfer uses every path at once. One cache
  // lookup: this is the flow fabric's per-transfer call.
  const Path& route(NodeIndex src, NodeIndex dst, uint64_t entropy, const PathSet*& stripes);

  // Up to `limit` distinct paths the router may give (src, dst), for inspection and tests.
  PathSet paths(NodeIndex src, NodeIndex dst, uint32_t limit = 64);
  // The path route(src, dst, entropy) gives and its equal-cost variants through the switch network
  // (same NICs, every shortest switch path; up to `limit`): the choices per-packet spraying and
  // adaptive routing make. Inside a host or domain, the local path set.
  PathSet variants(NodeIndex src, NodeIndex dst, uint64_t entropy, uint32_t limit = 64);
  // How many distinct equal-cost paths exist between src and dst (counted, not enumerated).
  uint64_t path_count(NodeIndex src, NodeIndex dst);

  // Network switches only: the links out of switch `at` that lie on a shortest path to switch
  // `toward` (for per-packet spraying and adaptive routing in the packet fabric).
  void next_hops(NodeIndex at, NodeIndex toward, std::vector<LinkId>& out);

  // Distinct paths handed out so far (a measure of the cache's memory).
  size_t cached_paths() const { return interned_.size(); }
  // A fresh Path::id, for paths built outside the Router (group unions, quotient images).
  uint32_t new_path_id() { return next_path_id_++; }

  const Topology& topology() const { return topology_; }
  const RouterOptions& options() const { return options_; }

 private:
  struct NetworkLeg;  // NIC -> leaf ... leaf -> NIC, chosen per flow
  enum class LinkFilter : uint8_t { any, nvlink_only };

  bool crosses_network(NodeIndex src, NodeIndex dst) const;
  const Path& resolve(NodeIndex src, NodeIndex dst, uint64_t entropy);
  std::vector<LinkId> inter_host_links(NodeIndex src, NodeIndex dst, uint64_t entropy);
  const PathSet& local_paths(NodeIndex src, NodeIndex dst);
  PathSet compute_local(NodeIndex src, NodeIndex dst);
  PathSet shortest(NodeIndex src, NodeIndex dst, LinkFilter filter, uint32_t limit);
  PathSet via_host_memory(NodeIndex src, NodeIndex dst);
  bool may_relay(NodeIndex node, NodeIndex src, NodeIndex dst) const;
  void distances_to(NodeIndex src, NodeIndex dst, LinkFilter filter);
  bool usable(LinkId link, LinkFilter filter) const;
  void enumerate(NodeIndex at, NodeIndex src, NodeIndex dst, LinkFilter filter, uint32_t limit,
                 std::vector<LinkId>& prefix, PathSet& out);
  uint64_t count_local(NodeIndex src, NodeIndex dst);

  // The switch network.
  NodeIndex leaf_of(NodeIndex nic) const;
  LinkId uplink_of(NodeIndex nic) const;
  LinkId downlink_to(NodeIndex nic) const;
  const std::vector<uint16_t>& switch_distances(NodeIndex toward);
  void walk_network(NodeIndex from, NodeIndex toward, uint64_t flow_hash, std::vector<LinkId>& out);
  uint64_t count_network(NodeIndex from, NodeIndex toward);
  NodeIndex egress_gpu(NodeIndex src, NodeIndex dst);
  bool relays_for(NodeIndex src, NodeIndex relay);
  void network_links(NodeIndex egress, NodeIndex src, NodeIndex dst, uint64_t entropy, std::vector<LinkId>& links);
  const PathSet* relay_stripes(NodeIndex src, NodeIndex dst, uint64_t entropy);
  NodeIndex matching_nic(NodeIndex dst, NodeIndex src_nic) const;

  Path make_path(std::vector<LinkId> links);
  const Path& intern(std::vector<LinkId> links);

  const Topology& topology_;
  RouterOptions options_;
  std::vector<uint32_t> switch_index_;  // node -> dense index over network switches, or UINT32_MAX
  uint32_t switch_count_ = 0;
  std::vector<std::vector<NodeIndex>> cpus_by_host_;
  struct LocalRoutes {
    PathSet paths;
    bool nvlink_striped = false;  // several paths, all NVLink: a transfer interleaves over them
  };
  const LocalRoutes& local_routes(NodeIndex src, NodeIndex dst);
  std::unordered_map<uint64_t, LocalRoutes> local_cache_;           // (src, dst) inside a host/domain
  std::unordered_map<NodeIndex, std::vector<uint16_t>> distances_;  // toward switch -> hops per switch
  RouteTable routes_;                                               // inter-host (src, dst, entropy) -> interned path
  struct RelayKey {
    NodeIndex src, dst;
    uint64_t entropy;
    bool operator==(const RelayKey&) const = default;
  };
  struct RelayKeyHash {
    size_t operator()(const RelayKey& k) const {
      return (uint64_t{k.src} << 32 | k.dst) ^ (k.entropy * 0x9E3779B97F4A7C15ULL);
    }
  };
  std::unordered_map<RelayKey, PathSet, RelayKeyHash> relays_;  // PXN sends striped over NVLink
  std::unordered_map<uint64_t, NodeIndex> relay_gpu_;           // (src, rail) -> the GPU that sends
  struct LinksHash {
    size_t operator()(const std::vector<LinkId>& links) const;
  };
  std::unordered_map<std::vector<LinkId>, std::unique_ptr<Path>, LinksHash> interned_;
  uint32_t next_path_id_ = 1;
  // BFS scratch, reused between pairs: distance to dst is valid where stamp == epoch.
  std::vector<uint32_t> distance_;
  std::vector<uint32_t> stamp_;
  std::vector<NodeIndex> queue_;
  uint32_t epoch_ = 0;
};

}  // namespace weft
