// Test helper: a cluster of one-GPU hosts (an A30 on the CPU's root complex and one 100 GbE NIC),
// the "host" of textbook fat-tree and congestion papers, on RoCE.
#pragma once

#include "topologies/clusters.h"

namespace weft::testing {

inline ClusterSpec one_gpu_hosts(int nodes, NetworkShape shape, int radix = 64, double oversubscription = 1) {
  ClusterSpec c;
  c.node.layout = NodeLayout::pcie;
  c.node.gpu = "a30";
  c.node.gpus = 1;
  c.node.gpus_per_pcie_switch = 0;
  c.node.cpu_sockets = 1;
  c.node.nic = "eth-100g";
  c.node.nics = 1;
  c.nodes = nodes;
  c.network.shape = shape;
  c.network.technology = NetworkTechnology::roce;
  c.network.radix = radix;
  c.network.oversubscription = oversubscription;
  return c;
}

}  // namespace weft::testing
