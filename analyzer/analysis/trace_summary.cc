#include "analyzer/analysis/trace_summary.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

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

  if (s.records_dropped > 0) {
    std::string detail;
    for (const auto& [key, value] : model.import_stats) {
      if (IsDroppedRecordStat(key) && value > 0) absl::StrAppend(&detail, detail.empty() ? "" : ", ", key, "=", value);
    }
    s.warnings.push_back(absl::StrCat(s.records_dropped,
                                      " records could not be placed on the timeline "
                                      "and were left out of every analysis (",
                                      detail, ")"));
  }
  if (s.records_inconsistent > 0) {
    std::string detail;
    for (const auto& [key, value] : model.import_stats) {
      if (!IsDroppedRecordStat(key) && !IsExpectedRecordStat(key) && value > 0) {
        absl::StrAppend(&detail, detail.empty() ? "" : ", ", key, "=", value);
      }
    }
    s.warnings.push_back(absl::StrCat(s.records_inconsistent, " inconsistent records were kept (", detail, ")"));
  }
  if (auto it = model.import_stats.find("op_stream_created_before_recording");
      it != model.import_stats.end() && it->second > 0) {
    s.notes.push_back(absl::StrCat(it->second,
                                   " ops ran on streams created before the recording started "
                                   "(streamscope_record_start in a running process): their stream kind is "
                                   "not recorded"));
  }
  if (s.collector_dropped > 0) {
    s.warnings.push_back(
        absl::StrCat("the collector lost ", s.collector_dropped, " records during capture: figures may miss work"));
  }
  if (s.capture_end == "running") {
    s.warnings.push_back(
        "capture did not finish (capture_end='running'): the process was probably "
        "killed; the end of the trace may be missing");
  } else if (s.capture_abnormal) {
    s.warnings.push_back(absl::StrCat("capture ended abnormally: ", s.capture_end));
  }
  if (s.has_workload && s.workload.validation_failed()) {
    s.warnings.push_back(absl::StrCat("the workload's own validation failed: ", s.workload.validation));
  }
  return s;
}

}  // namespace streamscope
