// Overlap (docs/DEFINITIONS.md): what really ran at the same time on
// each device, by category pair, with the intervals and the ops behind every
// figure.
//
// One sweep per device over the ops clipped to the window yields maximal
// segments of constant activity; per segment, counters of active ops per
// category and per (category, stream) decide which pairs overlap. Overlap
// intervals are maximal: a pair's interval lasts as long as both of its
// categories are active, even if the ops inside change. Cost: O(n log k)
// for n ops with at most k running at once, plus the stream pairs active in
// each segment; no allocation per segment. Pure function; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_OVERLAP_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_OVERLAP_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// Category pairs: every unordered pair of distinct categories (21), then
// compute||compute across different streams (index kComputeComputePair).
inline constexpr int kNumOverlapPairs = 22;
inline constexpr int kComputeComputePair = 21;
struct OverlapPairKind {
  OpCategory a, b;  // a < b, except compute||compute where both are kKernel
};
OverlapPairKind OverlapPairAt(int pair);
int OverlapPairIndex(OpCategory a, OpCategory b);  // a != b, any order
std::string OverlapPairName(int pair);             // "compute|H2D", "compute|compute"

struct OverlapOptions {
  // Op ids kept per overlap interval (the count is always exact); -1 keeps
  // them all (for tables). Bounds memory on traces with millions of ops.
  int64_t max_ops_per_interval = 16;
  // Intervals kept per pair and device: -1 keeps every interval; N keeps
  // the N longest (counts and times stay exact). A report that prints only
  // the longest intervals needs no more, and 10M ops make millions of them.
  int64_t max_intervals_per_pair = -1;
};

struct OverlapInterval {
  int64_t start_ns = 0, end_ns = 0;
  int32_t pair = 0;
  uint64_t ops_offset = 0;  // into DeviceOverlap::interval_ops
  uint32_t ops_kept = 0;    // ids stored there
  int64_t ops_total = 0;    // ops of the pair's categories inside the interval
  int64_t length() const { return end_ns - start_ns; }
};

// Overlapped time between an op of category a on stream_a and one of
// category b on stream_b (for compute||compute: stream_a < stream_b by
// source id). Streams are indices into TraceModel::streams.
struct StreamPairTime {
  int32_t stream_a = -1, stream_b = -1;
  int64_t overlapped_ns = 0;
};

struct PairOverlap {
  int32_t pair = 0;
  int64_t overlapped_ns = 0;
  // The hideable time: min(time of a, time of b), each the union of that
  // category's ops in the window; for compute||compute the compute time.
  int64_t possible_ns = 0;
  double hidden_share = 0;  // overlapped / possible; 0 when possible is 0
  int64_t interval_count = 0;
  std::vector<StreamPairTime> by_stream_pair;  // longest first
};

struct DeviceOverlap {
  int32_t device_id = 0;
  std::array<int64_t, kNumOpCategories> category_ns{};  // union time per category
  std::array<int64_t, kNumOpCategories> op_count{};     // ops with time in the window
  // Copy categories: time that category ran while no kernel did.
  std::array<int64_t, kNumOpCategories> exposed_ns{};
  int64_t busy_ns = 0;          // any op running
  int64_t copy_ns = 0;          // any copy running
  int64_t exposed_copy_ns = 0;  // any copy running and no kernel
  int64_t overlap_ns = 0;       // any pair overlapping: the union of all intervals, kept or not
  // Pairs whose two categories both ran in the window (or that overlapped),
  // in pair-index order.
  std::vector<PairOverlap> pairs;
  int64_t interval_total = 0;              // all intervals, kept or not
  std::vector<OverlapInterval> intervals;  // kept intervals of all pairs, by (start, pair)
  std::vector<int32_t> interval_ops;       // op indices, see OverlapInterval
};

struct OverlapResult {
  Window window;
  std::vector<DeviceOverlap> devices;  // model.op_devices order
  // The entry for one pair on one device, or nullptr if it did not occur.
  const PairOverlap* Find(int32_t device_id, int pair) const;
};

OverlapResult AnalyzeOverlap(const TraceModel& model, const Window& window, const OverlapOptions& options);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_OVERLAP_H_
