// The rows of the HTML timeline that the page's script draws from data
// rather than from markup: a row per stream lane (its ops, or the aggregate
// blocks of a downsampled window), a row per host thread and API-call
// nesting depth (runtime calls, the driver calls inside them), and a row per
// lane of an analysis track or of a thread's NVTX ranges. Kept as
// compact columns (start deltas and durations in ns, small integers, a
// shared string table) so that a page of 10k ops stays small; the script
// draws density (busy share per pixel column) where a row holds more ops
// than the view can show and the individual ops when zoomed in, and builds
// each item's hover text from the columns.
//
// Format (one JSON object; times in ns from the timeline's window start):
//   {"strs": [...], "cats": [category names], "kinds": [op words],
//    "rows": [{"k": "op"|"api", "y", "h", "l" (row title), "sid" (stream id) |
//              "tid", "s": [start deltas], "d": [durations], "c": [class],
//              "n": [name string or -1 = aggregate], "i": [source id or
//              count], "r": [correlation id], "b": [busy ns of aggregates],
//              op rows also "x" (detail line string), "g" (graph id),
//              "a" (submitting call id), "an" (its name and thread string),
//              "q" (queue delay, -1 = started during the call);
//              api rows "m" (domain: 1 runtime, 2 driver);
//              slice rows ("k": "sl") "c" and "t" are strings: class, title}]}
// Not thread-safe.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_HTML_TIMELINE_DATA_H_
#define STREAMSCOPE_ANALYZER_EXPORT_HTML_TIMELINE_DATA_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/export/op_downsampler.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// A host thread's API calls in a window, one lane per nesting depth.
struct ApiLanes {
  int64_t tid = 0;
  std::vector<std::vector<int32_t>> lanes;  // api indices in start order, lane = depth
};

// The API calls of the window per thread (by thread id), deeper than
// max_depth put on the deepest lane.
std::vector<ApiLanes> ApiCallLanes(const TraceModel& model, const Window& window, int max_depth = 3);

// An analysis slice (overlap interval, idle gap or a part of one, critical
// path segment) or an NVTX range as a data row draws it.
struct DataSlice {
  int64_t start_ns = 0, end_ns = 0;
  std::string cls;    // "gap cause-round_trip"
  std::string title;  // its name, then "key: value" lines (the script adds start and length)
};

class TimelineData {
 public:
  // The ops of one lane of a stream (blocks of `lane`), drawn at y..y+h.
  void AddOpRow(const TraceModel& model, const Window& window, const StreamBlocks& stream, int lane, double y,
                double h);
  // One lane of a thread's API calls; calls shorter than resolution_ns that
  // follow each other within it become one aggregate item (0: none).
  void AddApiRow(const TraceModel& model, const Window& window, int64_t tid, const std::vector<int32_t>& calls,
                 int64_t resolution_ns, double y, double h);
  // One lane of an analysis track; slices sorted here by start.
  void AddSliceRow(const Window& window, std::string_view label, std::vector<DataSlice> slices, double y, double h);
  int rows() const { return rows_; }
  int64_t items() const { return items_; }
  // The JSON object (above); the data is moved out.
  std::string Finish();

 private:
  int Str(std::string s);
  // One row: {"k":KIND,"y":Y,"h":H,"l":LABEL, then `extra` (JSON members,
  // each with its leading comma), the column "s" (`starts` as deltas from
  // the window's start, then from the item before), the other columns, '}'.
  void AppendRow(std::string_view kind, double y, double h, std::string_view label, std::string_view extra,
                 int64_t window_start, const std::vector<int64_t>& starts,
                 std::initializer_list<std::pair<std::string_view, const std::vector<int64_t>*>> columns);

  std::vector<std::string> strs_;
  absl::flat_hash_map<std::string, int> str_index_;
  const TraceModel* sync_model_ = nullptr;
  absl::flat_hash_set<int64_t> sync_corr_;  // correlation ids of sync_model_'s synchronizing calls
  std::string rows_json_;
  int rows_ = 0;
  int64_t items_ = 0;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_HTML_TIMELINE_DATA_H_
