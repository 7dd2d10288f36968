// Max-min fair rates by progressive filling (Bertsekas & Gallager, Data Networks, §6.5.2), in
// integer bit/s so that results are exact and identical on every platform. Buffers are reused
// between solves: the flow fabric calls this for every touched component.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace weft {

class MaxMinSolver {
 public:
  void clear();
  // Returns the link's index in this problem.
  uint32_t add_link(uint64_t capacity_bps);
  // Returns the flow's index; `links` are indices returned by add_link. A flow of weight w stands
  // for w flows on the same links (w copies that always get the same rate, see solve): it counts w
  // times on each link and rate() is the rate of each copy.
  uint32_t add_flow(std::span<const uint32_t> links, uint32_t weight = 1);

  // Fills rates: the bottleneck link with the smallest fair share fixes its flows at that share
  // (rounded down to whole bit/s), which then leave every other link they cross; repeat. Copies of
  // one flow cross the same links, so a link fixes all of them at once and at one share: a flow of
  // weight w gets exactly the rate each of w separate flows would get.
  void solve();
  uint64_t rate(uint32_t flow) const { return rate_[flow]; }
  size_t flow_count() const { return flow_offset_.size() - 1; }
  size_t link_count() const { return capacity_.size(); }

 private:
  void index_flows_by_link();
  void fix_flows_of(uint32_t link, uint64_t share);

  std::vector<uint64_t> capacity_;
  // flow -> links (CSR)
  std::vector<uint32_t> flow_offset_{0};
  std::vector<uint32_t> flow_links_;
  std::vector<uint32_t> weight_;  // per flow
  // link -> flows (CSR, built in solve)
  std::vector<uint32_t> link_offset_;
  std::vector<uint32_t> link_flows_;
  std::vector<uint32_t> cursor_;  // scratch for building link_flows_
  // solve state
  std::vector<uint64_t> remaining_;
  std::vector<uint32_t> unfixed_;  // per link: the weight of its flows not yet fixed
  std::vector<uint64_t> rate_;
  std::vector<uint8_t> fixed_;
  size_t unfixed_flows_ = 0;
  struct Candidate {
    uint64_t share;
    uint32_t link;
  };
  std::vector<Candidate> heap_;
};

}  // namespace weft
