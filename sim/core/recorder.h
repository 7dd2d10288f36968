// The one observer of a simulation and the one way its results leave it: typed hooks forwarded to
// sinks (a link timeline, flow completion times, memory for tests). Each sink says which hooks it
// listens to; a hook costs one branch when nobody does (callers test wants() before building a
// record), so a sink of link bytes does not stop a fabric from running copies as one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/fabric_stats.h"
#include "sim/core/units.h"

namespace weft {

using NodeIndex = uint32_t;

struct TransferRecord {
  uint64_t id;
  NodeIndex src;
  NodeIndex dst;
  Bytes bytes;
  Time start;  // when the fabric accepted the transfer
  Time end;    // when its last byte arrived at dst
  uint64_t tag;
};

struct CollectiveRecord {
  std::string name;  // e.g. "all_reduce/ring"
  uint32_t ranks;
  Bytes bytes;  // nccl-tests' size: the whole buffer
  Time start;
  Time end;
  uint64_t transfers;
};

// The bytes waiting in one egress queue at one instant (packet-level fabrics, when sampling is on).
struct QueueSample {
  Time at;
  uint32_t link;  // LinkId
  uint8_t priority;
  Bytes queued;
};

// `bytes` (headers included) crossed `link` evenly during [from, to] (flow and packet fabrics).
struct LinkBytes {
  uint32_t link = 0;  // LinkId
  Time from;
  Time to;
  double bytes = 0;
};

// One op of a replayed program ended (workloads/replayer.h): its rank, its index in the rank's
// program, and when it was issued, really started and ended.
struct OpRecord {
  uint32_t rank = 0;
  uint32_t op = 0;
  Time issued;
  Time started;
  Time ended;
};

// One collective of a replayed program ended, every member's op with it (workloads/replayer.h).
// The views are valid during the call only.
struct CommRecord {
  std::string_view group;  // the communicator's: "tp", "dp", ... (workloads/program.h, CommGroup)
  std::string_view op;     // "all_reduce", ... (collectives/collective_op.h)
  Bytes bytes;
  uint32_t ranks = 0;
  std::string_view algorithm;  // the plan's label ("NVLS/Simple x16"); "" when nothing moved
  bool calibrated = false;     // timed by a measured fit, not by the fabric
  Time start;
  Time end;
};

// A simulation ran until nothing was left to do (sim/simulation.h): its fabric's counters, the
// events the engine processed and the time it stopped at.
struct RunRecord {
  FabricStats fabric;
  uint64_t events = 0;
  Time end;
  std::vector<LinkStats> links;  // per link, when a sink listens to Hook::link_stats (flow, packet)
};

// What a sink listens to, as bits of RecorderSink::hooks().
enum class Hook : uint8_t {
  transfers = 1,
  collectives = 2,
  queue_samples = 4,
  link_bytes = 8,
  ops = 16,
  comms = 32,
  runs = 64,
  link_stats = 128,  // adds each link's counters to the RunRecord
};

class RecorderSink {
 public:
  virtual ~RecorderSink() = default;
  // A set of Hook bits; the default, every hook but link bytes, ops and comms (the records of the
  // transfers and of the replay, which those who want them ask for).
  virtual uint8_t hooks() const { return kRecordHooks; }
  virtual void on_transfer_done(const TransferRecord&) {}
  virtual void on_collective_done(const CollectiveRecord&) {}
  virtual void on_queue_sample(const QueueSample&) {}
  virtual void on_link_bytes(const LinkBytes&) {}
  virtual void on_op_done(const OpRecord&) {}
  virtual void on_comm_done(const CommRecord&) {}
  virtual void on_run_done(const RunRecord&) {}

  static constexpr uint8_t kRecordHooks = static_cast<uint8_t>(Hook::transfers) |
                                          static_cast<uint8_t>(Hook::collectives) |
                                          static_cast<uint8_t>(Hook::queue_samples) | static_cast<uint8_t>(Hook::runs);
};

// Keeps every record in memory: for tests and the Python bindings.
class MemorySink : public RecorderSink {
 public:
  void on_transfer_done(const TransferRecord& r) override { transfers.push_back(r); }
  void on_collective_done(const CollectiveRecord& r) override { collectives.push_back(r); }
  void on_queue_sample(const QueueSample& r) override { queue_samples.push_back(r); }
  void on_run_done(const RunRecord& r) override { runs.push_back(r); }

  std::vector<TransferRecord> transfers;
  std::vector<CollectiveRecord> collectives;
  std::vector<QueueSample> queue_samples;
  std::vector<RunRecord> runs;
};

// The record of the last run that ended: a simulation's counters (per link too, when asked), for
// the code that ran it.
class RunTotals : public RecorderSink {
 public:
  explicit RunTotals(bool per_link = false) : per_link_(per_link) {}
  uint8_t hooks() const override {
    return static_cast<uint8_t>(Hook::runs) | (per_link_ ? static_cast<uint8_t>(Hook::link_stats) : uint8_t{0});
  }
  void on_run_done(const RunRecord& r) override {
    last = r;
    ++runs;
  }

  RunRecord last;
  uint64_t runs = 0;

 private:
  bool per_link_;
};

class Recorder {
 public:
  // The sink must outlive the recorder's use; the recorder does not own it.
  void add_sink(RecorderSink& sink) {
    sinks_.push_back(&sink);
    hooks_ |= sink.hooks();
  }
  // Some sink listens to `hook`.
  bool wants(Hook hook) const { return (hooks_ & static_cast<uint8_t>(hook)) != 0; }

  void on_transfer_done(const TransferRecord& r) {
    for (RecorderSink* s : sinks_) s->on_transfer_done(r);
  }
  void on_collective_done(const CollectiveRecord& r) {
    for (RecorderSink* s : sinks_) s->on_collective_done(r);
  }
  void on_queue_sample(const QueueSample& r) {
    for (RecorderSink* s : sinks_) s->on_queue_sample(r);
  }
  void on_link_bytes(const LinkBytes& r) {
    for (RecorderSink* s : sinks_) s->on_link_bytes(r);
  }
  void on_op_done(const OpRecord& r) {
    for (RecorderSink* s : sinks_) s->on_op_done(r);
  }
  void on_comm_done(const CommRecord& r) {
    for (RecorderSink* s : sinks_) s->on_comm_done(r);
  }
  void on_run_done(const RunRecord& r) {
    for (RecorderSink* s : sinks_) s->on_run_done(r);
  }

 private:
  std::vector<RecorderSink*> sinks_;
  uint8_t hooks_ = 0;  // the union of the sinks' hooks()
};

}  // namespace weft
