// Groups of fabric transfers that finish together: each group runs its callback once the last of its
// transfers has arrived, and its slot is reused after (a long serving run sends millions of them).
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/fabric.h"

namespace weft {

class TransferGroups {
 public:
  // A new group, open until seal(): a transfer that arrives at once (a fabric may call back inside
  // start) cannot finish the group before its last transfer is added.
  uint32_t open(std::function<void()> done) {
    uint32_t g = 0;
    if (free_.empty()) {
      g = static_cast<uint32_t>(groups_.size());
      groups_.emplace_back();
    } else {
      g = free_.back();
      free_.pop_back();
    }
    groups_[g] = {1, std::move(done)};
    return g;
  }
  // Starts `t` on `fabric` as one of g's transfers.
  void send(Fabric& fabric, uint32_t g, const Transfer& t) {
    ++groups_[g].left;
    fabric.start(t, [this, g] { arrived(g); });
  }
  // One of g's transfers arrived; the last runs the callback (after freeing the slot, so that the
  // callback may open groups of its own).
  void arrived(uint32_t g) {
    if (--groups_[g].left == 0) finish(g);
  }
  // Every transfer added: the group finishes with its last arrival (now, if none is left).
  void seal(uint32_t g) { arrived(g); }

 private:
  void finish(uint32_t g) {
    auto done = std::move(groups_[g].done);
    groups_[g].done = nullptr;
    free_.push_back(g);
    done();
  }

  struct Group {
    uint32_t left = 0;
    std::function<void()> done;
  };
  std::vector<Group> groups_;
  std::vector<uint32_t> free_;
};

}  // namespace weft
