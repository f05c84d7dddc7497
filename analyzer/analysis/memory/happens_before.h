// Happens-before (docs/DEFINITIONS.md): the order between GPU ops that
// the program guaranteed — not the order that happened to occur.
//
// Edges, all taken from what the host submitted and when:
//   * stream order: ops of one stream run in submission order;
//   * event record -> stream wait: a cudaStreamWaitEvent orders the stream's
//     later commands after the most recent record of that event made before
//     the wait call (a wait on a never-recorded event orders nothing);
//   * host waits: cudaStreamSynchronize (the stream's submitted work),
//     cudaEventSynchronize and a cudaEventQuery that returned cudaSuccess
//     (what the event's most recent record covered; a query whose call was
//     not recorded counts as successful: the collector records only those),
//     cudaDeviceSynchronize /
//     cudaCtxSynchronize (every stream): commands submitted after the call
//     returned (by any host thread) are ordered after what it covered;
//   * synchronous calls, by the hidden-sync analysis' name classes (implicit syncs):
//     cudaMemcpy/cudaMemset without Async hold the host until their own op
//     is done; cudaMalloc/cudaFree (and Pitch/3D/Array/Managed, cuMemAlloc/
//     cuMemFree), pinned allocation and registration, device-config calls
//     drain the whole device (CUDA Programming Guide, "Implicit
//     Synchronization");
//   * legacy default stream: a command on the legacy stream is ordered after
//     everything submitted before it to the blocking streams of its context,
//     and a command on a blocking stream after everything submitted before
//     it to the legacy stream. Per-thread default streams count as blocking
//     (CUDA: "not a non-blocking stream; synchronizes with the legacy default
//     stream"); non-blocking streams and streams of unknown kind are exempt.
// Submission time is the start of the op's submitting API call (an op whose
// call is missing uses its GPU start, counted in stats()["op_without_call"]);
// an event record or wait is placed at its call's start too (event_op.ts_ns
// when the call is missing); ties break by correlation id.
//
// Representation: every op gets its position on its stream. Incoming edges
// only change a stream's clock at "join points"; each join point stores a
// vector clock over streams: vc[a] = how many of stream a's first ops are
// ordered before the ops of this stream from the join point on. Build cost
// O(n log n + J*S + L*S) for n commands, J join points, S streams and L
// legacy-stream rule checks; memory O(n + J*S). A query "does X happen
// before Y" is one binary search over Y's stream's join points: O(log J).
//
// Ownership: borrows nothing after construction; immutable and thread-safe
// to read.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_HAPPENS_BEFORE_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_HAPPENS_BEFORE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analyzer/model/trace_model.h"

namespace streamscope {

class HappensBefore {
 public:
  static constexpr uint32_t kNoPosition = UINT32_MAX;

  // `model` must be finalized.
  explicit HappensBefore(const TraceModel& model);

  // True when the program guaranteed that op `a` (index into model.ops)
  // completes before op `b` starts. Irreflexive; false for ops without a
  // stream.
  bool Ordered(int32_t a, int32_t b) const;
  bool Unordered(int32_t a, int32_t b) const { return a != b && !Ordered(a, b) && !Ordered(b, a); }

  // How many of stream `stream`'s first ops are ordered before op `op`
  // (for op's own stream: its position).
  uint32_t Cover(int32_t op, int32_t stream) const;
  // The op's position on its stream (submission order), kNoPosition if none.
  uint32_t Position(int32_t op) const { return position_[op]; }
  // Global submission rank (0 = first submitted).
  uint32_t SubmitRank(int32_t op) const { return rank_[op]; }
  int64_t SubmitTime(int32_t op) const { return submit_ns_[op]; }
  // Every op in submission order (the inverse of SubmitRank).
  const std::vector<int32_t>& OpsBySubmission() const { return by_rank_; }
  // The op at `pos` on `stream` (submission order), or -1.
  int32_t OpAt(int32_t stream, uint32_t pos) const;
  uint32_t StreamOpCount(int32_t stream) const;
  size_t stream_count() const { return stream_ops_.size(); }

  // What an event record (index into model.event_ops, op kRecord) covered:
  // per stream, how many of its first ops complete before the event does.
  // Empty when the record's stream is unknown or the index is not a record.
  std::vector<uint32_t> RecordCover(size_t event_op_index) const;

  // Counters: edges applied per mechanism ("edge_event_wait",
  // "edge_host_sync", "edge_sync_call", "edge_legacy_stream"), and inputs
  // that could not be used ("op_without_call", "wait_before_record",
  // "event_op_without_stream", "stream_sync_without_stream", ...).
  const std::map<std::string, int64_t>& stats() const { return stats_; }

 private:
  struct JoinPoint {
    uint32_t first_position;  // applies to ops at this position and after
    uint32_t offset;          // into vc_pool_
  };
  const JoinPoint* JoinFor(int32_t stream, uint32_t position) const;

  friend class HappensBeforeBuilder;
  std::vector<uint32_t> position_, rank_;
  std::vector<int32_t> op_stream_, by_rank_;
  std::vector<int64_t> submit_ns_;
  std::vector<std::vector<int32_t>> stream_ops_;  // per stream, ops by position
  std::vector<std::vector<JoinPoint>> joins_;     // per stream, by first_position
  std::vector<uint32_t> vc_pool_;                 // S entries per join point / record
  std::vector<uint32_t> record_offset_;           // per event op; UINT32_MAX = none
  std::map<std::string, int64_t> stats_;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_HAPPENS_BEFORE_H_
