#include "analyzer/analysis/memory/timing_audit.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "analyzer/analysis/causes/op_submitters.h"
#include "analyzer/intervals/interval_set.h"

namespace streamscope {
namespace {

// a - b without signed overflow (times in a damaged trace can be anything).
int64_t SatSub(int64_t a, int64_t b) {
  int64_t d;
  if (!__builtin_sub_overflow(a, b, &d)) return d;
  return b < 0 ? INT64_MAX : INT64_MIN;
}

// Whole-trace facts, built once per trace (TraceModel::Derived) and shared
// by all windows.

// Event records by handle, by time; elapsed-time reads by time.
struct ElapsedFacts {
  explicit ElapsedFacts(const TraceModel& m) {
    for (size_t i = 0; i < m.event_ops.size(); ++i) {
      const EventOp& e = m.event_ops[i];
      if (e.op == EventOp::Op::kRecord) records[e.event_handle].push_back({e.ts_ns, static_cast<int32_t>(i)});
      if (e.op == EventOp::Op::kElapsed) reads.push_back(static_cast<int32_t>(i));
    }
    for (auto& [handle, list] : records) std::sort(list.begin(), list.end());
    std::stable_sort(reads.begin(), reads.end(),
                     [&](int32_t a, int32_t b) { return m.event_ops[a].ts_ns < m.event_ops[b].ts_ns; });
  }
  absl::flat_hash_map<int64_t, std::vector<std::pair<int64_t, int32_t>>> records;  // handle -> (ts, index)
  std::vector<int32_t> reads;
};

// The ops of each API call (CSR), from the submitter of every op.
struct CallOps {
  explicit CallOps(const TraceModel& m) : offset(m.api.size() + 1, 0) {
    OpSubmitters submitters(m);
    const size_t calls = m.api.size();
    for (size_t i = 0; i < m.ops.size(); ++i) {
      if (submitters[i] >= 0) offset[submitters[i] + 1] += 1;
    }
    for (size_t c = 0; c < calls; ++c) offset[c + 1] += offset[c];
    ops.resize(offset[calls]);
    std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
    for (size_t i = 0; i < m.ops.size(); ++i) {
      if (submitters[i] >= 0) ops[fill[submitters[i]]++] = static_cast<int32_t>(i);
    }
  }
  std::vector<uint32_t> offset;  // per call + 1
  std::vector<int32_t> ops;
};

class TimingAuditor {
 public:
  TimingAuditor(const TraceModel& m, const HappensBefore* order, const Window& w, const TimingAuditOptions& o)
      : m_(m), order_(order), w_(w), o_(o) {}

  TimingAuditResult Run() {
    r_.window = w_;
    r_.has_event_data = !m_.event_ops.empty();
    Elapsed();
    Nvtx();
    return std::move(r_);
  }

 private:
  // ---- event pairs -------------------------------------------------------
  void Elapsed() {
    const ElapsedFacts& facts = m_.Derived<ElapsedFacts>();
    auto last_record = [&](int64_t handle, int64_t before) -> int32_t {
      auto it = facts.records.find(handle);
      if (it == facts.records.end()) return -1;
      auto pos = std::upper_bound(it->second.begin(), it->second.end(), std::make_pair(before, INT32_MAX));
      return pos == it->second.begin() ? -1 : (pos - 1)->second;
    };
    auto by_time = [&](int32_t read, int64_t t) { return m_.event_ops[read].ts_ns < t; };
    auto from = std::lower_bound(facts.reads.begin(), facts.reads.end(), w_.start_ns, by_time);
    auto to = std::lower_bound(from, facts.reads.end(), std::max(w_.start_ns, w_.end_ns), by_time);
    const std::vector<int32_t> reads(from, to);
    for (int32_t read : reads) {
      const EventOp& e = m_.event_ops[read];
      ElapsedAudit a;
      a.read = read;
      a.read_ns = e.ts_ns;
      a.elapsed_ms = e.elapsed_ms;
      a.start = EventAt(last_record(e.event_handle, e.ts_ns));
      a.stop = EventAt(last_record(e.other_event, e.ts_ns));
      a.determined = a.start.determined && a.stop.determined;
      r_.elapsed_count += 1;
      if (!a.determined) {
        r_.elapsed_undetermined += 1;
      } else {
        Audit(a);
        if (a.misses_work) r_.elapsed_missing_work += 1;
      }
      if (r_.elapsed.size() < static_cast<size_t>(std::max(o_.max_listed, 0))) r_.elapsed.push_back(std::move(a));
    }
  }

  EventTime EventAt(int32_t record) const {
    EventTime t;
    if (record < 0) return t;
    const EventOp& e = m_.event_ops[record];
    t.record = record;
    t.stream = e.stream;
    t.record_call_ns = e.ts_ns;
    if (order_ == nullptr) return t;
    std::vector<uint32_t> cover = order_->RecordCover(static_cast<size_t>(record));
    if (cover.empty()) return t;
    t.determined = true;
    t.gpu_ns = e.ts_ns;
    for (size_t s = 0; s < cover.size(); ++s) {
      if (cover[s] == 0) continue;
      int32_t op = order_->OpAt(static_cast<int32_t>(s), cover[s] - 1);
      if (op >= 0 && m_.ops.end_ns[op] > t.gpu_ns) {
        t.gpu_ns = m_.ops.end_ns[op];
        t.after_op = op;
      }
    }
    if (e.stream >= 0 && static_cast<size_t>(e.stream) < cover.size()) {
      int32_t next = order_->OpAt(e.stream, cover[e.stream]);
      if (next >= 0) {
        t.upper_ns = m_.ops.start_ns[next];
        t.gpu_ns = std::min(t.gpu_ns, t.upper_ns);
      }
    }
    return t;
  }

  void Audit(ElapsedAudit& a) const {
    const int64_t t0 = a.start.gpu_ns, t1 = a.stop.gpu_ns;
    a.measured_ns = SatSub(t1, t0);
    const int32_t events_stream = a.stop.stream;
    if (t1 > t0) {
      IntervalList all, own, other;
      auto [lo, hi] = m_.OpRangeFor(t0, t1);
      for (size_t i = lo; i < hi; ++i) {
        Interval x{std::max(m_.ops.start_ns[i], t0), std::min(m_.ops.end_ns[i], t1)};
        if (x.empty()) continue;
        all.push_back(x);
        (m_.ops.stream[i] == events_stream ? own : other).push_back(x);
      }
      a.inside_busy_ns = TotalLength(Normalize(std::move(all)));
      a.inside_events_stream_ns = TotalLength(Normalize(std::move(own)));
      a.inside_other_streams_ns = TotalLength(Normalize(std::move(other)));
    }
    // Ops submitted from the start record call to the read.
    const std::vector<int32_t>& by_submit = order_->OpsBySubmission();
    auto first = std::lower_bound(by_submit.begin(), by_submit.end(), a.start.record_call_ns,
                                  [&](int32_t op, int64_t t) { return order_->SubmitTime(op) < t; });
    IntervalList busy, outside;
    for (auto it = first; it != by_submit.end() && order_->SubmitTime(*it) <= a.read_ns; ++it) {
      int32_t op = *it;
      int64_t s = m_.ops.start_ns[op], e = m_.ops.end_ns[op];
      a.scope_ops += 1;
      if (m_.ops.stream[op] != events_stream) a.scope_other_stream_ops += 1;
      busy.push_back({s, e});
      bool out = false;
      if (s < t0) {
        outside.push_back({s, std::min(e, t0)});
        out = true;
      }
      if (e > t1) {
        outside.push_back({std::max(s, t1), e});
        out = true;
      }
      if (out && e > s) a.scope_ops_outside += 1;
      a.scope_last_end_ns = std::max(a.scope_last_end_ns, e);
    }
    a.scope_busy_ns = TotalLength(Normalize(std::move(busy)));
    a.scope_outside_ns = TotalLength(Normalize(std::move(outside)));
    // Ops on other streams running at the stop event.
    auto [lo, hi] = m_.OpRangeFor(t1, t1 == INT64_MAX ? t1 : t1 + 1);
    for (size_t i = lo; i < hi; ++i) {
      if (m_.ops.stream[i] == events_stream) continue;
      if (!(m_.ops.start_ns[i] < t1 && m_.ops.end_ns[i] > t1)) continue;
      a.running_at_stop += 1;
      a.running_until_ns = std::max(a.running_until_ns, m_.ops.end_ns[i]);
      if (a.running_ops.size() < static_cast<size_t>(std::max(o_.max_listed_ops, 0))) {
        a.running_ops.push_back(static_cast<int32_t>(i));
      }
    }
    a.misses_work = a.scope_outside_ns > 0 || a.running_at_stop > 0;
  }

  // ---- NVTX ranges -------------------------------------------------------
  void Nvtx() {
    if (m_.nvtx_ranges.empty()) return;
    const CallOps& call_ops = m_.Derived<CallOps>();
    const std::vector<uint32_t>& offset = call_ops.offset;
    const std::vector<int32_t>& ops = call_ops.ops;
    const size_t calls = m_.api.size();
    std::map<StringId, NvtxTimingTotal> totals;
    std::vector<NvtxTimingAudit> incomplete;
    // Ranges are sorted by start: those starting in the window are a run.
    auto first_range = std::lower_bound(m_.nvtx_ranges.begin(), m_.nvtx_ranges.end(), w_.start_ns,
                                        [](const NvtxRange& r, int64_t t) { return r.start_ns < t; });
    for (size_t ri = static_cast<size_t>(first_range - m_.nvtx_ranges.begin());
         ri < m_.nvtx_ranges.size() && m_.nvtx_ranges[ri].start_ns < w_.end_ns; ++ri) {
      const NvtxRange& range = m_.nvtx_ranges[ri];
      if (!range.end_ns) continue;
      const int64_t end = *range.end_ns;
      NvtxTimingAudit a;
      a.range = static_cast<int32_t>(ri);
      auto first = std::lower_bound(m_.api.start_ns.begin(), m_.api.start_ns.end(), range.start_ns);
      for (size_t c = static_cast<size_t>(first - m_.api.start_ns.begin()); c < calls && m_.api.start_ns[c] < end;
           ++c) {
        if (range.push_pop && m_.api.tid[c] != range.tid) continue;
        for (uint32_t k = offset[c]; k < offset[c + 1]; ++k) {
          int32_t op = ops[k];
          a.ops += 1;
          if (m_.ops.end_ns[op] > end) a.ops_after_end += 1;
          if (m_.ops.end_ns[op] > a.last_end_ns) {
            a.last_end_ns = m_.ops.end_ns[op];
            a.last_op = op;
          }
        }
      }
      a.overrun_ns = a.last_end_ns > end ? SatSub(a.last_end_ns, end) : 0;
      NvtxTimingTotal& t = totals[range.name];
      t.name = range.name;
      t.ranges += 1;
      r_.nvtx_ranges += 1;
      if (a.ops == 0) continue;
      t.with_gpu_work += 1;
      r_.nvtx_with_gpu_work += 1;
      if (!a.incomplete()) continue;
      t.incomplete += 1;
      t.max_overrun_ns = std::max(t.max_overrun_ns, a.overrun_ns);
      t.total_overrun_ns += a.overrun_ns;
      r_.nvtx_incomplete_count += 1;
      incomplete.push_back(a);
    }
    for (auto& [name, t] : totals) r_.nvtx_totals.push_back(t);
    std::stable_sort(
        r_.nvtx_totals.begin(), r_.nvtx_totals.end(),
        [](const NvtxTimingTotal& a, const NvtxTimingTotal& b) { return a.total_overrun_ns > b.total_overrun_ns; });
    // Only the first max_listed of the stable order by overrun are kept: a
    // partial sort, ties in range order (the order they were found in), not
    // a stable sort of every incomplete range (most ranges, at 1M ops).
    const size_t listed = std::min(incomplete.size(), static_cast<size_t>(std::max(o_.max_listed, 0)));
    auto larger = [](const NvtxTimingAudit& a, const NvtxTimingAudit& b) {
      return a.overrun_ns != b.overrun_ns ? a.overrun_ns > b.overrun_ns : a.range < b.range;
    };
    if (listed == incomplete.size()) {
      std::sort(incomplete.begin(), incomplete.end(), larger);
    } else {
      std::partial_sort(incomplete.begin(), incomplete.begin() + static_cast<ptrdiff_t>(listed), incomplete.end(),
                        larger);
    }
    incomplete.resize(listed);
    r_.nvtx_incomplete = std::move(incomplete);
  }

  const TraceModel& m_;
  const HappensBefore* order_;  // non-null whenever a read is determined
  const Window& w_;
  const TimingAuditOptions& o_;
  TimingAuditResult r_;
};

}  // namespace

TimingAuditResult AnalyzeTimingAudit(const TraceModel& model, const HappensBefore* order, const Window& window,
                                     const TimingAuditOptions& options) {
  return TimingAuditor(model, order, window, options).Run();
}

}  // namespace streamscope
