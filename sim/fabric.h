// The one interface every network model implements. A Fabric moves transfers over a Topology and
// schedules their completions on the shared Engine.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/core/engine.h"
#include "sim/core/fabric_stats.h"
#include "sim/core/inline_function.h"
#include "sim/core/recorder.h"
#include "sim/core/units.h"
#include "topologies/topology.h"

namespace weft {

using TransferId = uint64_t;

struct Transfer {
  NodeIndex src = 0;
  NodeIndex dst = 0;
  Bytes bytes;
  uint8_t priority = 0;  // traffic class / virtual lane (packet models)
  uint64_t entropy = 0;  // flow hash input for ECMP (e.g. the queue pair)
  uint64_t tag = 0;      // opaque to the fabric; handed back to the Recorder
  // Most the sender can push, bit/s (0 = no limit): e.g. the copy rate of the one GPU thread block
  // that runs an NCCL channel. Models treat it as a private link of this capacity on the path.
  uint64_t max_rate = 0;
  // Identical transfers this one stands for, one per stream of a class the executor runs as one
  // (see Fabric::runs_copies); counted, and carried on the links, that many times.
  uint32_t copies = 1;
};

// The same bytes from every source to every destination through the in-network reducing switches
// (NVSwitch gen 3+ NVLS, SHARP): each source's link to a switch carries them once, the switch
// reduces (several sources) and replicates (several destinations), and each switch-to-destination
// link carries them once. Used for NVLS: srcs = all, dsts = {g} is an in-switch reduce-scatter
// step; srcs = {g}, dsts = all is a multicast.
struct GroupTransfer {
  std::vector<NodeIndex> srcs;
  std::vector<NodeIndex> dsts;
  Bytes bytes;
  uint64_t entropy = 0;
  uint64_t tag = 0;
  uint64_t max_rate = 0;  // bit/s, as Transfer::max_rate
  uint32_t copies = 1;    // as Transfer::copies
};

// Called once, when the transfer's last byte has arrived at dst (engine time = arrival time).
using OnTransferDone = InlineFunction<void(), 24>;

// A sender's memo of one connection (src, dst, entropy): what a fabric looked up to start a transfer
// on it (its route, its queue pair), kept by the caller so that the next transfer on the same
// connection skips those lookups, as an NCCL channel keeps its connection to a peer. At scale each
// lookup is a cache miss in a table of millions of connections (perf, issue 19). Opaque to the
// caller, who starts with an empty one; the fabric checks the key on every use.
struct ConnectionMemo {
  NodeIndex src = 0;
  NodeIndex dst = 0;
  uint64_t entropy = 0;
  const void* route = nullptr;  // null: empty
  void* queue = nullptr;
  bool holds(const Transfer& t) const {
    return route != nullptr && src == t.src && dst == t.dst && entropy == t.entropy;
  }
};

// What every fabric does when a transfer's last byte has arrived (engine time `now`): count it, as
// many times as it has copies, and tell the Recorder's transfer sinks, if any listen.
inline void count_delivered(FabricStats& stats, Recorder& recorder, TransferId id, const Transfer& t, Time start,
                            Time now) {
  stats.transfers_done += t.copies;
  stats.bytes_delivered += Bytes(t.bytes.count() * t.copies);
  if (recorder.wants(Hook::transfers)) recorder.on_transfer_done({id, t.src, t.dst, t.bytes, start, now, t.tag});
}

class Fabric {
 public:
  virtual ~Fabric() = default;
  virtual std::string_view name() const = 0;
  virtual TransferId start(const Transfer& transfer, OnTransferDone on_done) = 0;
  // start() on the connection `memo` remembers, or remembers it: the same transfer, started alike
  // (the default ignores the memo).
  virtual TransferId start_connected(const Transfer& transfer, OnTransferDone on_done, ConnectionMemo& /*memo*/) {
    return start(transfer, std::move(on_done));
  }
  // Multicast / in-switch reduction; models without it throw ModelError (the default).
  virtual TransferId start_group(const GroupTransfer& group, OnTransferDone on_done);
  // Copies. A fabric that runs_copies() moves two transfers that differ only in their entropy
  // exactly alike whenever interchangeable() says so for the two entropies (same links, each in its
  // own queue pair, hence always the same rate), and then accepts `copies` > 1: that many such
  // transfers started as one, done together. The others (the default) only ever see copies = 1;
  // so do all fabrics while a Recorder listens for each transfer.
  virtual bool runs_copies() const { return false; }
  // `smallest`: the fewest bytes either sends src to dst (small transfers use fewer NVLink stripes).
  virtual bool interchangeable(NodeIndex /*src*/, NodeIndex /*dst*/, uint64_t /*a*/, uint64_t /*b*/,
                               Bytes /*smallest*/) {
    return false;
  }
  virtual bool interchangeable(const GroupTransfer& /*group*/, uint64_t /*a*/, uint64_t /*b*/, Bytes /*smallest*/) {
    return false;
  }
  // Whether a run depends on its GPUs only through the paths the Router gives its transfers (their
  // links' rates and latencies, never their ids): no state per node or per packet.
  // Then a run and its image under the topology's symmetry take the same time (isolation_key).
  virtual bool path_determined() const { return false; }
  // Rank images (issue 19): each orbit lists the same transfer of m ranks that are images of one
  // another (rank r, r + d, r + 2d, ... of a schedule that looks alike from each). A fabric that
  // returns true has checked that it moves each transfer of an orbit as the image of the one before
  // (a link bijection of equal links) and from then on moves every transfer on the quotient: a
  // transfer of `copies` c stands for c / m copies at each of the m images of its sender. Only for a
  // fabric that nothing else uses (one collective alone); false (the default) changes nothing.
  virtual bool enter_quotient(std::span<const std::vector<Transfer>> /*orbits*/) { return false; }
  virtual FabricStats stats() const = 0;
  // Links that carried traffic, for per-link summaries; empty for models without per-link state.
  virtual std::vector<LinkStats> link_stats() const { return {}; }
  // Runs the simulation to its end. Fabrics with a clock of their own (SimGrid) interleave it with
  // the engine's; the others just run the engine.
  virtual void run(Engine& engine) { engine.run(); }
};

}  // namespace weft
