// Timing audit (docs/DEFINITIONS.md): the application's own timings checked
// against the GPU work that really ran.
//
// cudaEventElapsedTime reads (event_op 'elapsed'): each of the two events is
// the most recent record of it made before the read. An event completes on
// the GPU when the stream reaches it: after every op its record covered
// (HappensBefore::RecordCover: the stream's earlier ops and whatever they
// waited for) and not before the record call. Estimate = max(record call
// start, end of each covered stream's last covered op); `after_op` names the
// op that set it (-1: the call, the stream was idle). It is capped by the
// start of the first op submitted to the stream after the record (the
// event completed before it). Undetermined (determined = false) when the
// event was never recorded before the read or its record's stream is
// unknown. For a determined pair:
//   inside:  GPU work (union of op intervals, any stream) in [start, stop],
//            split into the events' stream and the other streams;
//   scope:   the ops submitted (any stream) from the start record call to
//            the read, the work the application presumably meant to time:
//            their time outside [start, stop] (`scope_outside_ns`, union),
//            how many ran partly outside, and how late the last one ended;
//   running: ops on other streams still running at the stop event, and how
//            long after it the last of them ended.
// `misses_work` = scope_outside_ns > 0 or ops on other streams running at
// the stop event.
//
// NVTX ranges (push/pop and start/end, closed ones): the GPU ops whose
// submitting call started inside the range (on the range's thread for
// push/pop, any thread for start/end); the range is `incomplete` when one
// of them ended after the range ended (`overrun_ns` = last end - range end).
//
// Reads and ranges are audited when the read call / the range start lies in
// the window. Cost O(n log n + r * k) for r reads or ranges and k ops or
// calls each touches. Thread-safe: reads the model and the order only.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_TIMING_AUDIT_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_TIMING_AUDIT_H_

#include <cstdint>
#include <vector>

#include "analyzer/analysis/memory/happens_before.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct TimingAuditOptions {
  int max_listed = 20;     // elapsed reads and NVTX ranges listed
  int max_listed_ops = 8;  // ops named per read (running at the stop event)
};

struct EventTime {
  int32_t record = -1;  // index into model.event_ops of the record; -1 = none
  int32_t stream = -1;
  int64_t record_call_ns = 0;
  bool determined = false;
  int64_t gpu_ns = 0;     // estimate
  int32_t after_op = -1;  // the op whose end set the estimate; -1 = the record call
  int64_t upper_ns = -1;  // start of the next op on the stream after the record; -1 = none
};

struct ElapsedAudit {
  int32_t read = -1;  // index into model.event_ops
  int64_t read_ns = 0;
  double elapsed_ms = 0;  // what the application read
  EventTime start, stop;
  bool determined = false;
  int64_t measured_ns = 0;  // stop.gpu_ns - start.gpu_ns
  int64_t inside_busy_ns = 0, inside_events_stream_ns = 0, inside_other_streams_ns = 0;
  int64_t scope_ops = 0, scope_other_stream_ops = 0, scope_busy_ns = 0;
  int64_t scope_outside_ns = 0, scope_ops_outside = 0;
  int64_t scope_last_end_ns = 0;     // latest end of a scope op (0 if none)
  int64_t running_at_stop = 0;       // ops on other streams running at the stop event
  std::vector<int32_t> running_ops;  // some of them (max_listed_ops)
  int64_t running_until_ns = 0;      // the last of them ended (0 if none)
  bool misses_work = false;
};

struct NvtxTimingAudit {
  int32_t range = -1;  // index into model.nvtx_ranges
  int64_t ops = 0, ops_after_end = 0;
  int64_t last_end_ns = 0;
  int32_t last_op = -1;
  int64_t overrun_ns = 0;
  bool incomplete() const { return ops_after_end > 0; }
};

struct NvtxTimingTotal {
  StringId name = kNoString;
  int64_t ranges = 0, with_gpu_work = 0, incomplete = 0;
  int64_t max_overrun_ns = 0, total_overrun_ns = 0;
};

struct TimingAuditResult {
  Window window;
  bool has_event_data = false;        // the trace holds event_op rows
  std::vector<ElapsedAudit> elapsed;  // in read order, at most max_listed
  int64_t elapsed_count = 0, elapsed_undetermined = 0, elapsed_missing_work = 0;
  std::vector<NvtxTimingAudit> nvtx_incomplete;  // largest overrun first, at most max_listed
  std::vector<NvtxTimingTotal> nvtx_totals;      // by name, ranges with GPU work only
  int64_t nvtx_ranges = 0, nvtx_with_gpu_work = 0, nvtx_incomplete_count = 0;
};

// `order` may be null when the trace has no cudaEventElapsedTime read (then
// only NVTX ranges are audited; reads, if any, are undetermined).
TimingAuditResult AnalyzeTimingAudit(const TraceModel& model, const HappensBefore* order, const Window& window,
                                     const TimingAuditOptions& options = {});

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_TIMING_AUDIT_H_
