// One account of idle time (docs/DEFINITIONS.md, "One account of idle time"): inside a window, every
// idle nanosecond of a device belongs to exactly one cause, and every
// section cites that one partition.
//
// The partition is the gap causes' (gap_causes.h): each device gap is cut
// into single-cause parts by one precedence rule, in this order:
//   window_start, window_end        before the device's first op, after its last
//   unknown_submitter               the next op has no recorded call
//   round_trip, sync_wait           the host had drained the GPU (it was in a
//                                   synchronizing call when the GPU went idle)
//                                   and then decided what to submit: a result
//                                   read back (round trip), else a sync; the
//                                   whole gap, the next launch's path included
//   first_launch                    the submitting thread in a first launch (module load)
//   host_blocked_in_call            ... in another CUDA call (named)
//   host_nvtx_range                 ... in host code inside an NVTX range (named)
//   host_unannotated                ... in other host code
//   submission_latency              the launch path of the next op
//   dependency_event_wait, dependency_host_callback, dependency_other_stream,
//   queued_unexplained              the next op was submitted in time and waited
//
// A diagnosis' finding owns whole causes of that partition (or, for
// implicitly synchronizing and pageable copy calls, the host_blocked_in_call
// parts of those calls), never a part another finding owns, so the idle
// costs of its findings add up to at most the window's idle time:
//   round_trip              round_trip
//   sync_between            sync_wait
//   event_wait              dependency_event_wait (its delays beyond that ran
//                           on busy time: lost concurrency)
//   implicit_sync_call      host_blocked_in_call in the implicitly synchronizing calls
//   pageable_copies         host_blocked_in_call in the held pageable copy calls
//                           (host_held_idle_ns), plus its busy cost
//   cpu_starvation          the other host_* parts
//   small_work              submission_latency
// Costs measured on busy time are a separate budget: a copy at a slow,
// pageable rate (pageable_copies beyond its held idle), contention, copies
// bound by the link, copies and kernels that could have overlapped
// (same_stream, copy_engines, no_concurrent_kernels), and work that waited
// for an event or behind the legacy default stream while the device ran
// other work.
// Window edges and first launches are reported apart, never a cost.
// Pure functions; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_IDLE_PARTITION_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_IDLE_PARTITION_H_

#include <cstdint>
#include <functional>
#include <string_view>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// The part of a finding's measured cost that is idle time of the partition.
int64_t IdleCostNs(const DiagnoseFinding& f);
// The part measured on busy time (the separate budget).
int64_t BusyCostNs(const DiagnoseFinding& f);

struct IdleAccount {
  int64_t idle_ns = 0;            // the window's idle time, all devices (the partition's total)
  int64_t reported_apart_ns = 0;  // window edges and first launches
  int64_t idle_costs_ns = 0;      // findings' idle costs: at most idle_ns - reported_apart_ns
  int64_t busy_costs_ns = 0;      // findings' costs on busy time
  int64_t unclaimed_ns = 0;       // idle no finding owns (idle - apart - idle costs)
};
// From the diagnosis' partition totals (DiagnoseResult::idle_ns, idle_apart_ns).
IdleAccount AccountIdle(const DiagnoseResult& diagnose);

// The partition's host_blocked_in_call time in calls whose base name
// (BaseApiName) `owns` accepts.
int64_t BlockedInCallsNs(const TraceModel& model, const GapCausesResult& gaps,
                         const std::function<bool(std::string_view base_name)>& owns);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_IDLE_PARTITION_H_
