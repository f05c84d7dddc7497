// Renders a HiddenSyncResult as JSON, text and result tables.
//
// JSON (stable; times in trace-clock ns, shares as fractions 0..1):
//   { "analysis": "hidden_sync",
//     "window": {label, start_ns, end_ns, length_ns},
//     "options": {serialization_tolerance_ns, drain_tolerance_ns, long_call_ns,
//                 long_call_median_factor, pageable_hold_fraction, max_listed},
//     "serialization": {
//        "count": {blocking_waited_for_legacy, legacy_waited_for_blocking},
//        "delay_ns": {blocking_waited_for_legacy, legacy_waited_for_blocking},
//        "worst": [{direction, delayed_op, waited_op, ready_ns, delay_ns}]},  // largest delay first
//     "implicit_sync": {
//        "idle_account_ns",
//        "totals": [{name, kind, calls, observed_calls, call_ns, waited_ns, idle_account_ns}],
//        "worst": [{api: {id, name, tid, start_ns, end_ns, duration_ns}, kind, observed,
//                   own_op, waited_for_op, waited_ns, drained_ops, idle_account_ns}]},  // longest call first
//     "explicit_sync": {
//        "host_ns", "gpu_idle_ns", "gpu_idle_share", "idle_account_ns",
//        "totals": [{kind, count, host_ns, gpu_idle_ns, gpu_idle_share, idle_account_ns}],
//        "worst": [{kind, sync_id, api (as above, or null), tid, stream_id, device_id,
//                   start_ns, end_ns, host_ns, gpu_idle_ns, idle_account_ns}]},
//     "idle_account": whether idle_account_ns cite the one account of idle
//        time (the gap causes' idle charged to the calls; 0 otherwise) }
//   gpu_idle_ns is the device's idle time *during* the syncs;
//   idle_account_ns the account's idle charged to the calls (during them,
//   and after them until the next launch).
//   "worst" lists hold at most options.max_listed entries. An op object:
//   {table, id, category, name, stream_id, stream_kind, device_id, start_ns,
//   end_ns, src_kind, dst_kind, bytes} (or null).
//
// Tables:
//   analysis_hidden_sync: window, section ('serialization', 'implicit',
//     'explicit'), name (direction, API name or sync kind), kind, count,
//     observed, ns (delay, call time or host time), waited_ns, gpu_idle_ns,
//     idle_account_ns (null without the account).
//   analysis_hidden_sync_serialization (every finding): window, direction,
//     device_id, delayed_op_table, delayed_op_id, delayed_stream_id,
//     delayed_start_ns, ready_ns, delay_ns, waited_op_table, waited_op_id,
//     waited_stream_id, waited_end_ns.
//   analysis_hidden_sync_calls (every flagged call): window, api_id, name,
//     kind, tid, start_ns, end_ns, duration_ns, observed, own_op_table,
//     own_op_id, waited_for_op_table, waited_for_op_id, waited_ns, drained_ops,
//     idle_account_ns.
#ifndef STREAMSCOPE_ANALYZER_RENDER_HIDDEN_SYNC_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_HIDDEN_SYNC_RENDER_H_

#include <ostream>
#include <vector>

#include "analyzer/analysis/causes/hidden_sync.h"
#include "analyzer/base/result_table.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

nlohmann::json HiddenSyncToJson(const HiddenSyncResult& result, const TraceModel& model);
void RenderHiddenSyncText(const HiddenSyncResult& result, const TraceModel& model, std::ostream& out);
std::vector<ResultTable> HiddenSyncToTables(const HiddenSyncResult& result, const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_HIDDEN_SYNC_RENDER_H_
