// Flight recorder: the most recent records in bounded memory, written out
// only when a trigger asks (flight_recorder.md in collector/README.md).
//
// A RecordRing keeps decoded records in arrival order and drops the oldest
// beyond its bound: a record count, a time span behind the newest record,
// or both. Records that describe things rather than events (devices, host
// links, streams, contexts, stream creations) are kept apart and never
// dropped: a dump needs them whatever its span. Names that point into
// CUPTI's buffers (kernel, NVTX) are copied into the ring's own string set,
// since those buffers go back to CUPTI once decoded.
// Not thread-safe: the writer thread owns it.
#ifndef STREAMSCOPE_COLLECTOR_RECORD_RING_H_
#define STREAMSCOPE_COLLECTOR_RECORD_RING_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_set>

#include "collector/status.h"
#include "collector/trace_records.h"

namespace streamscope::collector {

struct RingBound {
  uint64_t max_records = 0;  // 0: no count bound
  uint64_t span_ns = 0;      // 0: no time bound

  // '30s', '500ms', '2m' (a span) or '1000000' (records); the span form
  // also caps the count at kDefaultMaxRecords so memory stays bounded.
  static StatusOr<RingBound> Parse(std::string_view spec);
  // The form Parse reads ('30s', '1000000 records').
  std::string ToString() const;
};

// The count cap of a time-bounded ring: a held record takes about 300
// bytes (sizeof(TraceRecord) in a deque), so ~140 MiB at most.
inline constexpr uint64_t kDefaultMaxRecords = 500'000;

class RecordRing {
 public:
  explicit RecordRing(RingBound bound) : bound_(bound) {}

  // Takes the records of `batch` (left empty).
  void Add(RecordBatch* batch);
  // A copy of everything held: the kept-apart records first, then the ring
  // oldest first. Names point into this ring: valid until it drops them.
  RecordBatch Snapshot() const;

  const RingBound& bound() const { return bound_; }
  size_t size() const { return ring_.size(); }
  // Records dropped to stay within the bound.
  uint64_t evicted() const { return evicted_; }
  // Time of the oldest and newest timestamped record in the ring (0: none).
  uint64_t first_ns() const;
  uint64_t last_ns() const { return newest_ns_; }

 private:
  std::string_view Own(std::string_view s);
  void Evict();

  RingBound bound_;
  std::deque<TraceRecord> ring_;
  std::deque<TraceRecord> kept_apart_;
  std::unordered_set<std::string> names_;
  uint64_t newest_ns_ = 0;
  uint64_t evicted_ = 0;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_RECORD_RING_H_
