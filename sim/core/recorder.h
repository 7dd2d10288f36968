// The one observer of a simulation and the one way its results leave it: typed hooks forwarded to
// sinks (a link timeline, flow completion times, memory for tests). Each sink says which hooks it
// listens to; a hook costs one branch when nobody does (callers test wants() before building a
// record), so a sink of link bytes does not stop a fabric from running copies as one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

// What a sink listens to, as bits of RecorderSink::hooks().
enum class Hook : uint8_t { transfers = 1, collectives = 2, queue_samples = 4, link_bytes = 8, ops = 16 };

class RecorderSink {
 public:
  virtual ~RecorderSink() = default;
  // A set of Hook bits; the default, every hook but link bytes and ops (the per-transfer records).
  virtual uint8_t hooks() const { return kRecordHooks; }
  virtual void on_transfer_done(const TransferRecord&) {}
  virtual void on_collective_done(const CollectiveRecord&) {}
  virtual void on_queue_sample(const QueueSample&) {}
  virtual void on_link_bytes(const LinkBytes&) {}
  virtual void on_op_done(const OpRecord&) {}

  static constexpr uint8_t kRecordHooks = static_cast<uint8_t>(Hook::transfers) |
                                          static_cast<uint8_t>(Hook::collectives) |
                                          static_cast<uint8_t>(Hook::queue_samples);
};

// Keeps every record in memory: for tests and the Python bindings.
class MemorySink : public RecorderSink {
 public:
  void on_transfer_done(const TransferRecord& r) override { transfers.push_back(r); }
  void on_collective_done(const CollectiveRecord& r) override { collectives.push_back(r); }
  void on_queue_sample(const QueueSample& r) override { queue_samples.push_back(r); }

  std::vector<TransferRecord> transfers;
  std::vector<CollectiveRecord> collectives;
  std::vector<QueueSample> queue_samples;
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

 private:
  std::vector<RecorderSink*> sinks_;
  uint8_t hooks_ = 0;  // the union of the sinks' hooks()
};

}  // namespace weft
