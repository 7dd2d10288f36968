// NCCL's double binary tree all-reduce (NCCL 2.4+, after Sanders, Speck and Träff, "Two-tree
// algorithms for full bandwidth broadcast, reduction and scan", Parallel Computing 2009): two
// complementary binary trees, each carrying half the buffer, so that a rank that is a leaf in one
// tree is an inner node in the other. Pure functions returning a Schedule.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "collectives/schedule.h"

namespace weft {

struct TreeOptions {
  // Channel c runs on tree c % 2 with 1/channels of the buffer (NCCL gives half of its channels to
  // each tree); 2 = one channel per tree.
  uint32_t channels = 2;
  // Bytes per pipelined step; 0 = NCCL Simple tree's chunk, one 512 KiB step (CHUNKSTEPS applies to
  // ring only; nccl_model.md §8), with NCCL_STEPS = 8 in flight.
  Bytes chunk;
  // 0 or 1: one level, the trees span all ranks. k > 1: the k ranks of each node form a chain in rank
  // order below the node's first rank (NCCL's intra-node tree, in both trees), and the two trees span
  // the nodes' first ranks; k = ranks is one node, a single chain.
  uint32_t ranks_per_node = 0;
};

// Who is connected to whom in one tree, by rank: parent -1 at the root; up to 3 children
// (NCCL_MAX_TREE_ARITY: two in the tree plus the next rank of the node's chain).
struct TreeLinks {
  uint32_t root = 0;
  std::vector<int32_t> parent;
  std::vector<std::vector<uint32_t>> children;
};

// NCCL's binary tree over n ranks (ncclGetBtree, src/graph/trees.cc): root 0 with one child, inner
// nodes at even ranks, leaves at odd ranks.
TreeLinks binary_tree(uint32_t n);
// NCCL's pair (ncclGetDtree): the btree, and its mirror r -> n-1-r (n even) or its shift r -> r+1
// (n odd).
std::array<TreeLinks, 2> double_binary_tree(uint32_t n);
// The two rank-level trees the schedule uses, chains included.
std::array<TreeLinks, 2> tree_links(uint32_t ranks, const TreeOptions& options = {});

// Depth in edges of NCCL's (double) binary tree over n ranks: ceil(log2 n).
uint32_t tree_depth(uint32_t n);
// Longest root-to-leaf path of `tree`, in edges.
uint32_t depth_of(const TreeLinks& tree);

// In each tree, chunk c is reduced up (a leaf sends it at once, an inner rank once chunk c of every
// child arrived) and broadcast down (the root once it has reduced chunk c, any other rank once chunk
// c came from its parent). With 2 channels a rank sends S/2 over every edge it has in either tree
// (up to its parent, down to each child); summed over ranks 2(n-1)·S, as much as a ring.
Schedule tree_all_reduce(uint32_t ranks, Bytes size, const TreeOptions& options = {});

}  // namespace weft
