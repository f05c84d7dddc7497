// Facts about one trace that every report starts with: what ran (workload
// marks, parameters, validation), on what hardware, how capture ended, how
// many records of each kind, and what the importer had to count or drop.
// Pure function of the model; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_TRACE_SUMMARY_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_TRACE_SUMMARY_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// The reference workloads' NVTX marks in domain "streamscope":
// "workload=<variant>", "param:<k>=<v>", "validation=passed|failed: ...".
struct WorkloadInfo {
  std::string variant;                                      // "" if no workload mark
  std::vector<std::pair<std::string, std::string>> params;  // in mark order
  std::string validation;                                   // "passed", "failed: <why>", "" if never recorded
  bool validation_failed() const { return validation.rfind("failed", 0) == 0; }
};

// Something about the capture or the import a reader must not miss; the
// figures only (render/trace_summary_render words it).
struct TraceWarning {
  enum class Kind : uint8_t {
    kRecordsLeftOut,        // `count` records could not be placed on the timeline; `stats` their counters
    kRecordsInconsistent,   // `count` inconsistent records were kept; `stats` their counters
    kCollectorLostRecords,  // the collector lost `count` records during capture
    kCaptureUnfinished,     // capture_end is 'running': the process was probably killed
    kCaptureAbnormal,       // capture ended abnormally; `value` is capture_end
    kValidationFailed,      // the workload's own validation failed; `value` is what it recorded
  };
  Kind kind = Kind::kRecordsLeftOut;
  int64_t count = 0;
  std::vector<std::pair<std::string, int64_t>> stats;  // import counter and value, in key order
  std::string value;                                   // the recorded text it is about
};

struct TraceSummary {
  std::string path, format;
  int64_t pid = 0;
  std::string capture_end;        // metadata capture_end ("" if absent)
  bool capture_abnormal = false;  // anything but normal_exit
  Window whole;                   // first to last GPU op / API call
  WorkloadInfo workload;
  bool has_workload = false;
  std::array<int64_t, kNumOpCategories> op_count{};
  int64_t gpu_ops = 0, api_calls = 0, syncs = 0, nvtx_ranges = 0, nvtx_marks = 0, streams = 0;
  // Records the importer counted as unusable and left out (end before
  // start, zero timestamps), and those kept but inconsistent.
  int64_t records_dropped = 0, records_inconsistent = 0;
  // Records the collector itself lost (collector_stat records_dropped_*).
  int64_t collector_dropped = 0;
  // Ops on streams created before a mid-process recording started
  // (streamscope_record_start): their stream kind is not recorded.
  int64_t ops_on_streams_before_recording = 0;
  std::map<std::string, int64_t> import_stats;
  std::vector<TraceWarning> warnings;  // in the order a reader sees them
  std::vector<std::string> notes;      // the importer's notes, as it wrote them
};

// True for import_stats keys that mean "record left out of the model".
bool IsDroppedRecordStat(const std::string& key);
// Import counters of records that are expected in this kind of trace (ops on
// streams created before a mid-process recording started): neither dropped
// nor inconsistent; the summary notes them.
bool IsExpectedRecordStat(const std::string& key);

TraceSummary SummarizeTrace(const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_TRACE_SUMMARY_H_
