#include "analyzer/analysis/windows/trace_facts.h"

#include <algorithm>
#include <limits>

#include "analyzer/model/saturating.h"

namespace streamscope {
namespace {}  // namespace

StreamPredecessors::StreamPredecessors(const TraceModel& m) : prev(m.ops.size(), -1) {
  std::vector<int32_t> last(m.streams.size(), -1);
  for (size_t i = 0; i < m.ops.size(); ++i) {
    int32_t s = m.ops.stream[i];
    if (!ValidStream(m, s)) continue;
    prev[i] = last[static_cast<size_t>(s)];
    last[static_cast<size_t>(s)] = static_cast<int32_t>(i);
  }
}

OpEndsInOrder::OpEndsInOrder(const TraceModel& m) {
  ends.reserve(m.ops.size());
  for (size_t i = 0; i < m.ops.size(); ++i) ends.push_back({m.ops.end_ns[i], static_cast<int32_t>(i)});
  std::sort(ends.begin(), ends.end());
}

size_t FirstOpStartingAt(const TraceModel& m, int64_t t) {
  return static_cast<size_t>(std::lower_bound(m.ops.start_ns.begin(), m.ops.start_ns.end(), t) -
                             m.ops.start_ns.begin());
}

std::pair<size_t, size_t> ApiStartingIn(const TraceModel& m, int64_t start, int64_t end) {
  auto first = std::lower_bound(m.api.start_ns.begin(), m.api.start_ns.end(), start);
  auto last = std::lower_bound(first, m.api.start_ns.end(), std::max(start, end));
  return {static_cast<size_t>(first - m.api.start_ns.begin()), static_cast<size_t>(last - m.api.start_ns.begin())};
}

StreamPredecessorWalk::StreamPredecessorWalk(const TraceModel& m, size_t from)
    : m_(m), last_(m.streams.size(), from == 0 ? -1 : kUnseen) {
  if (from > 0) history_ = &m.Derived<StreamPredecessors>();
}

int32_t StreamPredecessorWalk::Next(size_t i) {
  int32_t s = m_.ops.stream[i];
  if (!ValidStream(m_, s)) return -1;
  int32_t& last = last_[static_cast<size_t>(s)];
  int32_t prev = last == kUnseen ? history_->prev[i] : last;
  last = static_cast<int32_t>(i);
  return prev;
}

StreamEndWalk::StreamEndWalk(const TraceModel& m, size_t from)
    : m_(m), end_(m.streams.size(), std::numeric_limits<int64_t>::min()), seen_(m.streams.size(), from == 0) {
  if (from > 0) history_ = &m.Derived<StreamPredecessors>();
}

int64_t StreamEndWalk::EndBefore(size_t i) {
  // Back along the stream: an op that started more than the longest op
  // duration before the best end so far cannot end later.
  int64_t best = std::numeric_limits<int64_t>::min();
  for (int32_t p = history_->prev[i]; p >= 0; p = history_->prev[static_cast<size_t>(p)]) {
    best = std::max(best, m_.ops.end_ns[static_cast<size_t>(p)]);
    if (m_.ops.start_ns[static_cast<size_t>(p)] < SaturatingSub(best, m_.max_op_duration_ns)) break;
  }
  return best;
}

int64_t StreamEndWalk::Next(size_t i) {
  int32_t s = m_.ops.stream[i];
  if (!ValidStream(m_, s)) return std::numeric_limits<int64_t>::min();
  size_t k = static_cast<size_t>(s);
  if (!seen_[k]) {
    end_[k] = EndBefore(i);
    seen_[k] = 1;
  }
  int64_t before = end_[k];
  end_[k] = std::max(end_[k], m_.ops.end_ns[i]);
  return before;
}

}  // namespace streamscope
