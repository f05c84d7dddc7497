#include "analyzer/intervals/interval_set.h"

#include <algorithm>

namespace streamscope {

IntervalList Normalize(IntervalList v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](const Interval& x) { return x.empty(); }), v.end());
  // Most lists come from ops or calls in start order: checked first, as a
  // sort of sorted input still costs n log n (at 10M ops about 0.15 s).
  auto by_start = [](const Interval& a, const Interval& b) { return a.start < b.start; };
  if (!std::is_sorted(v.begin(), v.end(), by_start)) std::sort(v.begin(), v.end(), by_start);
  // Merged in place: a list of every op's time (160 MB at 10M ops) often
  // unites to a few intervals, and the union is kept (the busy-time index).
  size_t kept = 0;
  for (const Interval& x : v) {
    if (kept > 0 && x.start <= v[kept - 1].end) {
      v[kept - 1].end = std::max(v[kept - 1].end, x.end);
    } else {
      v[kept++] = x;
    }
  }
  v.resize(kept);
  if (kept < v.capacity() / 2) v.shrink_to_fit();
  return v;
}

void SortedUnion::Add(Interval x) {
  if (x.empty()) return;
  if (!unsorted_.empty() || (!union_.empty() && x.start < last_start_)) {
    unsorted_.push_back(x);  // out of order: normalized with the rest at the end
    return;
  }
  last_start_ = x.start;
  if (!union_.empty() && x.start <= union_.back().end) {
    union_.back().end = std::max(union_.back().end, x.end);
  } else {
    union_.push_back(x);
  }
}

IntervalList SortedUnion::Take() {
  if (!unsorted_.empty()) {
    union_.insert(union_.end(), unsorted_.begin(), unsorted_.end());
    IntervalList().swap(unsorted_);
  }
  IntervalList out = Normalize(std::move(union_));
  union_.clear();
  last_start_ = 0;
  return out;
}

int64_t TotalLength(std::span<const Interval> intervals) {
  int64_t total = 0;
  for (const Interval& x : intervals) total += x.length();
  return total;
}

IntervalList Intersect(std::span<const Interval> a, std::span<const Interval> b) {
  IntervalList out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t s = std::max(a[i].start, b[j].start);
    int64_t e = std::min(a[i].end, b[j].end);
    if (e > s) out.push_back({s, e});
    if (a[i].end < b[j].end)
      ++i;
    else
      ++j;
  }
  return out;
}

IntervalList Subtract(std::span<const Interval> a, std::span<const Interval> b) {
  IntervalList out;
  size_t j = 0;
  for (const Interval& x : a) {
    int64_t cur = x.start;
    while (j < b.size() && b[j].end <= cur) ++j;
    size_t k = j;
    while (k < b.size() && b[k].start < x.end) {
      if (b[k].start > cur) out.push_back({cur, b[k].start});
      cur = std::max(cur, b[k].end);
      if (cur >= x.end) break;
      ++k;
    }
    if (cur < x.end) out.push_back({cur, x.end});
  }
  return out;
}

IntervalList Clip(std::span<const Interval> a, Interval window) {
  IntervalList out;
  for (const Interval& x : a) {
    int64_t s = std::max(x.start, window.start);
    int64_t e = std::min(x.end, window.end);
    if (e > s) out.push_back({s, e});
  }
  return out;
}

IntervalList Complement(std::span<const Interval> busy, Interval window) {
  if (window.empty()) return {};
  Interval w[1] = {window};
  return Subtract(w, busy);
}

void SweepSegments(std::span<const Interval> items, const SegmentCallback& on_segment) {
  // Events: (time, kind, item); ends sort before starts at equal times so
  // touching intervals are never active together.
  struct Event {
    int64_t t;
    int32_t item;
    bool is_start;
  };
  std::vector<Event> events;
  events.reserve(items.size() * 2);
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].empty()) continue;
    events.push_back({items[i].start, static_cast<int32_t>(i), true});
    events.push_back({items[i].end, static_cast<int32_t>(i), false});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.t != b.t) return a.t < b.t;
    return a.is_start < b.is_start;  // ends first
  });
  std::vector<int32_t> active;
  std::vector<int32_t> position(items.size(), -1);
  size_t e = 0;
  while (e < events.size()) {
    int64_t t = events[e].t;
    while (e < events.size() && events[e].t == t) {
      const Event& ev = events[e++];
      if (ev.is_start) {
        position[ev.item] = static_cast<int32_t>(active.size());
        active.push_back(ev.item);
      } else {
        int32_t pos = position[ev.item];
        int32_t last = active.back();
        active[pos] = last;
        position[last] = pos;
        active.pop_back();
        position[ev.item] = -1;
      }
    }
    if (!active.empty() && e < events.size()) {
      on_segment(t, events[e].t, active);
    }
  }
}

}  // namespace streamscope
