#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_DIAGNOSE_SUPPORT_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_DIAGNOSE_SUPPORT_H_

// Pieces shared by the diagnosis steps (diagnose.cc), the contention step
// (contention.cc) and the reference a comparison builds from its control.

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/windows/trace_facts.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope::diagnose_support {

// Median of `v`, reordering it (nth_element); 0 when empty.
int64_t MedianInPlace(std::span<int64_t> v);
inline int64_t Median(std::vector<int64_t> v) { return MedianInPlace(v); }

// Ops that start inside the window, in start order.
OpIndexRange OpsStartingIn(const TraceModel& m, const Window& w);

// Per op of `ops` (in start order): the time (clipped to the window) during
// which another op of the same device ran.
std::vector<int64_t> SharedTime(const TraceModel& m, const Window& w, OpIndexRange ops);

// Stream waits (cudaStreamWaitEvent records and event-op waits) per stream,
// by time, with the call that made each: a whole-trace fact
// (TraceModel::Derived) of the event-wait step and the hardware-queue check.
struct EventWaitFacts {
  struct Wait {
    int64_t t;
    int32_t api;
  };
  explicit EventWaitFacts(const TraceModel& m) : by_stream(m.streams.size()) {
    auto api_of = [&](int64_t correlation_id) {
      if (correlation_id < 0) return -1;
      auto it = m.api_by_correlation.find(correlation_id);
      return it != m.api_by_correlation.end() ? it->second : -1;
    };
    for (const SyncRecord& s : m.syncs) {
      if (s.kind != SyncKind::kStreamWaitEvent || s.stream < 0 || static_cast<size_t>(s.stream) >= by_stream.size())
        continue;
      by_stream[s.stream].push_back({s.start_ns, api_of(s.correlation_id)});
      any = true;
    }
    for (const EventOp& e : m.event_ops) {
      if (e.op != EventOp::Op::kWait || e.stream < 0 || static_cast<size_t>(e.stream) >= by_stream.size()) continue;
      by_stream[e.stream].push_back({e.ts_ns, api_of(e.correlation_id)});
      any = true;
    }
    for (auto& v : by_stream) std::sort(v.begin(), v.end(), [](const Wait& a, const Wait& b) { return a.t < b.t; });
  }
  // The first wait on `stream` made in [lo, hi], or nullptr.
  const Wait* FirstIn(int32_t stream, int64_t lo, int64_t hi) const {
    if (stream < 0 || static_cast<size_t>(stream) >= by_stream.size()) return nullptr;
    const std::vector<Wait>& w = by_stream[stream];
    auto it = std::lower_bound(w.begin(), w.end(), lo, [](const Wait& x, int64_t v) { return x.t < v; });
    return it != w.end() && it->t <= hi ? &*it : nullptr;
  }
  std::vector<std::vector<Wait>> by_stream;
  bool any = false;
};

// Adds `op` to the finding's evidence, up to `max_evidence` ops, once.
void CiteOp(DiagnoseFinding& f, int32_t op, int max_evidence);

// Groups ops by OpKey() without building the key per op: kernels by name
// id, other ops by (category, bytes). Group ids are dense, in order of first
// appearance; the key texts are made only for the groups a caller lists
// (a trace can hold tens of thousands of copy sizes).
class OpGrouper {
 public:
  explicit OpGrouper(const TraceModel& m) : m_(m), by_name_(m.strings.size() + 1, -1) {}
  int32_t GroupOf(int32_t op) {
    int32_t* slot;
    OpCategory c = m_.ops.category[op];
    if (c == OpCategory::kKernel) {
      StringId n = m_.ops.name[op];
      size_t k = by_name_.size() - 1;  // no name, or an empty one: both key "compute:"
      if (n >= 0 && static_cast<size_t>(n) + 1 < by_name_.size() && !m_.strings.Get(n).empty()) k = n;
      slot = &by_name_[k];
    } else {
      // One 64-bit key (category in the top byte) keeps the table small: a
      // trace can hold ~10^5 copy sizes and every lookup is a cache miss.
      int64_t bytes = m_.ops.bytes[op];
      if (bytes >= 0 && bytes < (int64_t{1} << 56)) {
        uint64_t key = (static_cast<uint64_t>(c) << 56) | static_cast<uint64_t>(bytes);
        slot = &by_size_.try_emplace(key, -1).first->second;
      } else {  // sizes no real copy has (bad records): exact, off the fast table
        slot = &by_odd_size_.try_emplace(std::make_pair(static_cast<int>(c), bytes), -1).first->second;
      }
    }
    if (*slot < 0) {
      *slot = static_cast<int32_t>(example_.size());
      example_.push_back(op);
    }
    return *slot;
  }
  int32_t Example(int32_t group) const { return example_[static_cast<size_t>(group)]; }
  // (OpKey text, group id) of the groups `wanted` accepts, in text order
  // (the order of a map keyed by OpKey). Keys are distinct per group.
  template <typename Pred>
  std::vector<std::pair<std::string, int32_t>> KeysInOrder(Pred wanted) const {
    std::vector<std::pair<std::string, int32_t>> out;
    for (size_t g = 0; g < example_.size(); ++g) {
      if (wanted(static_cast<int32_t>(g))) out.emplace_back(OpKey(m_, example_[g]), static_cast<int32_t>(g));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  const TraceModel& m_;
  std::vector<int32_t> by_name_;                    // name id -> group; last slot: no name
  absl::flat_hash_map<uint64_t, int32_t> by_size_;  // (category << 56) | bytes -> group
  absl::flat_hash_map<std::pair<int, int64_t>, int32_t> by_odd_size_;
  std::vector<int32_t> example_;  // first op of each group
};

}  // namespace streamscope::diagnose_support

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_DIAGNOSE_SUPPORT_H_
