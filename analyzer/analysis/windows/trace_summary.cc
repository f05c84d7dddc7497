#include "analyzer/analysis/windows/trace_summary.h"

#include "absl/strings/match.h"

namespace streamscope {

bool IsExpectedRecordStat(const std::string& key) { return absl::EndsWith(key, "_before_recording"); }

bool IsDroppedRecordStat(const std::string& key) {
  return absl::EndsWith(key, "_end_before_start") || absl::EndsWith(key, "_zero_timestamp") ||
         absl::EndsWith(key, "_unknown_kind") || absl::EndsWith(key, "_time_out_of_range") ||
         absl::EndsWith(key, "_null_timestamp") || absl::EndsWith(key, "_incomplete") ||
         absl::EndsWith(key, "_left_out");
}

TraceSummary SummarizeTrace(const TraceModel& model) {
  TraceSummary s;
  s.path = model.path;
  s.format = model.format;
  s.pid = model.pid;
  s.whole = WholeTraceWindow(model);
  if (auto it = model.metadata.find("capture_end"); it != model.metadata.end()) {
    s.capture_end = it->second;
  }
  s.capture_abnormal = !s.capture_end.empty() && s.capture_end != "normal_exit" &&
                       s.capture_end != "record_stop";  // streamscope_record_stop
  for (OpCategory c : model.ops.category) ++s.op_count[static_cast<int>(c)];
  s.gpu_ops = static_cast<int64_t>(model.ops.size());
  s.api_calls = static_cast<int64_t>(model.api.size());
  s.syncs = static_cast<int64_t>(model.syncs.size());
  s.nvtx_ranges = static_cast<int64_t>(model.nvtx_ranges.size());
  s.nvtx_marks = static_cast<int64_t>(model.nvtx_marks.size());
  s.streams = static_cast<int64_t>(model.streams.size());
  s.import_stats = model.import_stats;
  s.notes = model.notes;

  for (const NvtxMark& m : model.nvtx_marks) {
    if (model.strings.Get(m.domain) != "streamscope") continue;
    std::string_view text = model.strings.Get(m.name);
    if (text.starts_with("workload=")) {
      s.has_workload = true;
      s.workload.variant = std::string(text.substr(9));
    } else if (text.starts_with("param:")) {
      std::string_view kv = text.substr(6);
      size_t eq = kv.find('=');
      s.has_workload = true;
      s.workload.params.emplace_back(std::string(kv.substr(0, eq)),
                                     eq == std::string_view::npos ? "" : std::string(kv.substr(eq + 1)));
    } else if (text.starts_with("validation=")) {
      s.has_workload = true;
      // A failure is never overwritten by a later pass.
      if (!s.workload.validation_failed()) s.workload.validation = std::string(text.substr(11));
    }
  }

  for (const auto& [key, value] : model.import_stats) {
    if (value <= 0) continue;
    if (IsExpectedRecordStat(key)) continue;
    if (IsDroppedRecordStat(key))
      s.records_dropped += value;
    else
      s.records_inconsistent += value;
  }
  for (const auto& [key, value] : model.collector_stats) {
    if (absl::StartsWith(key, "records_dropped") && value > 0) s.collector_dropped += value;
  }

  auto stats_where = [&](auto keep) {
    std::vector<std::pair<std::string, int64_t>> stats;
    for (const auto& [key, value] : model.import_stats) {
      if (value > 0 && keep(key)) stats.emplace_back(key, value);
    }
    return stats;
  };
  if (s.records_dropped > 0) {
    s.warnings.push_back({TraceWarning::Kind::kRecordsLeftOut, s.records_dropped,
                          stats_where([](const std::string& key) { return IsDroppedRecordStat(key); }), ""});
  }
  if (s.records_inconsistent > 0) {
    s.warnings.push_back(
        {TraceWarning::Kind::kRecordsInconsistent, s.records_inconsistent,
         stats_where([](const std::string& key) { return !IsDroppedRecordStat(key) && !IsExpectedRecordStat(key); }),
         ""});
  }
  if (auto it = model.import_stats.find("op_stream_created_before_recording");
      it != model.import_stats.end() && it->second > 0) {
    s.ops_on_streams_before_recording = it->second;
  }
  if (s.collector_dropped > 0) {
    s.warnings.push_back({TraceWarning::Kind::kCollectorLostRecords, s.collector_dropped, {}, ""});
  }
  if (s.capture_end == "running") {
    s.warnings.push_back({TraceWarning::Kind::kCaptureUnfinished, 0, {}, s.capture_end});
  } else if (s.capture_abnormal) {
    s.warnings.push_back({TraceWarning::Kind::kCaptureAbnormal, 0, {}, s.capture_end});
  }
  if (s.has_workload && s.workload.validation_failed()) {
    s.warnings.push_back({TraceWarning::Kind::kValidationFailed, 0, {}, s.workload.validation});
  }
  return s;
}

}  // namespace streamscope
