// Queue pairs: a sender's transfers to the same first link and entropy share one, and go in order
// (the first with packets to send goes next). The first port of a path pulls from the queue pairs
// that start on it, round robin (Sender::pull).
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "sim/core/recorder.h"
#include "topologies/topology.h"

namespace weft::packet {

class QueuePairs {
 public:
  // The queue pairs whose packets start on one link, and whose turn it is.
  struct Feeders {
    std::vector<uint32_t> queue_pairs;
    uint32_t next = 0;
  };

  explicit QueuePairs(size_t links) : feeders_(links) {}

  // The queue pair of (src, first link, entropy); a new one the first time.
  uint32_t of(NodeIndex src, LinkId first_link, uint64_t entropy);
  std::deque<uint32_t>& flows(uint32_t qp) { return queue_pairs_[qp].flows; }
  LinkId first_link(uint32_t qp) const { return queue_pairs_[qp].first_link; }
  Feeders& feeders(LinkId link) { return feeders_[link]; }
  // The sender's rate limit (Transfer::max_rate) as a fluid, per queue pair: when the limit lets
  // the last payload byte sent so far leave (see Sender::limit_allows).
  Time& limit_clock(uint32_t qp) { return queue_pairs_[qp].limit_clock; }

 private:
  struct State {
    std::deque<uint32_t> flows;  // flow slots, in order
    LinkId first_link = 0;
    Time limit_clock;
  };
  struct Key {
    NodeIndex src;
    LinkId first_link;
    uint64_t entropy;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };

  std::vector<State> queue_pairs_;
  std::unordered_map<Key, uint32_t, KeyHash> index_;
  std::vector<Feeders> feeders_;  // by LinkId
};

}  // namespace weft::packet
