// The JSON form of rank facts (analysis/ranks/rank_facts.h): what `streamscope
// facts` writes and `streamscope merge-facts` reads. One document per
// `facts` run, one entry per process (a file may hold several):
//   { "generator": "streamscope facts", "facts_version": 1,
//     "processes": [ { "path", "format", "pid", "rank" (null: none),
//       "host", "clock_domain", "start_wall_time_ns", "start_trace_ns"
//       (null: not recorded), "windows_are_steps",
//       "device_columns": [...], "windows": [ { "label", "start_ns",
//         "end_ns", "devices": [[device_id, window_ns, busy_ns, idle_ns,
//         comm_ns, compute_ns, overlapped_ns], ...] } ],
//       "comm_names": [...], "comm_collectives": [...],
//       "comm_kernel_columns": [...],
//       "comm_kernels": [[name_index, device_id, start_ns, end_ns], ...] } ] }
// Arrays of rows keep the document small (a kernel is about 40 bytes).
// Every integer is exact (int64), so a round trip gives the same facts.
#ifndef STREAMSCOPE_ANALYZER_RENDER_RANK_FACTS_JSON_H_
#define STREAMSCOPE_ANALYZER_RENDER_RANK_FACTS_JSON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis/ranks/rank_facts.h"
#include "nlohmann/json.hpp"

namespace streamscope {

inline constexpr int kRankFactsVersion = 1;

nlohmann::json RankFactsToJson(const std::vector<RankFacts>& processes);
// Parses one document; `source` names it in errors (InvalidArgument).
absl::StatusOr<std::vector<RankFacts>> RankFactsFromJson(const std::string& text, const std::string& source);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_RANK_FACTS_JSON_H_
