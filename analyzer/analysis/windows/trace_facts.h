// Whole-trace facts shared by the per-window analyses (built once per trace
// through TraceModel::Derived), and walkers that let an analysis start at
// its window's first op instead of at the trace's first op while seeing the
// same history.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_TRACE_FACTS_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_TRACE_FACTS_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "analyzer/model/trace_model.h"

namespace streamscope {

// Per op: the previous op (any category, zero-length included) on the same
// stream; -1 for a stream's first op and for ops without a valid stream.
// Ops on no stream (the stream of id -1 importers give unified-memory
// migrations) are chained too, in recorded order: the critical path then
// shows the GPU waiting between migrations (unknown submitter), where
// without the chain it was the last migration alone, 41 us of a 555 ms wait
// (an A100 vecAdd with managed memory).
struct StreamPredecessors {
  explicit StreamPredecessors(const TraceModel& m);
  std::vector<int32_t> prev;
};

// An op's end, ordered by (end, op).
struct OpEnd {
  int64_t end;
  int32_t op;
  friend bool operator<(const OpEnd& a, const OpEnd& b) { return a.end != b.end ? a.end < b.end : a.op < b.op; }
};

// Every op's end, in (end, op) order.
struct OpEndsInOrder {
  explicit OpEndsInOrder(const TraceModel& m);
  std::vector<OpEnd> ends;
};

// Index of the first op with start >= t.
size_t FirstOpStartingAt(const TraceModel& m, int64_t t);

// A run of op indices [first, last): the ops that start in a window, which
// are one run as ops are kept in start order. Read like a vector of their
// indices, without one (400 MB at 100M ops, read again by every pass).
class OpIndexRange {
 public:
  class Iterator {
   public:
    explicit Iterator(int32_t op) : op_(op) {}
    int32_t operator*() const { return op_; }
    Iterator& operator++() {
      ++op_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return op_ == o.op_; }

   private:
    int32_t op_;
  };
  OpIndexRange() = default;
  OpIndexRange(size_t first, size_t last)
      : first_(static_cast<int32_t>(first)), last_(static_cast<int32_t>(std::max(first, last))) {}
  Iterator begin() const { return Iterator(first_); }
  Iterator end() const { return Iterator(last_); }
  size_t size() const { return static_cast<size_t>(last_ - first_); }
  bool empty() const { return last_ == first_; }
  int32_t front() const { return first_; }
  int32_t operator[](size_t k) const { return first_ + static_cast<int32_t>(k); }

 private:
  int32_t first_ = 0, last_ = 0;
};
// Index range [first, last) of the API calls that start in [start, end).
std::pair<size_t, size_t> ApiStartingIn(const TraceModel& m, int64_t start, int64_t end);

// Visits ops in index order from `from` and gives each op's predecessor on
// its stream, as a walk from op 0 would, without walking from op 0: the
// first op of each stream met asks StreamPredecessors (built on first use
// only when from > 0).
class StreamPredecessorWalk {
 public:
  StreamPredecessorWalk(const TraceModel& m, size_t from);
  // Call for every i = from, from + 1, ... in order (none skipped).
  int32_t Next(size_t i);

 private:
  const TraceModel& m_;
  const StreamPredecessors* history_ = nullptr;
  std::vector<int32_t> last_;  // per stream; kUnseen until the stream's first op here
  static constexpr int32_t kUnseen = -2;
};

// The largest end among ops [0, i) on op i's stream (INT64_MIN when none),
// for ops visited in order from `from`, as a walk from op 0 would keep it.
class StreamEndWalk {
 public:
  StreamEndWalk(const TraceModel& m, size_t from);
  // Call for every i = from, from + 1, ... in order (none skipped).
  int64_t Next(size_t i);

 private:
  int64_t EndBefore(size_t i);  // along the stream's predecessors
  const TraceModel& m_;
  const StreamPredecessors* history_ = nullptr;
  std::vector<int64_t> end_;
  std::vector<uint8_t> seen_;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_TRACE_FACTS_H_
