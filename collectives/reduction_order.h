// In what order an all-reduce adds the ranks' contributions (issue 21). Floating-point addition is not
// associative, so the order decides the last bits of every sum; and NCCL's choice of algorithm,
// protocol, channels and ring order, which changes with the message size, the ranks and the topology,
// changes the order. From a plan (the plan_collective the simulation runs), the tree of additions that
// makes each element's sum:
//  - Ring (src/device/all_reduce.h, runRing): each channel reduces a contiguous part of the buffer
//    (ncclCollCbdPart), in loops of ranks x chunk elements (the last loop's chunk shrunk to what is
//    left over the ranks, 16-byte aligned). Position p first sends chunk p - 1, so chunk k starts at
//    ring position k + 1 and each next position adds its value to the partial it received, ending
//    at position k: ((x[k+1] + x[k+2]) + ...) + x[k].
//  - Tree (runTreeUpDown; prims_simple.h puts the rank's own input first, then what it receives): each
//    rank adds its children's partials to its value, in child order; channel c runs on tree c % 2.
//  - NVLS: the NVSwitch adds every rank's value (multimem.ld_reduce), accumulating bf16 and fp16 in
//    fp32 (src/device/reduce_kernel.h: PtxAcc_for_bf16 ".acc::f32") and rounding once; the switch's
//    own order is not documented and is taken as the ranks' order.
//  - NVLSTree: each node's switch as NVLS, then the nodes' sums up NCCL's double binary tree (what NCCL
//    runs; weft's schedule times that step as a ring between nodes, which moves the same bytes).
// GPUs add in the data type (FuncSum: each addition rounded to bf16 for bf16 data).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "collectives/plan.h"

namespace weft {

enum class SumSite : uint8_t { gpu, nvswitch };

// One sum as a binary tree in postfix order (each addition after its two operands, the root last).
struct SumTree {
  struct Node {
    int32_t rank = -1;  // a leaf: whose value; -1: an addition of `left` and `right`
    int32_t left = -1;
    int32_t right = -1;
    SumSite site = SumSite::gpu;
  };
  std::vector<Node> nodes;
  int32_t leaf(uint32_t rank);
  int32_t add(int32_t left, int32_t right, SumSite site);
  // "((3 + 4) + 5)"; a run of in-switch additions as "nvswitch(0 + 1 + 2)".
  std::string text() const;
};

class ReductionOrder {
 public:
  // The order `plan` (an all-reduce on the communicator `gpus`) sums a buffer of `count` elements of
  // `element_bytes` in. ConfigError for another operation or an algorithm not described (CollNet).
  ReductionOrder(const CollectivePlan& plan, const Topology& topology, std::span<const uint32_t> gpus, uint64_t count,
                 uint32_t element_bytes);

  // Whether the order of `plan` is described here (an all-reduce by ring, tree, NVLS or NVLSTree).
  static bool describes(const CollectivePlan& plan);

  uint32_t ranks() const { return ranks_; }
  uint64_t count() const { return count_; }
  // The tree of element e (< count), and the last element of the run of elements that share it.
  const SumTree& tree_of(uint64_t e) const { return trees_[segment(e).tree]; }
  uint64_t run_end(uint64_t e) const { return segment(e).end; }
  const std::vector<SumTree>& trees() const { return trees_; }
  // "ring/simple x4: 64 chunks, ... elements each"
  const std::string& summary() const { return summary_; }

 private:
  struct Segment {
    uint64_t end = 0;  // one past its last element
    uint32_t tree = 0;
  };
  const Segment& segment(uint64_t e) const;
  void ring(const CollectivePlan& plan, const Topology& topology, std::span<const uint32_t> gpus,
            uint32_t element_bytes);
  void tree(const CollectivePlan& plan, const Topology& topology, std::span<const uint32_t> gpus,
            uint32_t element_bytes);
  void nvls(const CollectivePlan& plan, const Topology& topology, std::span<const uint32_t> gpus);

  uint32_t ranks_ = 0;
  uint64_t count_ = 0;
  std::vector<SumTree> trees_;
  std::vector<Segment> segments_;  // in element order, covering [0, count)
  std::string summary_;
};

}  // namespace weft
