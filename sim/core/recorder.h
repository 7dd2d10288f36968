// The one observer of a simulation: typed hooks forwarded to sinks. Costs one branch when nobody
// listens (callers test active() before building a record).
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

class RecorderSink {
 public:
  virtual ~RecorderSink() = default;
  virtual void on_transfer_done(const TransferRecord&) {}
  virtual void on_collective_done(const CollectiveRecord&) {}
  virtual void on_queue_sample(const QueueSample&) {}
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
  void add_sink(RecorderSink& sink) { sinks_.push_back(&sink); }
  bool active() const { return !sinks_.empty(); }

  void on_transfer_done(const TransferRecord& r) {
    for (RecorderSink* s : sinks_) s->on_transfer_done(r);
  }
  void on_collective_done(const CollectiveRecord& r) {
    for (RecorderSink* s : sinks_) s->on_collective_done(r);
  }
  void on_queue_sample(const QueueSample& r) {
    for (RecorderSink* s : sinks_) s->on_queue_sample(r);
  }

 private:
  std::vector<RecorderSink*> sinks_;
};

}  // namespace weft
