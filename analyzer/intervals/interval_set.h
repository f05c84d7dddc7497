// The interval toolkit every analysis shares: half-open [start, end) integer
// nanosecond intervals, normalization (union), intersection, subtraction,
// complement within a window, clipping, and a sweep line over many items
// that reports maximal segments of constant activity.
//
// A "normalized" interval list is sorted by start, non-empty intervals only,
// pairwise disjoint and non-touching (touching intervals are merged).
// All functions are pure; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_INTERVALS_INTERVAL_SET_H_
#define STREAMSCOPE_ANALYZER_INTERVALS_INTERVAL_SET_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace streamscope {

struct Interval {
  int64_t start = 0;
  int64_t end = 0;  // exclusive
  int64_t length() const { return end > start ? end - start : 0; }
  bool empty() const { return end <= start; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

using IntervalList = std::vector<Interval>;

// Sorts, drops empty intervals, merges overlapping and touching ones.
IntervalList Normalize(IntervalList intervals);

// The union of intervals added one by one, the same as Normalize of them
// all, without keeping them all when they come in start order (the ops of
// a trace): each is merged into the last interval of the union as it
// comes. Ones that come out of order are kept apart and normalized with
// the union at the end.
class SortedUnion {
 public:
  void Add(Interval x);
  // The normalized union; the builder is empty afterwards.
  IntervalList Take();

 private:
  IntervalList union_, unsorted_;
  int64_t last_start_ = 0;
};

// Sum of lengths (input need not be normalized; overlaps count twice).
int64_t TotalLength(std::span<const Interval> intervals);

// Set operations on normalized lists; results are normalized.
IntervalList Intersect(std::span<const Interval> a, std::span<const Interval> b);
IntervalList Subtract(std::span<const Interval> a, std::span<const Interval> b);
IntervalList Clip(std::span<const Interval> a, Interval window);
// window minus the union of `busy` (busy normalized).
IntervalList Complement(std::span<const Interval> busy, Interval window);

// Length of the intersection of one interval with a window.
inline int64_t ClippedLength(Interval x, Interval window) {
  int64_t s = x.start > window.start ? x.start : window.start;
  int64_t e = x.end < window.end ? x.end : window.end;
  return e > s ? e - s : 0;
}

// Sweep line over items given as intervals (any order, may be empty or
// overlap). Calls on_segment(start, end, active) for each maximal segment
// [start, end) of positive length in which the set of active items is
// constant and non-empty; `active` lists item indices (unordered). Items of
// zero length are never active. O(n log n + total output).
using SegmentCallback = std::function<void(int64_t start, int64_t end, std::span<const int32_t> active)>;
void SweepSegments(std::span<const Interval> items, const SegmentCallback& on_segment);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_INTERVALS_INTERVAL_SET_H_
