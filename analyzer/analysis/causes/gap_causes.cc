#include "analyzer/analysis/causes/gap_causes.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "analyzer/analysis/causes/api_names.h"
#include "analyzer/analysis/causes/innermost_nvtx.h"
#include "analyzer/analysis/causes/op_submitters.h"
#include "analyzer/analysis/overlap_gaps/busy_time_index.h"
#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/analysis/windows/trace_facts.h"
#include "analyzer/model/saturating.h"

namespace streamscope {

std::string_view GapCauseName(GapCause c) {
  switch (c) {
    case GapCause::kHostBlockedInCall: return "host_blocked_in_call";
    case GapCause::kHostNvtxRange: return "host_nvtx_range";
    case GapCause::kHostUnannotated: return "host_unannotated";
    case GapCause::kSubmissionLatency: return "submission_latency";
    case GapCause::kDependencyEventWait: return "dependency_event_wait";
    case GapCause::kDependencyHostCallback: return "dependency_host_callback";
    case GapCause::kDependencyOtherStream: return "dependency_other_stream";
    case GapCause::kQueuedUnexplained: return "queued_unexplained";
    case GapCause::kUnknownSubmitter: return "unknown_submitter";
    case GapCause::kWindowStart: return "window_start";
    case GapCause::kWindowEnd: return "window_end";
    case GapCause::kFirstLaunch: return "first_launch";
    case GapCause::kRoundTrip: return "round_trip";
    case GapCause::kSyncWait: return "sync_wait";
  }
  return "unknown";
}

bool IsCpuStarvation(GapCause c) {
  return c == GapCause::kHostBlockedInCall || c == GapCause::kHostNvtxRange || c == GapCause::kHostUnannotated;
}

bool IsHostDrain(GapCause c) { return c == GapCause::kRoundTrip || c == GapCause::kSyncWait; }

namespace {

struct ThreadActivity {
  // Outermost API calls as api indices (4 bytes per call, not a 24-byte
  // span: traces hold millions). Call k's span is [max(its start, call
  // k-1's end), its end): disjoint, and the ends ascend.
  std::vector<int32_t> calls;
  std::vector<InnermostNvtxSpan> nvtx;  // innermost-range segmentation
  std::vector<int64_t> host_callback_starts;
};

// Drops the suffixes CUDA adds for per-thread default streams so "cudaLaunchHostFunc_ptsz" matches
// "cudaLaunchHostFunc".
std::string_view StripPtsz(std::string_view n) {
  for (std::string_view suffix : {"_ptsz", "_ptds"}) {
    if (n.size() > suffix.size() && n.substr(n.size() - suffix.size()) == suffix) {
      return n.substr(0, n.size() - suffix.size());
    }
  }
  return n;
}

bool IsHostCallbackName(std::string_view n) {
  n = StripPtsz(n);
  return n == "cudaLaunchHostFunc" || n == "cudaStreamAddCallback" || n == "cuLaunchHostFunc" ||
         n == "cuStreamAddCallback";
}

// Host activity of every thread that made API calls or opened NVTX ranges.
absl::flat_hash_map<int64_t, ThreadActivity> BuildThreadActivity(const TraceModel& model) {
  absl::flat_hash_map<int64_t, ThreadActivity> threads;
  std::vector<int8_t> callback_name(model.strings.size(), -1);
  const ApiCalls& api = model.api;
  ThreadActivity* last = nullptr;  // calls of one thread come in runs: one lookup per run
  int64_t last_tid = 0;
  for (size_t i = 0; i < api.size(); ++i) {
    if (last == nullptr || api.tid[i] != last_tid) {
      last_tid = api.tid[i];
      last = &threads[last_tid];  // valid until the next insertion, which only happens here
    }
    ThreadActivity& t = *last;
    int64_t start = api.start_ns[i], end = api.end_ns[i];
    if (end < start) continue;  // inconsistent record: no place on the timeline
    // Nested calls (the driver call inside a runtime call) are skipped: the
    // outermost call is what the application wrote.
    int64_t covered = t.calls.empty() ? kMinTime : api.end_ns[t.calls.back()];
    if (end > covered) t.calls.push_back(static_cast<int32_t>(i));
    StringId name = api.name[i];
    if (name >= 0 && static_cast<size_t>(name) < callback_name.size()) {
      if (callback_name[name] < 0) {
        callback_name[name] = IsHostCallbackName(model.strings.Get(name)) ? 1 : 0;
      }
      if (callback_name[name] == 1) t.host_callback_starts.push_back(start);
    }
  }
  absl::flat_hash_map<int64_t, std::vector<int32_t>> ranges_by_thread;
  for (size_t r = 0; r < model.nvtx_ranges.size(); ++r) {
    ranges_by_thread[model.nvtx_ranges[r].tid].push_back(static_cast<int32_t>(r));
  }
  for (auto& [tid, ranges] : ranges_by_thread) {
    threads[tid].nvtx = InnermostNvtxSpans(model, ranges);
  }
  return threads;
}

// First span whose end is after t (spans disjoint and sorted, so ends are too).
size_t FirstEndingAfter(const std::vector<InnermostNvtxSpan>& spans, int64_t t) {
  return std::upper_bound(spans.begin(), spans.end(), t,
                          [](int64_t v, const InnermostNvtxSpan& s) { return v < s.end; }) -
         spans.begin();
}

bool AnyInRange(const std::vector<int64_t>& sorted, int64_t lo, int64_t hi) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), lo);
  return it != sorted.end() && *it <= hi;
}

struct TotalKey {
  int32_t device;
  GapCause cause;
  StringId detail;
  int64_t tid;
  template <typename H>
  friend H AbslHashValue(H h, const TotalKey& k) {
    return H::combine(std::move(h), k.device, static_cast<int>(k.cause), k.detail, k.tid);
  }
  friend bool operator==(const TotalKey&, const TotalKey&) = default;
};

// What the classifier needs from the whole trace, whatever the window: host
// activity per thread, stream waits per stream, op ends per device. Built
// once per trace (TraceModel::Derived), shared by all windows.
struct GapCausesFacts {
  explicit GapCausesFacts(const TraceModel& model) : devices(OpDeviceIds(model)), threads(BuildThreadActivity(model)) {
    auto valid_stream = [&](int32_t s) { return s >= 0 && static_cast<size_t>(s) < model.streams.size(); };
    waits_by_stream.resize(model.streams.size());
    for (const SyncRecord& s : model.syncs) {
      if (s.kind == SyncKind::kStreamWaitEvent && valid_stream(s.stream)) {
        waits_by_stream[s.stream].push_back(s.start_ns);
      }
    }
    for (const EventOp& e : model.event_ops) {
      if (e.op == EventOp::Op::kWait && valid_stream(e.stream)) {
        waits_by_stream[e.stream].push_back(e.ts_ns);
      }
    }
    for (auto& w : waits_by_stream) std::sort(w.begin(), w.end());
    ends_by_device.assign(devices.size(), {});
    first_op_of_device.assign(devices.size(), model.ops.size());
    const GpuOps& ops = model.ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      size_t slot = Slot(ops.device_id[i]);
      first_op_of_device[slot] = std::min(first_op_of_device[slot], i);
      if (devices.size() > 1) ends_by_device[slot].push_back(ops.end_ns[i]);  // only needed across devices
    }
    for (auto& e : ends_by_device) std::sort(e.begin(), e.end());
  }
  size_t Slot(int32_t device) const {
    return std::lower_bound(devices.begin(), devices.end(), device) - devices.begin();
  }

  std::vector<int32_t> devices;  // ascending ids of the devices that ran ops
  absl::flat_hash_map<int64_t, ThreadActivity> threads;
  std::vector<std::vector<int64_t>> waits_by_stream;
  std::vector<std::vector<int64_t>> ends_by_device;  // by device slot, sorted; empty with one device
  std::vector<size_t> first_op_of_device;            // by device slot
};

class GapClassifier {
 public:
  GapClassifier(const TraceModel& model, const GapCausesOptions& options)
      : model_(model),
        options_(options),
        submitters_(model),
        facts_(model.Derived<GapCausesFacts>()),
        threads_(facts_.threads),
        waits_by_stream_(facts_.waits_by_stream),
        ends_by_device_(facts_.ends_by_device) {
    for (const FirstLaunchOutlier& f : DefaultSteadyState(model).first_launches) first_launch_calls_.insert(f.api);
    wait_kind_.assign(model.strings.size(), -1);
  }

  size_t Slot(int32_t device) const { return facts_.Slot(device); }
  void SetWindowStart(int64_t t) { window_start_ = t; }

  // Fills `gap` (start/end/prev/next set) with api, tid, parts and primary.
  // `pred` is X's predecessor on its stream (op index or -1).
  void Classify(GapFinding& gap, int32_t pred) {
    gap.parts.clear();
    gap.api = -1;
    gap.tid = -1;
    if (gap.prev_op < 0) {
      AddPart(gap, GapCause::kWindowStart, gap.start_ns, gap.end_ns);
    } else if (gap.next_op < 0) {
      AddPart(gap, GapCause::kWindowEnd, gap.start_ns, gap.end_ns);
    } else {
      gap.api = submitters_[gap.next_op];
      if (gap.api < 0) {
        AddPart(gap, GapCause::kUnknownSubmitter, gap.start_ns, gap.end_ns);
      } else {
        gap.tid = model_.api.tid[gap.api];
        int64_t a_start = model_.api.start_ns[gap.api];
        if (a_start > gap.start_ns) {
          if (!ClassifyDrain(gap, std::min(a_start, gap.end_ns))) {
            ClassifyHost(gap, gap.start_ns, std::min(a_start, gap.end_ns));
            if (a_start < gap.end_ns) {
              AddPart(gap, GapCause::kSubmissionLatency, a_start, gap.end_ns);
            }
          }
        } else {
          AddPart(gap, ClassifyQueued(gap, pred), gap.start_ns, gap.end_ns);
        }
      }
    }
    std::array<int64_t, kNumGapCauses> by_cause{};
    for (const GapPart& p : gap.parts) by_cause[static_cast<int>(p.cause)] += p.length();
    gap.primary = static_cast<GapCause>(std::max_element(by_cause.begin(), by_cause.end()) - by_cause.begin());
  }

 private:
  bool ValidStream(int32_t s) const { return s >= 0 && static_cast<size_t>(s) < model_.streams.size(); }

  void AddPart(GapFinding& gap, GapCause cause, int64_t s, int64_t e, StringId detail = kNoString, int32_t api = -1,
               int32_t nvtx = -1) {
    if (e <= s) return;
    if (!gap.parts.empty()) {
      GapPart& last = gap.parts.back();
      if (last.end_ns == s && last.cause == cause && last.detail == detail) {
        last.end_ns = e;
        return;
      }
    }
    gap.parts.push_back({cause, s, e, detail, api, nvtx});
  }

  // How a call waits for the GPU, decided once per name: 0 not, 1 an
  // explicit synchronize, 2 a synchronous copy call (it returns with the
  // result), 3 an *Async copy call (it may hold the host: pageable memory).
  int WaitKind(StringId name) {
    if (name < 0 || static_cast<size_t>(name) >= wait_kind_.size()) return 0;
    if (wait_kind_[name] < 0) {
      std::string_view n = BaseApiName(model_.strings.Get(name));
      const bool copy = n.find("Memcpy") != std::string_view::npos;
      wait_kind_[name] = n.find("Synchronize") != std::string_view::npos     ? 1
                         : copy && n.find("Async") == std::string_view::npos ? 2
                         : copy                                              ? 3
                                                                             : 0;
    }
    return wait_kind_[name];
  }

  // The first explicit synchronize T called in calls[from..] before `end`
  // (its index in calls), or calls.size() if none.
  size_t FirstSync(const std::vector<int32_t>& calls, size_t from, int64_t end) {
    for (size_t k = from; k < calls.size() && model_.api.start_ns[calls[k]] < end; ++k) {
      if (WaitKind(model_.api.name[calls[k]]) == 1) return k;
    }
    return calls.size();
  }

  // The host drained the GPU, then worked until it submitted X: T was at
  // gs in a call that waited for the op ending the busy time (and returned
  // by `host_end`, the submission's start). The whole gap is one part, the
  // launch path of X included (with the queue drained, nothing hid it):
  // round_trip (a device-to-host copy read back) or sync_wait.
  bool ClassifyDrain(GapFinding& gap, int64_t host_end) {
    auto it = threads_.find(gap.tid);
    if (it == threads_.end() || gap.prev_op < 0) return false;
    const std::vector<int32_t>& calls = it->second.calls;
    const ApiCalls& api = model_.api;
    const int64_t gs = gap.start_ns;
    // The last outermost call starting at or before gs.
    size_t c =
        std::upper_bound(calls.begin(), calls.end(), gs, [&](int64_t v, int32_t k) { return v < api.start_ns[k]; }) -
        calls.begin();
    if (c == 0) return false;
    int32_t call = calls[c - 1];
    const bool read_back = model_.ops.category[gap.prev_op] == OpCategory::kDtoH &&
                           model_.ops.bytes[gap.prev_op] <= kResultReadBackMaxBytes;
    // A graph whose last node reads the result back finished before its
    // cudaGraphLaunch returned (jacobiCudaGraphs): the synchronize that
    // follows on this thread before the next submission found the GPU
    // drained, and the gap is the round trip's all the same. (Module
    // loading in a first launch is its own cause.)
    if (read_back && call == submitters_[gap.prev_op] && WaitKind(api.name[call]) == 0 &&
        !first_launch_calls_.contains(call)) {
      const size_t w = FirstSync(calls, c, host_end);
      if (w == calls.size()) return false;
      call = calls[w];
    } else if (api.end_ns[call] < gs - options_.sync_return_tolerance_ns) {
      return false;
    }
    // A wait that ended before the window opened is set-up (the sync before
    // a measured region), not part of what the window repeats.
    if (call == gap.api || api.end_ns[call] > host_end || api.end_ns[call] <= window_start_) return false;
    const int kind = WaitKind(api.name[call]);
    if (kind == 0) return false;
    // A copy call held the host only when it (or a call inside it)
    // submitted the copy it waited for; an *Async one that held it (a
    // pageable copy) is a read-back only when the host then synchronized
    // before submitting more: else the pageable copy is the cause.
    if (kind >= 2) {
      const int32_t copy_api = submitters_[gap.prev_op];
      if (!read_back || copy_api < 0 || api.tid[copy_api] != gap.tid || api.start_ns[copy_api] < api.start_ns[call] ||
          api.start_ns[copy_api] > api.end_ns[call]) {
        return false;
      }
      if (kind == 3 && FirstSync(calls, c, host_end) == calls.size()) return false;
    }
    // Host work the program named apart (an NVTX range entered after the
    // wait, named unlike the range the wait ran in: 'prepare' after a sync,
    // not the next 'step') is that work's, as any host work is.
    const int64_t named = NamedWorkAfter(it->second, api.start_ns[call], api.end_ns[call], host_end);
    const GapCause cause = read_back ? GapCause::kRoundTrip : GapCause::kSyncWait;
    if (named < host_end) {
      AddPart(gap, cause, gs, std::max(gs, named), api.name[call], call);
      ClassifyHost(gap, std::max(gs, named), host_end);
      if (host_end < gap.end_ns) AddPart(gap, GapCause::kSubmissionLatency, host_end, gap.end_ns);
      return true;
    }
    AddPart(gap, cause, gs, gap.end_ns, api.name[call], call);
    return true;
  }

  // Start of the first NVTX range T entered in [wait_end, host_end) whose
  // name differs from the innermost range at wait_start; host_end if none.
  int64_t NamedWorkAfter(const ThreadActivity& t, int64_t wait_start, int64_t wait_end, int64_t host_end) const {
    size_t n = FirstEndingAfter(t.nvtx, wait_start);
    StringId enclosing = kNoString;
    if (n < t.nvtx.size() && t.nvtx[n].start <= wait_start) enclosing = model_.nvtx_ranges[t.nvtx[n].range].name;
    for (n = FirstEndingAfter(t.nvtx, wait_end); n < t.nvtx.size() && t.nvtx[n].start < host_end; ++n) {
      const NvtxRange& r = model_.nvtx_ranges[t.nvtx[n].range];
      if (r.start_ns >= wait_end && r.name != enclosing) return std::max(t.nvtx[n].start, r.start_ns);
    }
    return host_end;
  }

  // What thread T did during [s, e): calls first, then NVTX, then nothing.
  void ClassifyHost(GapFinding& gap, int64_t s, int64_t e) {
    auto it = threads_.find(gap.tid);
    if (it == threads_.end()) {
      AddPart(gap, GapCause::kHostUnannotated, s, e);
      return;
    }
    const ThreadActivity& t = it->second;
    const ApiCalls& api = model_.api;
    const std::vector<int32_t>& calls = t.calls;
    int64_t cursor = s;
    // First call ending after s.
    size_t c =
        std::upper_bound(calls.begin(), calls.end(), s, [&](int64_t v, int32_t k) { return v < api.end_ns[k]; }) -
        calls.begin();
    for (; c < calls.size(); ++c) {
      const int32_t index = calls[c];
      const int64_t call_start = std::max(api.start_ns[index], c > 0 ? api.end_ns[calls[c - 1]] : kMinTime);
      const int64_t call_end = api.end_ns[index];
      if (call_start >= e) break;
      if (call_start > cursor) ClassifyOutsideCalls(gap, t, cursor, call_start);
      int64_t cs = std::max(call_start, cursor), ce = std::min(call_end, e);
      const GapCause cause =
          first_launch_calls_.contains(index) ? GapCause::kFirstLaunch : GapCause::kHostBlockedInCall;
      AddPart(gap, cause, cs, ce, api.name[index], index);
      cursor = std::max(cursor, ce);
    }
    if (cursor < e) ClassifyOutsideCalls(gap, t, cursor, e);
  }

  void ClassifyOutsideCalls(GapFinding& gap, const ThreadActivity& t, int64_t s, int64_t e) {
    int64_t cursor = s;
    for (size_t n = FirstEndingAfter(t.nvtx, s); n < t.nvtx.size() && t.nvtx[n].start < e; ++n) {
      const InnermostNvtxSpan& seg = t.nvtx[n];
      if (seg.start > cursor) AddPart(gap, GapCause::kHostUnannotated, cursor, seg.start);
      int64_t ss = std::max(seg.start, cursor), se = std::min(seg.end, e);
      AddPart(gap, GapCause::kHostNvtxRange, ss, se, model_.nvtx_ranges[seg.range].name, -1, seg.range);
      cursor = std::max(cursor, se);
    }
    if (cursor < e) AddPart(gap, GapCause::kHostUnannotated, cursor, e);
  }

  GapCause ClassifyQueued(const GapFinding& gap, int32_t pred) {
    if (gap.length() < options_.submission_latency_threshold_ns) {
      return GapCause::kSubmissionLatency;
    }
    const GpuOps& ops = model_.ops;
    const ApiCalls& api = model_.api;
    int32_t x = gap.next_op;
    int64_t a_start = api.start_ns[gap.api];
    // Work on X's stream can only wait on what was issued after the
    // stream's previous op was submitted.
    int64_t lo = kMinTime;
    if (pred >= 0) {
      int32_t pred_api = submitters_[pred];
      lo = pred_api >= 0 ? api.start_ns[pred_api] : ops.start_ns[pred];
    }
    int32_t stream = ops.stream[x];
    if (ValidStream(stream) && AnyInRange(waits_by_stream_[stream], lo, a_start)) {
      return GapCause::kDependencyEventWait;
    }
    auto it = threads_.find(gap.tid);
    if (it != threads_.end() && AnyInRange(it->second.host_callback_starts, lo, a_start)) {
      return GapCause::kDependencyHostCallback;
    }
    if (pred >= 0 && ops.end_ns[pred] > gap.start_ns) return GapCause::kDependencyOtherStream;
    if (facts_.devices.size() > 1) {
      int64_t x_start = ops.start_ns[x];
      int64_t from = std::max(gap.start_ns, x_start - options_.dependency_tolerance_ns);
      size_t own = Slot(ops.device_id[x]);
      for (size_t d = 0; d < ends_by_device_.size(); ++d) {
        if (d != own && AnyInRange(ends_by_device_[d], from, x_start)) {
          return GapCause::kDependencyOtherStream;
        }
      }
    }
    if (api.end_ns[gap.api] > gap.start_ns) return GapCause::kSubmissionLatency;
    return GapCause::kQueuedUnexplained;
  }

  const TraceModel& model_;
  const GapCausesOptions& options_;
  OpSubmitters submitters_;
  const GapCausesFacts& facts_;
  const absl::flat_hash_map<int64_t, ThreadActivity>& threads_;
  const std::vector<std::vector<int64_t>>& waits_by_stream_;
  const std::vector<std::vector<int64_t>>& ends_by_device_;
  absl::flat_hash_set<int32_t> first_launch_calls_;  // api indices of first-launch outliers
  std::vector<int8_t> wait_kind_;                    // per name id: WaitKind(), -1 undecided
  int64_t window_start_ = kMinTime;
};

// Keeps the `limit` longest gaps (ties: the earlier one).
class WorstGaps {
 public:
  explicit WorstGaps(int limit) : limit_(limit > 0 ? static_cast<size_t>(limit) : 0) {}
  bool Wants(const GapFinding& g) const {
    if (limit_ == 0) return false;
    return heap_.size() < limit_ || Better(g, heap_.front());
  }
  void Offer(const GapFinding& g) {
    if (!Wants(g)) return;
    if (heap_.size() == limit_) {
      std::pop_heap(heap_.begin(), heap_.end(), Cmp);
      heap_.pop_back();
    }
    heap_.push_back(g);
    std::push_heap(heap_.begin(), heap_.end(), Cmp);
  }
  std::vector<GapFinding> Take() {
    std::sort(heap_.begin(), heap_.end(), Better);
    return std::move(heap_);
  }

 private:
  static bool Better(const GapFinding& a, const GapFinding& b) {
    if (a.length() != b.length()) return a.length() > b.length();
    return std::tie(a.start_ns, a.device_id) < std::tie(b.start_ns, b.device_id);
  }
  // Min-heap on "better": the front is the worst kept gap.
  static bool Cmp(const GapFinding& a, const GapFinding& b) { return Better(a, b); }
  size_t limit_;
  std::vector<GapFinding> heap_;
};

// Where the busy time of each device stood after the sweep of ops [0, first).
struct DeviceState {
  int64_t busy_end = kMinTime;  // end of the busy union so far
  int32_t busy_end_op = -1;     // op that set busy_end (the first of equals)
};

// The sweep's state after ops [0, first), found walking back from `first`:
// an op that starts more than the longest op duration before a device's
// busy end cannot reach it (nor tie: ties keep the earlier op, so ">=").
// Devices whose first op comes at or after `first` have no state yet.
void BusyEndsBefore(const TraceModel& model, const GapCausesFacts& facts, size_t first,
                    std::vector<DeviceState>* state) {
  const GpuOps& ops = model.ops;
  auto settled = [&](int64_t start) {
    for (size_t d = 0; d < state->size(); ++d) {
      if (facts.first_op_of_device[d] >= first) continue;  // nothing before `first`
      int64_t end = (*state)[d].busy_end;
      if (end == kMinTime || SaturatingAdd(start, model.max_op_duration_ns) >= end) return false;
    }
    return true;
  };
  for (size_t j = first; j-- > 0;) {
    if (settled(ops.start_ns[j])) break;
    if (ops.end_ns[j] <= ops.start_ns[j]) continue;  // zero-length ops never make a device busy
    DeviceState& st = (*state)[facts.Slot(ops.device_id[j])];
    if (ops.end_ns[j] >= st.busy_end) {
      st.busy_end = ops.end_ns[j];
      st.busy_end_op = static_cast<int32_t>(j);
    }
  }
}

}  // namespace

GapCausesResult AnalyzeGapCauses(const TraceModel& model, const Window& window, const GapCausesOptions& options) {
  GapCausesResult result;
  result.window = window;
  result.options = options;
  const GpuOps& ops = model.ops;

  if (window.length() <= 0 || model.ops.size() == 0) return result;
  GapClassifier classifier(model, options);
  classifier.SetWindowStart(window.start_ns);
  const GapCausesFacts& facts = model.Derived<GapCausesFacts>();
  const std::vector<int32_t>& devices = facts.devices;
  if (devices.empty()) return result;

  std::vector<DeviceState> state(devices.size());
  result.devices.resize(devices.size());
  for (size_t d = 0; d < devices.size(); ++d) {
    result.devices[d].device_id = devices[d];
    result.devices[d].window_ns = window.length();
  }
  absl::flat_hash_map<TotalKey, std::pair<int64_t, int64_t>> totals;  // ns, gaps
  absl::flat_hash_map<std::pair<int64_t, int32_t>, ThreadStarvation> threads;
  WorstGaps worst(options.max_listed_gaps);
  GapFinding gap;  // reused: no allocation per gap once parts has grown

  auto handle_gap = [&](size_t slot, int64_t g0, int64_t g1, int32_t prev, int32_t next, int32_t pred) {
    int64_t s = std::max(g0, window.start_ns), e = std::min(g1, window.end_ns);
    if (e <= s) return;
    gap.device_id = devices[slot];
    gap.start_ns = s;
    gap.end_ns = e;
    gap.prev_op = prev;
    gap.next_op = next;
    classifier.Classify(gap, pred);
    DeviceGapSummary& dev = result.devices[slot];
    dev.idle_ns += gap.length();
    dev.gaps += 1;
    ThreadStarvation* starving = nullptr;
    for (size_t p = 0; p < gap.parts.size(); ++p) {
      const GapPart& part = gap.parts[p];
      dev.cause_ns[static_cast<int>(part.cause)] += part.length();
      if (options.charge_calls && part.api >= 0) result.idle_by_call[part.api] += part.length();
      TotalKey key{gap.device_id, part.cause, part.detail, gap.tid};
      auto& [ns, count] = totals[key];
      ns += part.length();
      bool seen = false;  // count each key once per gap
      for (size_t q = 0; q < p && !seen; ++q) {
        seen = gap.parts[q].cause == part.cause && gap.parts[q].detail == part.detail;
      }
      if (!seen) ++count;
      if (IsCpuStarvation(part.cause)) {
        if (starving == nullptr) {
          starving = &threads[{gap.tid, gap.device_id}];
          starving->tid = gap.tid;
          starving->device_id = gap.device_id;
          starving->gaps += 1;
        }
        starving->starved_ns += part.length();
        starving->cause_ns[static_cast<int>(part.cause)] += part.length();
      }
    }
    if (options.keep_parts) result.parts.insert(result.parts.end(), gap.parts.begin(), gap.parts.end());
    worst.Offer(gap);
  };

  // A gap ends where an op starts: ops that start before the window only
  // set where the busy time stood when it opened. That state comes from a
  // short walk back instead of a sweep from the trace's first op.
  const size_t first = FirstOpStartingAt(model, window.start_ns);
  BusyEndsBefore(model, facts, first, &state);
  StreamPredecessorWalk predecessors(model, first);
  for (size_t i = first; i < ops.size(); ++i) {
    int32_t pred = predecessors.Next(i);
    int64_t start = ops.start_ns[i], end = ops.end_ns[i];
    if (end <= start) continue;  // zero-length ops never make a device busy
    size_t slot = classifier.Slot(ops.device_id[i]);
    DeviceState& st = state[slot];
    if (start > st.busy_end) {
      handle_gap(slot, st.busy_end, start, st.busy_end_op, static_cast<int32_t>(i), pred);
    }
    if (end > st.busy_end) {
      st.busy_end = end;
      st.busy_end_op = static_cast<int32_t>(i);
    }
    if (start > window.end_ns) {
      // Later ops of this device cannot create gaps inside the window, but
      // other devices may still need them; stop only when all are past it.
      bool all_past = true;
      for (const DeviceState& other : state) all_past = all_past && other.busy_end > window.end_ns;
      if (all_past) break;
    }
  }
  for (size_t slot = 0; slot < devices.size(); ++slot) {
    if (state[slot].busy_end_op >= 0) {
      handle_gap(slot, state[slot].busy_end, kMaxTime, state[slot].busy_end_op, -1, -1);
    } else {
      // Only zero-length ops: the device never ran anything.
      handle_gap(slot, kMinTime, kMaxTime, -1, -1, -1);
    }
  }

  for (DeviceGapSummary& dev : result.devices) {
    dev.busy_ns = dev.window_ns - dev.idle_ns;
    result.idle_ns += dev.idle_ns;
    for (int c = 0; c < kNumGapCauses; ++c) result.cause_ns[c] += dev.cause_ns[c];
  }
  for (const auto& [key, value] : totals) {
    result.totals.push_back({key.device, key.cause, key.detail, key.tid, value.first, value.second});
  }
  std::sort(result.totals.begin(), result.totals.end(), [](const GapCauseTotal& a, const GapCauseTotal& b) {
    return std::tie(b.ns, a.device_id, a.cause, a.detail, a.tid) <
           std::tie(a.ns, b.device_id, b.cause, b.detail, b.tid);
  });
  for (auto& [key, t] : threads) result.threads.push_back(t);
  std::sort(result.threads.begin(), result.threads.end(), [](const ThreadStarvation& a, const ThreadStarvation& b) {
    return std::tie(b.starved_ns, a.device_id, a.tid) < std::tie(a.starved_ns, b.device_id, b.tid);
  });
  result.worst_gaps = worst.Take();
  return result;
}

}  // namespace streamscope
