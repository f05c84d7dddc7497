#include "analyzer/render/timing_audit_render.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/op_ref.h"
#include "analyzer/render/text_layout.h"

namespace streamscope {
namespace {

nlohmann::json OpOrNull(const TraceModel& m, int32_t op) {
  return op >= 0 ? OpRefJson(m, op) : nlohmann::json(nullptr);
}

nlohmann::json EventJson(const TraceModel& m, const EventTime& e) {
  return {
      {"event_handle", e.record >= 0 ? nlohmann::json(m.event_ops[e.record].event_handle) : nlohmann::json(nullptr)},
      {"stream_id", StreamIdJson(m, e.stream)},
      {"record_call_ns", e.record >= 0 ? nlohmann::json(e.record_call_ns) : nlohmann::json(nullptr)},
      {"determined", e.determined},
      {"gpu_ns", e.determined ? nlohmann::json(e.gpu_ns) : nlohmann::json(nullptr)},
      {"after_op", OpOrNull(m, e.after_op)},
      {"upper_ns", e.upper_ns >= 0 ? nlohmann::json(e.upper_ns) : nlohmann::json(nullptr)}};
}

std::string Ms(double ms) { return absl::StrFormat("%.3f ms", ms); }

// a - b without signed overflow (times in a damaged trace can be anything).
int64_t SatSub(int64_t a, int64_t b) {
  int64_t d;
  if (!__builtin_sub_overflow(a, b, &d)) return d;
  return b < 0 ? INT64_MAX : INT64_MIN;
}

}  // namespace

std::string ElapsedAuditSentence(const TraceModel& m, const ElapsedAudit& a) {
  std::string s = absl::StrCat("cudaEventElapsedTime read ", Ms(a.elapsed_ms));
  if (!a.determined) {
    const EventTime& bad = a.start.determined ? a.stop : a.start;
    absl::StrAppend(&s, ": the interval cannot be placed on the GPU timeline (the ",
                    a.start.determined ? "stop" : "start", " event ",
                    bad.record < 0 ? "was never recorded before the read" : "was recorded on an unknown stream", ").");
    return s;
  }
  absl::StrAppend(
      &s, " between events on stream ", StreamSourceId(m, a.start.stream),
      a.start.stream == a.stop.stream ? std::string() : absl::StrCat(" and ", StreamSourceId(m, a.stop.stream)),
      " (GPU estimate ", FormatDuration(a.measured_ns), "): the GPU was busy ", FormatDuration(a.inside_busy_ns),
      " inside it, ", FormatDuration(a.inside_other_streams_ns), " of that on other streams.");
  if (a.scope_ops > 0) {
    absl::StrAppend(&s, " The ", a.scope_ops, " GPU ops submitted from the start record to the read (",
                    a.scope_other_stream_ops, " on other streams) ran ", FormatDuration(a.scope_busy_ns), ", ",
                    FormatDuration(a.scope_outside_ns), " of it outside the events");
    if (a.scope_last_end_ns > a.stop.gpu_ns) {
      absl::StrAppend(&s, "; the last ended ", FormatDuration(SatSub(a.scope_last_end_ns, a.stop.gpu_ns)),
                      " after the stop event");
    }
    absl::StrAppend(&s, ".");
  }
  if (a.running_at_stop > 0) {
    absl::StrAppend(&s, " ", a.running_at_stop, " ops on other streams were still running at the stop event (until ",
                    FormatDuration(SatSub(a.running_until_ns, a.stop.gpu_ns)), " after it), e.g. ",
                    OpLabel(m, a.running_ops.front()), ".");
  }
  if (!a.misses_work) absl::StrAppend(&s, " The events cover the work submitted between them.");
  return s;
}

nlohmann::json TimingAuditToJson(const TimingAuditResult& r, const TraceModel& m) {
  nlohmann::json reads = nlohmann::json::array();
  for (const ElapsedAudit& a : r.elapsed) {
    nlohmann::json running = nlohmann::json::array();
    for (int32_t op : a.running_ops) running.push_back(OpRefJson(m, op));
    reads.push_back(
        {{"read_ns", a.read_ns},
         {"elapsed_ms", a.elapsed_ms},
         {"determined", a.determined},
         {"measured_ns", a.determined ? nlohmann::json(a.measured_ns) : nlohmann::json(nullptr)},
         {"start", EventJson(m, a.start)},
         {"stop", EventJson(m, a.stop)},
         {"inside",
          {{"busy_ns", a.inside_busy_ns},
           {"events_stream_ns", a.inside_events_stream_ns},
           {"other_streams_ns", a.inside_other_streams_ns}}},
         {"scope",
          {{"ops", a.scope_ops},
           {"other_stream_ops", a.scope_other_stream_ops},
           {"busy_ns", a.scope_busy_ns},
           {"outside_ns", a.scope_outside_ns},
           {"ops_outside", a.scope_ops_outside},
           {"last_end_ns", a.scope_last_end_ns}}},
         {"running_at_stop", {{"count", a.running_at_stop}, {"until_ns", a.running_until_ns}, {"ops", running}}},
         {"misses_work", a.misses_work},
         {"sentence", ElapsedAuditSentence(m, a)}});
  }
  nlohmann::json totals = nlohmann::json::array();
  for (const NvtxTimingTotal& t : r.nvtx_totals) {
    if (t.with_gpu_work == 0) continue;
    totals.push_back({{"name", std::string(DisplayName(m.strings, t.name))},
                      {"ranges", t.ranges},
                      {"with_gpu_work", t.with_gpu_work},
                      {"incomplete", t.incomplete},
                      {"max_overrun_ns", t.max_overrun_ns},
                      {"total_overrun_ns", t.total_overrun_ns}});
  }
  nlohmann::json worst = nlohmann::json::array();
  for (const NvtxTimingAudit& a : r.nvtx_incomplete) {
    const NvtxRange& range = m.nvtx_ranges[a.range];
    worst.push_back({{"name", std::string(DisplayName(m.strings, range.name))},
                     {"tid", range.tid},
                     {"start_ns", range.start_ns},
                     {"end_ns", range.end_ns.value_or(0)},
                     {"push_pop", range.push_pop},
                     {"ops", a.ops},
                     {"ops_after_end", a.ops_after_end},
                     {"last_end_ns", a.last_end_ns},
                     {"overrun_ns", a.overrun_ns},
                     {"last_op", OpOrNull(m, a.last_op)}});
  }
  return {{"analysis", "timing_audit"},
          {"checked_events", r.has_event_data},
          {"elapsed",
           {{"count", r.elapsed_count},
            {"undetermined", r.elapsed_undetermined},
            {"missing_work", r.elapsed_missing_work},
            {"reads", reads}}},
          {"nvtx",
           {{"ranges", r.nvtx_ranges},
            {"with_gpu_work", r.nvtx_with_gpu_work},
            {"incomplete", r.nvtx_incomplete_count},
            {"totals", totals},
            {"worst", worst}}}};
}

void RenderTimingAuditText(const TimingAuditResult& r, const TraceModel& m, int top, std::ostream& out) {
  out << "\nTiming audit:\n";
  if (!r.has_event_data) {
    out << "  Event timings not checked: the trace holds no event_op records.\n";
  } else if (r.elapsed_count == 0) {
    out << "  No cudaEventElapsedTime read in this window.\n";
  } else {
    out << "  " << r.elapsed_count << " cudaEventElapsedTime reads; " << r.elapsed_missing_work
        << " of them miss GPU work (work outside the events or still running on other streams at the stop event)";
    if (r.elapsed_undetermined > 0) out << "; " << r.elapsed_undetermined << " cannot be placed on the GPU timeline";
    out << ".\n";
    size_t shown = 0;
    for (const ElapsedAudit& a : r.elapsed) {
      if (top >= 0 && shown >= static_cast<size_t>(top)) break;
      out << "  - " << ElapsedAuditSentence(m, a) << "\n";
      ++shown;
    }
  }
  if (r.nvtx_with_gpu_work == 0) {
    out << "  NVTX ranges: none submitted GPU work in this window.\n";
    return;
  }
  out << "  NVTX ranges: " << r.nvtx_with_gpu_work << " of " << r.nvtx_ranges << " submitted GPU work; "
      << r.nvtx_incomplete_count << " ended on the host before that work completed.\n";
  for (const NvtxTimingTotal& t : r.nvtx_totals) {
    if (t.incomplete == 0) continue;
    out << "  - '" << ShortenName(DisplayName(m.strings, t.name)) << "': " << t.incomplete << " of " << t.with_gpu_work
        << " ranges with GPU work ended before it did (worst by " << FormatDuration(t.max_overrun_ns)
        << "): a host timer around it measures submission, not GPU time.\n";
  }
  size_t shown = 0;
  for (const NvtxTimingAudit& a : r.nvtx_incomplete) {
    if (top >= 0 && shown >= static_cast<size_t>(top)) break;
    const NvtxRange& range = m.nvtx_ranges[a.range];
    out << "    '" << ShortenName(DisplayName(m.strings, range.name)) << "' on thread " << range.tid << ": "
        << a.ops_after_end << " of " << a.ops << " ops ended after it, the last " << FormatDuration(a.overrun_ns)
        << " late: " << (a.last_op >= 0 ? OpLabel(m, a.last_op) : std::string("?")) << "\n";
    ++shown;
  }
}

std::vector<ResultTable> TimingAuditToTables(const TimingAuditResult& r, const TraceModel& m) {
  auto opt = [](bool ok, int64_t v) { return ok ? ResultValue(v) : ResultValue(); };
  ResultTable reads{"analysis_timing_audit",
                    {"read_ns",
                     "elapsed_ms",
                     "determined",
                     "start_stream_id",
                     "start_gpu_ns",
                     "stop_stream_id",
                     "stop_gpu_ns",
                     "measured_ns",
                     "inside_busy_ns",
                     "inside_events_stream_ns",
                     "inside_other_streams_ns",
                     "scope_ops",
                     "scope_other_stream_ops",
                     "scope_busy_ns",
                     "scope_outside_ns",
                     "scope_ops_outside",
                     "scope_last_end_ns",
                     "running_at_stop",
                     "running_until_ns",
                     "misses_work"},
                    {}};
  for (const ElapsedAudit& a : r.elapsed) {
    reads.rows.push_back({a.read_ns,
                          a.elapsed_ms,
                          int64_t{a.determined ? 1 : 0},
                          StreamIdCell(m, a.start.stream),
                          opt(a.start.determined, a.start.gpu_ns),
                          StreamIdCell(m, a.stop.stream),
                          opt(a.stop.determined, a.stop.gpu_ns),
                          opt(a.determined, a.measured_ns),
                          a.inside_busy_ns,
                          a.inside_events_stream_ns,
                          a.inside_other_streams_ns,
                          a.scope_ops,
                          a.scope_other_stream_ops,
                          a.scope_busy_ns,
                          a.scope_outside_ns,
                          a.scope_ops_outside,
                          a.scope_last_end_ns,
                          a.running_at_stop,
                          a.running_until_ns,
                          int64_t{a.misses_work ? 1 : 0}});
  }
  ResultTable names{"analysis_timing_audit_nvtx",
                    {"name", "ranges", "with_gpu_work", "incomplete", "max_overrun_ns", "total_overrun_ns"},
                    {}};
  for (const NvtxTimingTotal& t : r.nvtx_totals) {
    names.rows.push_back({std::string(DisplayName(m.strings, t.name)), t.ranges, t.with_gpu_work, t.incomplete,
                          t.max_overrun_ns, t.total_overrun_ns});
  }
  ResultTable ranges{"analysis_timing_audit_nvtx_range",
                     {"nvtx_range_id", "name", "tid", "start_ns", "end_ns", "ops", "ops_after_end", "last_end_ns",
                      "overrun_ns", "last_op_table", "last_op_id"},
                     {}};
  for (const NvtxTimingAudit& a : r.nvtx_incomplete) {
    const NvtxRange& range = m.nvtx_ranges[a.range];
    ranges.rows.push_back(
        {range.source_id, std::string(DisplayName(m.strings, range.name)), range.tid, range.start_ns,
         range.end_ns.value_or(0), a.ops, a.ops_after_end, a.last_end_ns, a.overrun_ns,
         a.last_op >= 0 ? ResultValue(std::string(OpTable(m.ops.category[a.last_op]))) : ResultValue(),
         a.last_op >= 0 ? ResultValue(m.ops.source_id[a.last_op]) : ResultValue()});
  }
  return {std::move(reads), std::move(names), std::move(ranges)};
}

}  // namespace streamscope
