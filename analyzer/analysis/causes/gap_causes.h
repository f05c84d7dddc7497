// Gap causes (docs/DEFINITIONS.md): the cause of every device idle gap.
//
// A device gap is a maximal interval of the window in which no op of the
// device ran (the complement of the device's busy union; zero-length ops
// never make a device busy). The gap ends when op X starts; A is the API
// call that submitted X (TraceModel::ApiForOp) and T its host thread.
//
// Rules, in order (gs/ge = gap start/end after clipping to the window):
//   * No op of the device before the gap          -> window_start.
//   * No op of the device after the gap           -> window_end.
//   * X has no recorded submitting call           -> unknown_submitter.
//   * A.start > gs: the GPU waited for the CPU. When T was, at gs, inside
//     a call that waited for the GPU (it started at or before gs and
//     returned at or after gs - sync_return_tolerance_ns, and inside the
//     window: an explicit synchronize, or a copy call that held the host
//     until its copy ran — a synchronous one, or an *Async one followed by
//     an explicit synchronize before the submission of X),
//     the host drained the GPU's queue and then decided what to submit:
//     the whole gap [gs, ge), X's launch path included (nothing queued hid
//     it), is one part, named after that call,
//     round_trip when the op that ended the busy time was a device-to-host
//     copy (the host read back a result and tested it) and the call was
//     a synchronize or the copy call itself, else sync_wait when the call
//     was an explicit synchronize. Host work the program named apart ends
//     that part: from the start of an NVTX range T entered after the wait
//     returned, named unlike T's innermost range during the wait (a
//     'prepare' after the sync, not the loop's next 'step'), the rest is
//     split as below. Otherwise [gs, min(A.start, ge)) is
//     split by what T did: inside a CUDA API call (outermost call on T; the
//     call is named) -> host_blocked_in_call, or first_launch when the call
//     is a first-launch outlier (steady_state.h: a kernel's first launch much
//     slower than its others, loading its module; reported apart, never CPU
//     starvation); else inside an NVTX range on T
//     (the innermost one, named) -> host_nvtx_range; else
//     host_unannotated. The rest, [A.start, ge), is the launch path of X
//     -> submission_latency.
//   * A.start <= gs (X was being or had been submitted): the whole gap gets
//     one cause: gap < submission_latency_threshold_ns -> submission_latency;
//     else a stream_wait_event on X's stream (sync record or callback-API
//     event wait) issued between the submission of X's stream predecessor
//     and A.end -> dependency_event_wait; else a host callback
//     (cudaLaunchHostFunc, cudaStreamAddCallback, cu* forms) on T in that
//     span -> dependency_host_callback; else X's stream predecessor ended
//     after gs, or an op on another device ended within
//     dependency_tolerance_ns before X started (and after gs)
//     -> dependency_other_stream; else A ended after gs (the launch call
//     itself was still running) -> submission_latency; else
//     queued_unexplained.
// Cost: O(n log n) in ops, API calls and NVTX ranges; one pass over ops.
// Thread-safe: reads the model only.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_GAP_CAUSES_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_GAP_CAUSES_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

enum class GapCause : uint8_t {
  kHostBlockedInCall = 0,
  kHostNvtxRange = 1,
  kHostUnannotated = 2,
  kSubmissionLatency = 3,
  kDependencyEventWait = 4,
  kDependencyHostCallback = 5,
  kDependencyOtherStream = 6,
  kQueuedUnexplained = 7,
  kUnknownSubmitter = 8,
  kWindowStart = 9,
  kWindowEnd = 10,
  kFirstLaunch = 11,
  kRoundTrip = 12,
  kSyncWait = 13,
};
inline constexpr int kNumGapCauses = 14;
// A result read back to be tested is small (a residual, a loss, a flag): a
// device-to-host copy of at most this many bytes. A larger copy is data the
// host goes on to process, not a round trip (compare uses the same bound).
inline constexpr int64_t kResultReadBackMaxBytes = 64 << 10;
// "host_blocked_in_call", "host_nvtx_range", "host_unannotated",
// "submission_latency", "dependency_event_wait", "dependency_host_callback",
// "dependency_other_stream", "queued_unexplained", "unknown_submitter",
// "window_start", "window_end", "first_launch", "round_trip", "sync_wait".
std::string_view GapCauseName(GapCause c);
// The three host_* causes: the GPU waited for the CPU.
bool IsCpuStarvation(GapCause c);
// round_trip and sync_wait: the host drained the GPU, then worked.
bool IsHostDrain(GapCause c);

struct GapCausesOptions {
  int64_t submission_latency_threshold_ns = 20'000;
  int64_t dependency_tolerance_ns = 5'000;
  // A synchronizing call that returned at most this long before the GPU
  // went idle still waited for the op that ended the busy time.
  int64_t sync_return_tolerance_ns = 5'000;
  int max_listed_gaps = 20;  // worst gaps kept with their parts
  // Also charge each part that names a call to that call (idle_by_call):
  // what hidden synchronization cites for its calls.
  bool charge_calls = false;
  // Keep every part of every gap (GapCausesResult::parts): the per-instance
  // breakdown (step_breakdown.h) cuts the partition at instance bounds, and
  // the critical path cites the idle time it crosses.
  bool keep_parts = false;
};

// One part of a gap with a single cause.
struct GapPart {
  GapCause cause = GapCause::kHostUnannotated;
  int64_t start_ns = 0, end_ns = 0;
  StringId detail = kNoString;  // API name (blocked, round trip, sync wait) or NVTX range name
  int32_t api = -1;             // host_blocked_in_call, first_launch, round_trip, sync_wait: the call (api index)
  int32_t nvtx = -1;            // host_nvtx_range: index into model.nvtx_ranges
  int64_t length() const { return end_ns - start_ns; }
};

struct GapFinding {
  int32_t device_id = 0;
  int64_t start_ns = 0, end_ns = 0;               // clipped to the window
  int32_t prev_op = -1;                           // op whose end began the gap (op index), -1 at window start
  int32_t next_op = -1;                           // X (op index), -1 at window end
  int32_t api = -1;                               // A (api index), -1 if unknown
  int64_t tid = -1;                               // T, -1 if unknown
  GapCause primary = GapCause::kHostUnannotated;  // the part with most time
  std::vector<GapPart> parts;                     // in time order, cover [start_ns, end_ns)
  int64_t length() const { return end_ns - start_ns; }
};

// Idle time of one device with a given cause, detail and submitting thread.
struct GapCauseTotal {
  int32_t device_id = 0;
  GapCause cause = GapCause::kHostUnannotated;
  StringId detail = kNoString;
  int64_t tid = -1;  // T of the gaps (-1: none known)
  int64_t ns = 0;
  int64_t gaps = 0;  // gaps with a part of this key
};

struct DeviceGapSummary {
  int32_t device_id = 0;
  int64_t window_ns = 0, busy_ns = 0, idle_ns = 0;
  int64_t gaps = 0;
  std::array<int64_t, kNumGapCauses> cause_ns{};
};

// Time the GPU waited for one host thread (host_* causes only).
struct ThreadStarvation {
  int64_t tid = 0;
  int32_t device_id = 0;
  int64_t starved_ns = 0;  // sum of host_* parts
  int64_t gaps = 0;
  std::array<int64_t, kNumGapCauses> cause_ns{};
};

struct GapCausesResult {
  Window window;
  GapCausesOptions options;
  std::vector<DeviceGapSummary> devices;          // by device id
  std::vector<GapCauseTotal> totals;              // by ns, largest first
  std::vector<ThreadStarvation> threads;          // by starved_ns, largest first
  std::vector<GapFinding> worst_gaps;             // longest first, at most max_listed_gaps
  int64_t idle_ns = 0;                            // all devices
  std::array<int64_t, kNumGapCauses> cause_ns{};  // all devices
  // With options.charge_calls: the idle time of the parts that name a call
  // (host_blocked_in_call, first_launch, round_trip, sync_wait), per call
  // (api index), all devices.
  absl::flat_hash_map<int32_t, int64_t> idle_by_call;
  // With options.keep_parts: every part of every gap, all devices, each
  // device's in time order; they tile idle time (sum == idle_ns).
  std::vector<GapPart> parts;
};

GapCausesResult AnalyzeGapCauses(const TraceModel& model, const Window& window, const GapCausesOptions& options = {});

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_GAP_CAUSES_H_
