// Hidden synchronization (docs/DEFINITIONS.md).
//
// (a) Legacy default-stream serialization. "Blocking" streams are
//     StreamKind::kBlocking and kPerThreadDefault (both synchronize with the
//     legacy default stream); the legacy stream is kLegacyDefault. An op Y
//     with a recorded submitting call is ready at max(end of that call, end
//     of the previous op on Y's stream). Y on a blocking stream is delayed
//     by a legacy op L of the same device (and context, when both are known)
//     when: L ended at most serialization_tolerance_ns before Y started
//     (L.end <= Y.start <= L.end + tol), Y was ready before L ended, L's call
//     started before Y's call (when L's call is known), and the delay
//     Y.start - ready exceeds the tolerance. The reverse (a legacy op delayed
//     by a blocking-stream op) uses the same rule with the roles swapped.
//     Only ops that start inside the window are examined.
// (b) Implicitly synchronizing calls. Only outermost calls on their thread
//     (a driver call inside a runtime call is the same call), overlapping
//     the window (a call that began before it and returned inside it
//     counts, with its whole duration). By name (matched once per distinct name, ignoring
//     _ptsz/_ptds/_vN suffixes):
//       sync_memcpy   cudaMemcpy*, cuMemcpy* without "Async";
//       sync_memset   cudaMemset*, cuMemset* without "Async";
//       alloc_free    cudaMalloc/Free (Pitch, 3D, Array, Managed), cuMemAlloc/Free*;
//       pinned_alloc_free cudaMallocHost, cudaFreeHost, cudaHostAlloc,
//                     cudaHostRegister/Unregister, cuMemAllocHost, cuMemFreeHost,
//                     cuMemHostAlloc, cuMemHostRegister/Unregister;
//       device_config cudaDeviceSetLimit/CacheConfig/SharedMemConfig,
//                     cudaThreadSetLimit, cuCtxSetLimit/CacheConfig/SharedMemConfig;
//       pageable_async_memcpy an *Async copy call whose copy op reads or
//                     writes pageable memory;
//     all of these are listed. Each gets the GPU work it waited for: the
//     latest-ending op of another call that ended inside the call (and, for
//     calls with their own op, before their op started + drain tolerance);
//     `observed` = such an op exists (for pageable async copies: the call
//     ended after the copy ended - drain tolerance, or lasted at least
//     pageable_hold_fraction of the copy). Any other call (not *Synchronize*)
//     is listed as `timing` when it lasted > long_call_ns or >
//     long_call_median_factor x the median of its name, and ended within
//     drain_tolerance_ns after an op of another call that ended inside it.
// (c) Explicit syncs: each sync record other than stream_wait_event (a
//     device-side wait that does not block the host), and each
//     *Synchronize* call with no sync record of the same correlation id
//     (typed by its name), clipped to
//     the window: host time blocked, and the time in it that the device
//     involved (the stream's device; all devices together when no stream is
//     known) ran no op.
// With the window's gap causes (the one account of idle time,
// idle_partition.h), every call of (b) and (c) also cites the idle time that
// account charges to it (idle_account_ns: its round_trip, sync_wait,
// host_blocked_in_call and first_launch parts, all devices): the figure the
// summary, gap causes and diagnosis give for the same time. The GPU idle
// *during* a sync (gpu_idle_ns) is a different measure: the account also
// charges the sync the idle time after it returned, until the next launch.
// Cost: O(n log n). Thread-safe: reads the model only.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_HIDDEN_SYNC_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_HIDDEN_SYNC_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct HiddenSyncOptions {
  int64_t serialization_tolerance_ns = 5'000;
  int64_t drain_tolerance_ns = 5'000;
  int64_t long_call_ns = 50'000;
  double long_call_median_factor = 10.0;
  double pageable_hold_fraction = 0.5;
  int max_listed = 20;  // explicit syncs kept (longest); renderers list this many of each kind
};

enum class SerializationDirection : uint8_t {
  kBlockingWaitedForLegacy = 0,  // op on a blocking stream waited for a legacy-stream op
  kLegacyWaitedForBlocking = 1,  // legacy-stream op waited for blocking-stream work
};
// "blocking_waited_for_legacy", "legacy_waited_for_blocking"
std::string_view SerializationDirectionName(SerializationDirection d);

struct SerializationFinding {
  SerializationDirection direction = SerializationDirection::kBlockingWaitedForLegacy;
  int32_t delayed_op = -1;  // op index
  int32_t waited_op = -1;   // op index of the op it waited for
  int64_t ready_ns = 0;     // when the delayed op could have started
  int64_t delay_ns = 0;     // delayed op start - ready_ns
};

enum class ImplicitSyncKind : uint8_t {
  kSyncMemcpy = 0,
  kPageableAsyncMemcpy = 1,
  kSyncMemset = 2,
  kAllocFree = 3,
  kPinnedAllocFree = 4,
  kDeviceConfig = 5,
  kTiming = 6,
};
inline constexpr int kNumImplicitSyncKinds = 7;
// "sync_memcpy", "pageable_async_memcpy", "sync_memset", "alloc_free",
// "pinned_alloc_free", "device_config", "timing"
std::string_view ImplicitSyncKindName(ImplicitSyncKind k);

struct ImplicitSyncFinding {
  int32_t api = -1;  // api index
  ImplicitSyncKind kind = ImplicitSyncKind::kTiming;
  int32_t own_op = -1;          // the call's own op (copy/memset), -1 if none
  int32_t waited_for_op = -1;   // latest-ending op of another call that drained during the call
  int64_t waited_ns = 0;        // waited_for_op end - call start
  int64_t drained_ops = 0;      // ops of other calls that ended inside the call
  bool observed = false;        // timing shows the call held the host
  int64_t idle_account_ns = 0;  // idle the account charges to the call
};

struct ImplicitSyncTotal {
  StringId name = kNoString;
  ImplicitSyncKind kind = ImplicitSyncKind::kTiming;
  int64_t calls = 0, observed_calls = 0;
  int64_t call_ns = 0;    // host time in these calls
  int64_t waited_ns = 0;  // sum of waited_ns
  int64_t idle_account_ns = 0;
};

struct ExplicitSyncFinding {
  SyncKind kind = SyncKind::kUnknown;
  int32_t sync = -1;  // index into model.syncs, -1 if only the API call was recorded
  int32_t api = -1;   // api index, -1 if unknown
  int64_t tid = -1;
  int32_t stream = -1;               // stream index, -1 if unknown
  int32_t device_id = -1;            // -1: all devices
  int64_t start_ns = 0, end_ns = 0;  // clipped to the window
  int64_t gpu_idle_ns = 0;           // device idle during the sync
  int64_t idle_account_ns = 0;       // idle the account charges to the call
  int64_t length() const { return end_ns - start_ns; }
};

struct ExplicitSyncTotal {
  SyncKind kind = SyncKind::kUnknown;
  int64_t count = 0, host_ns = 0, gpu_idle_ns = 0, idle_account_ns = 0;
};

struct HiddenSyncResult {
  Window window;
  HiddenSyncOptions options;
  // (a) in order of the delayed op's start.
  std::vector<SerializationFinding> serialization;
  std::array<int64_t, 2> serialization_count{}, serialization_delay_ns{};  // by direction
  // (b) in call order.
  std::vector<ImplicitSyncFinding> implicit_calls;
  std::vector<ImplicitSyncTotal> implicit_totals;  // by call_ns, largest first
  // (c)
  std::vector<ExplicitSyncFinding> explicit_syncs;  // longest first, at most max_listed
  std::vector<ExplicitSyncTotal> explicit_totals;   // by host_ns, largest first
  int64_t explicit_host_ns = 0, explicit_gpu_idle_ns = 0;
  // Whether the figures cite the idle account (AnalyzeHiddenSync was given
  // the gap causes), and its totals over (b) and (c).
  bool idle_account = false;
  int64_t implicit_idle_account_ns = 0, explicit_idle_account_ns = 0;
};

// `idle_account`: the same window's gap causes, run with charge_calls.
HiddenSyncResult AnalyzeHiddenSync(const TraceModel& model, const Window& window, const HiddenSyncOptions& options = {},
                                   const GapCausesResult* idle_account = nullptr);

// Drops the whole-trace facts AnalyzeHiddenSync builds once per trace (its
// next call builds them again): once the last window is analyzed, their
// memory (about 5 bytes an API call) goes to the analyses that follow. Not
// while AnalyzeHiddenSync may run on another thread.
void ForgetHiddenSyncFacts(const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_HIDDEN_SYNC_H_
