#include "analyzer/analysis/causes/hidden_sync.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analyzer/analysis/causes/api_names.h"
#include "analyzer/analysis/causes/op_submitters.h"
#include "analyzer/analysis/overlap_gaps/busy_time_index.h"
#include "analyzer/analysis/windows/trace_facts.h"
#include "analyzer/intervals/interval_set.h"
#include "analyzer/model/saturating.h"

namespace streamscope {

std::string_view SerializationDirectionName(SerializationDirection d) {
  return d == SerializationDirection::kBlockingWaitedForLegacy ? "blocking_waited_for_legacy"
                                                               : "legacy_waited_for_blocking";
}

std::string_view ImplicitSyncKindName(ImplicitSyncKind k) {
  switch (k) {
    case ImplicitSyncKind::kSyncMemcpy: return "sync_memcpy";
    case ImplicitSyncKind::kPageableAsyncMemcpy: return "pageable_async_memcpy";
    case ImplicitSyncKind::kSyncMemset: return "sync_memset";
    case ImplicitSyncKind::kAllocFree: return "alloc_free";
    case ImplicitSyncKind::kPinnedAllocFree: return "pinned_alloc_free";
    case ImplicitSyncKind::kDeviceConfig: return "device_config";
    case ImplicitSyncKind::kTiming: return "timing";
  }
  return "unknown";
}

namespace {

// Bounds the backward scans over op ends; ops ending at the same instant
// beyond this are not told apart (a finding is still made from the others).
constexpr int kMaxScan = 64;

// What a call's name says about it; computed once per distinct name.
enum class CallNameClass : int8_t {
  kUnset = -1,
  kOther = 0,
  kExplicitSync,
  kAsyncMemcpy,
  kSyncMemcpy,
  kSyncMemset,
  kAllocFree,
  kPinnedAllocFree,
  kDeviceConfig,
};

CallNameClass Classify(std::string_view raw) {
  std::string_view n = BaseApiName(raw);
  bool is_async = n.find("Async") != std::string_view::npos;
  if (n.find("Synchronize") != std::string_view::npos) return CallNameClass::kExplicitSync;
  if (n.starts_with("cudaMemcpy") || n.starts_with("cuMemcpy")) {
    return is_async ? CallNameClass::kAsyncMemcpy : CallNameClass::kSyncMemcpy;
  }
  if (n.starts_with("cudaMemset") || n.starts_with("cuMemset")) {
    return is_async ? CallNameClass::kOther : CallNameClass::kSyncMemset;
  }
  switch (DeviceDrainingCallOf(n)) {
    case DeviceDrainingCall::kPinnedAllocFree: return CallNameClass::kPinnedAllocFree;
    case DeviceDrainingCall::kAllocFree: return CallNameClass::kAllocFree;
    case DeviceDrainingCall::kDeviceConfig: return CallNameClass::kDeviceConfig;
    case DeviceDrainingCall::kNone: break;
  }
  return CallNameClass::kOther;
}

SyncKind SyncKindForName(std::string_view raw) {
  std::string_view n = BaseApiName(raw);
  if (n.find("Stream") != std::string_view::npos) return SyncKind::kStreamSynchronize;
  if (n.find("Event") != std::string_view::npos) return SyncKind::kEventSynchronize;
  if (n.find("Device") != std::string_view::npos || n.find("Ctx") != std::string_view::npos ||
      n.find("Thread") != std::string_view::npos) {
    return SyncKind::kContextSynchronize;
  }
  return SyncKind::kUnknown;
}

bool IsBlockingKind(StreamKind k) { return k == StreamKind::kBlocking || k == StreamKind::kPerThreadDefault; }

// Whole-trace facts of the three checks, built once per trace
// (TraceModel::Derived) and shared by all windows.

// (a) Ends of legacy-stream and blocking-stream ops per device slot, sorted.
struct SerializationFacts {
  explicit SerializationFacts(const TraceModel& m) : devices(OpDeviceIds(m)) {
    auto kind_of = [&](int32_t s) {
      return s >= 0 && static_cast<size_t>(s) < m.streams.size() ? m.streams[s].kind : StreamKind::kUnknown;
    };
    legacy_ends.resize(devices.size());
    blocking_ends.resize(devices.size());
    const GpuOps& ops = m.ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops.end_ns[i] <= ops.start_ns[i]) continue;
      StreamKind k = kind_of(ops.stream[i]);
      if (k == StreamKind::kLegacyDefault) {
        legacy_ends[Slot(ops.device_id[i])].push_back({ops.end_ns[i], static_cast<int32_t>(i)});
        any_legacy = true;
      } else if (IsBlockingKind(k)) {
        blocking_ends[Slot(ops.device_id[i])].push_back({ops.end_ns[i], static_cast<int32_t>(i)});
      }
    }
    for (auto& v : legacy_ends) std::sort(v.begin(), v.end());
    for (auto& v : blocking_ends) std::sort(v.begin(), v.end());
  }
  size_t Slot(int32_t device) const {
    return std::lower_bound(devices.begin(), devices.end(), device) - devices.begin();
  }
  std::vector<int32_t> devices;  // ascending ids of the devices that ran ops
  bool any_legacy = false;
  std::vector<std::vector<OpEnd>> legacy_ends, blocking_ends;
};

// (b) The class of every name, the outermost calls of each thread, each
// call's own first op and the median duration per name of the calls the
// timing rule compares against.
struct ImplicitSyncCallTimes {
  static constexpr int64_t kNoMedian = std::numeric_limits<int64_t>::min();
  explicit ImplicitSyncCallTimes(const TraceModel& m) {
    const ApiCalls& api = m.api;
    classes.resize(m.strings.size());
    for (size_t k = 0; k < classes.size(); ++k) classes[k] = Classify(m.strings.Get(static_cast<StringId>(k)));
    top.assign(api.size(), 0);
    absl::flat_hash_map<int64_t, int64_t> covered;  // tid -> end of the current outer call
    int64_t* cover = nullptr;                       // calls of one thread come in runs: one lookup per run
    int64_t cover_tid = 0;
    for (size_t i = 0; i < api.size(); ++i) {
      if (cover == nullptr || api.tid[i] != cover_tid) {
        cover_tid = api.tid[i];
        cover = &covered.try_emplace(cover_tid, kMinTime).first->second;  // valid until the next insertion
      }
      if (api.start_ns[i] >= *cover) {
        top[i] = 1;
        *cover = api.end_ns[i];
        max_top_ns = std::max(max_top_ns, SaturatingSub(api.end_ns[i], api.start_ns[i]));
      } else {
        *cover = std::max(*cover, api.end_ns[i]);
      }
    }
    own.assign(api.size(), -1);
    const OpSubmitters submitters(m);
    for (size_t i = 0; i < m.ops.size(); ++i) {
      int32_t a = submitters[i];
      if (a >= 0 && own[a] < 0) own[a] = static_cast<int32_t>(i);
    }
    median.assign(m.strings.size() + 1, kNoMedian);
    std::vector<std::vector<int64_t>> durations(m.strings.size() + 1);
    for (size_t i = 0; i < api.size(); ++i) {
      CallNameClass cls = ClassOf(api.name[i]);
      if (top[i] && (cls == CallNameClass::kOther || cls == CallNameClass::kAsyncMemcpy)) {
        durations[NameSlot(api.name[i])].push_back(SaturatingSub(api.end_ns[i], api.start_ns[i]));
      }
    }
    for (size_t k = 0; k < durations.size(); ++k) {
      std::vector<int64_t>& d = durations[k];
      if (d.empty()) continue;
      auto mid = d.begin() + static_cast<std::ptrdiff_t>((d.size() - 1) / 2);
      std::nth_element(d.begin(), mid, d.end());
      median[k] = *mid;
    }
  }
  CallNameClass ClassOf(StringId name) const {
    return name >= 0 && static_cast<size_t>(name) < classes.size() ? classes[name] : CallNameClass::kOther;
  }
  // Name id + 1; slot 0: no name.
  size_t NameSlot(StringId name) const {
    return name >= 0 && static_cast<size_t>(name) < classes.size() ? static_cast<size_t>(name) + 1 : 0;
  }
  std::vector<CallNameClass> classes;  // by name id
  std::vector<uint8_t> top;            // per call: outermost on its thread
  std::vector<int32_t> own;            // per call: its first op, or -1
  std::vector<int64_t> median;         // by NameSlot; kNoMedian where no call counted
  int64_t max_top_ns = 0;              // the longest outermost call
};

// (c) Sync records (sorted by start, as the model keeps them) and the
// outermost explicit sync calls that no sync record describes, in call order.
struct ExplicitSyncFacts {
  explicit ExplicitSyncFacts(const TraceModel& m) {
    absl::flat_hash_set<int64_t> sync_correlations;
    for (const SyncRecord& rec : m.syncs) {
      if (rec.correlation_id >= 0) sync_correlations.insert(rec.correlation_id);
      max_sync_ns = std::max(max_sync_ns, SaturatingSub(rec.end_ns, rec.start_ns));
    }
    std::vector<int8_t> is_sync_name(m.strings.size(), -1);
    absl::flat_hash_map<int64_t, int64_t> covered;  // tid -> end of its last sync call
    for (size_t i = 0; i < m.api.size(); ++i) {
      StringId name = m.api.name[i];
      if (name < 0 || static_cast<size_t>(name) >= is_sync_name.size()) continue;
      if (is_sync_name[name] < 0) {
        is_sync_name[name] = Classify(m.strings.Get(name)) == CallNameClass::kExplicitSync ? 1 : 0;
      }
      if (!is_sync_name[name]) continue;
      // A driver sync nested in a runtime sync is the same wait.
      auto [cov, inserted] = covered.try_emplace(m.api.tid[i], kMinTime);
      if (m.api.start_ns[i] < cov->second) continue;
      cov->second = m.api.end_ns[i];
      if (m.api.correlation_id[i] >= 0 && sync_correlations.contains(m.api.correlation_id[i])) {
        continue;  // counted from its sync record
      }
      calls.push_back(static_cast<int32_t>(i));
      max_call_ns = std::max(max_call_ns, SaturatingSub(m.api.end_ns[i], m.api.start_ns[i]));
    }
  }
  int64_t max_sync_ns = 0;
  std::vector<int32_t> calls;  // api indices, ascending (so by start)
  int64_t max_call_ns = 0;
};

class HiddenSyncAnalyzer {
 public:
  HiddenSyncAnalyzer(const TraceModel& model, const Window& window, const HiddenSyncOptions& o,
                     const GapCausesResult* idle_account)
      : m_(model), w_(window), o_(o), submitters_(model), idle_account_(idle_account) {
    result_.window = window;
    result_.options = o;
    result_.idle_account = idle_account != nullptr;
  }

  HiddenSyncResult Run() {
    Serialization();
    ImplicitSyncs();
    ExplicitSyncs();
    return std::move(result_);
  }

 private:
  // The idle time the account charges to call `api` (0 without an account).
  int64_t ChargedTo(int32_t api) const {
    if (idle_account_ == nullptr || api < 0) return 0;
    auto it = idle_account_->idle_by_call.find(api);
    return it == idle_account_->idle_by_call.end() ? 0 : it->second;
  }

  StreamKind KindOf(int32_t stream) const {
    return stream >= 0 && static_cast<size_t>(stream) < m_.streams.size() ? m_.streams[stream].kind
                                                                          : StreamKind::kUnknown;
  }

  // (a) ---------------------------------------------------------------------
  void Serialization() {
    const GpuOps& ops = m_.ops;
    const SerializationFacts& facts = m_.Derived<SerializationFacts>();
    if (!facts.any_legacy) return;  // no legacy stream, no serialization
    const std::vector<std::vector<OpEnd>>& legacy_ends = facts.legacy_ends;
    const std::vector<std::vector<OpEnd>>& blocking_ends = facts.blocking_ends;
    const size_t first = FirstOpStartingAt(m_, w_.start_ns);
    const size_t last = std::max(first, FirstOpStartingAt(m_, w_.end_ns));
    StreamEndWalk stream_end(m_, first);  // when each op's stream was last free
    for (size_t i = first; i < last; ++i) {
      int32_t stream = ops.stream[i];
      int64_t prev_end = stream_end.Next(i);
      StreamKind k = KindOf(stream);
      const std::vector<OpEnd>* others = nullptr;
      SerializationDirection dir;
      if (IsBlockingKind(k)) {
        others = &legacy_ends[facts.Slot(ops.device_id[i])];
        dir = SerializationDirection::kBlockingWaitedForLegacy;
      } else if (k == StreamKind::kLegacyDefault) {
        others = &blocking_ends[facts.Slot(ops.device_id[i])];
        dir = SerializationDirection::kLegacyWaitedForBlocking;
      } else {
        continue;
      }
      int32_t api = submitters_[i];
      if (api < 0) continue;  // readiness unknown
      int64_t ready = std::max(m_.api.end_ns[api], prev_end);
      int64_t start = ops.start_ns[i];
      if (start - ready <= o_.serialization_tolerance_ns) continue;
      auto it = std::upper_bound(others->begin(), others->end(), OpEnd{start, std::numeric_limits<int32_t>::max()});
      for (int scanned = 0; it != others->begin() && scanned < kMaxScan; ++scanned) {
        --it;
        if (it->end < start - o_.serialization_tolerance_ns || it->end <= ready) break;
        if (!SameContext(ops.stream[it->op], stream)) continue;
        int32_t other_api = submitters_[it->op];
        if (other_api >= 0 && m_.api.start_ns[other_api] >= m_.api.start_ns[api]) continue;
        SerializationFinding f;
        f.direction = dir;
        f.delayed_op = static_cast<int32_t>(i);
        f.waited_op = it->op;
        f.ready_ns = ready;
        f.delay_ns = start - ready;
        int d = static_cast<int>(dir);
        result_.serialization_count[d] += 1;
        result_.serialization_delay_ns[d] += f.delay_ns;
        result_.serialization.push_back(f);
        break;
      }
    }
  }

  bool SameContext(int32_t a, int32_t b) const {
    int64_t ca = m_.streams[a].context_id, cb = m_.streams[b].context_id;
    return ca == 0 || cb == 0 || ca == cb;
  }

  // (b) ---------------------------------------------------------------------
  void ImplicitSyncs() {
    const ApiCalls& api = m_.api;
    const GpuOps& ops = m_.ops;
    const ImplicitSyncCallTimes& facts = m_.Derived<ImplicitSyncCallTimes>();
    const std::vector<uint8_t>& top = facts.top;
    const std::vector<int32_t>& own = facts.own;
    constexpr int64_t kNoMedian = ImplicitSyncCallTimes::kNoMedian;
    absl::flat_hash_map<StringId, ImplicitSyncTotal> totals;
    // Calls that overlap the window: one that began before it and returned
    // inside it may have held the host (and the GPU idle) in the window.
    const int64_t reach = w_.start_ns > kMinTime + facts.max_top_ns ? w_.start_ns - facts.max_top_ns : kMinTime;
    auto [first, last] = ApiStartingIn(m_, reach, w_.end_ns);
    for (size_t i = first; i < last; ++i) {
      if (!top[i] || api.end_ns[i] <= w_.start_ns) continue;
      CallNameClass cls = facts.ClassOf(api.name[i]);
      if (cls == CallNameClass::kExplicitSync) continue;
      int32_t a = static_cast<int32_t>(i);
      int64_t start = api.start_ns[i], end = api.end_ns[i], dur = end - start;
      ImplicitSyncFinding f;
      f.api = a;
      f.own_op = own[i];
      bool listed = true;
      switch (cls) {
        case CallNameClass::kSyncMemcpy: f.kind = ImplicitSyncKind::kSyncMemcpy; break;
        case CallNameClass::kSyncMemset: f.kind = ImplicitSyncKind::kSyncMemset; break;
        case CallNameClass::kAllocFree: f.kind = ImplicitSyncKind::kAllocFree; break;
        case CallNameClass::kPinnedAllocFree: f.kind = ImplicitSyncKind::kPinnedAllocFree; break;
        case CallNameClass::kDeviceConfig: f.kind = ImplicitSyncKind::kDeviceConfig; break;
        case CallNameClass::kAsyncMemcpy:
          listed = f.own_op >= 0 &&
                   (ops.src_kind[f.own_op] == MemoryKind::kPageable || ops.dst_kind[f.own_op] == MemoryKind::kPageable);
          f.kind = ImplicitSyncKind::kPageableAsyncMemcpy;
          break;
        default: listed = false; break;
      }
      if (listed) {
        int64_t hi = end;
        if (f.own_op >= 0) hi = std::min(hi, ops.start_ns[f.own_op] + o_.drain_tolerance_ns);
        Drain(a, start, hi, f);
        f.observed = f.waited_for_op >= 0;
        if (f.kind == ImplicitSyncKind::kPageableAsyncMemcpy) {
          int64_t copy_end = ops.end_ns[f.own_op];
          int64_t copy_len = copy_end - ops.start_ns[f.own_op];
          f.observed = end >= copy_end - o_.drain_tolerance_ns ||
                       static_cast<double>(dur) >= o_.pageable_hold_fraction * copy_len;
        }
      } else {
        // Any other call: flagged only when its timing shows a drain.
        int64_t med = facts.median[facts.NameSlot(api.name[i])];
        bool long_call =
            dur > o_.long_call_ns || (med != kNoMedian && static_cast<double>(dur) > o_.long_call_median_factor * med);
        if (!long_call) continue;
        Drain(a, start, end, f);
        if (f.waited_for_op < 0 || ops.end_ns[f.waited_for_op] < end - o_.drain_tolerance_ns) {
          continue;
        }
        f.kind = ImplicitSyncKind::kTiming;
        f.observed = true;
      }
      ImplicitSyncTotal& t = totals[api.name[i]];
      t.name = api.name[i];
      t.kind = f.kind;
      t.calls += 1;
      t.observed_calls += f.observed ? 1 : 0;
      t.call_ns = SaturatingAdd(t.call_ns, dur);
      t.waited_ns = SaturatingAdd(t.waited_ns, f.waited_ns);
      f.idle_account_ns = ChargedTo(f.api);
      t.idle_account_ns = SaturatingAdd(t.idle_account_ns, f.idle_account_ns);
      result_.implicit_idle_account_ns = SaturatingAdd(result_.implicit_idle_account_ns, f.idle_account_ns);
      result_.implicit_calls.push_back(f);
    }
    for (auto& [name, t] : totals) result_.implicit_totals.push_back(t);
    std::sort(result_.implicit_totals.begin(), result_.implicit_totals.end(),
              [](const ImplicitSyncTotal& a, const ImplicitSyncTotal& b) {
                return std::tie(b.call_ns, a.name) < std::tie(a.call_ns, b.name);
              });
  }

  // Ops of other calls that ended in (s, e]: count, and the latest one.
  void Drain(int32_t api, int64_t s, int64_t e, ImplicitSyncFinding& f) {
    if (e <= s) return;
    // Sorted on first use only: most traces have few calls to check, and
    // sorting every op's end is the costliest step.
    const std::vector<OpEnd>& ends = m_.Derived<OpEndsInOrder>().ends;
    auto lo = std::upper_bound(ends.begin(), ends.end(), OpEnd{s, std::numeric_limits<int32_t>::max()});
    auto hi = std::upper_bound(ends.begin(), ends.end(), OpEnd{e, std::numeric_limits<int32_t>::max()});
    f.drained_ops = hi - lo;
    int64_t corr = m_.api.correlation_id[api];
    auto own = [&](int32_t op) { return corr >= 0 && m_.ops.correlation_id[op] == corr; };
    if (f.own_op >= 0 && m_.ops.end_ns[f.own_op] > s && m_.ops.end_ns[f.own_op] <= e) {
      f.drained_ops -= 1;
    }
    int scanned = 0;
    for (auto it = hi; it != lo && scanned < kMaxScan; ++scanned) {
      --it;
      if (own(it->op)) continue;
      f.waited_for_op = it->op;
      f.waited_ns = it->end - s;
      break;
    }
  }

  // (c) ---------------------------------------------------------------------
  void ExplicitSyncs() {
    const BusyTimeIndex& busy = m_.Derived<BusyTimeIndex>();
    const ExplicitSyncFacts& facts = m_.Derived<ExplicitSyncFacts>();
    std::vector<ExplicitSyncFinding> found;
    auto add = [&](ExplicitSyncFinding f) {
      f.start_ns = std::max(f.start_ns, w_.start_ns);
      f.end_ns = std::min(f.end_ns, w_.end_ns);
      if (f.end_ns <= f.start_ns) return;
      f.gpu_idle_ns =
          f.device_id >= 0 ? busy.Idle(f.device_id, f.start_ns, f.end_ns) : busy.IdleAll(f.start_ns, f.end_ns);
      f.idle_account_ns = ChargedTo(f.api);
      found.push_back(f);
    };
    // Records and calls that can reach into the window: those starting at
    // most the longest one's duration before it.
    auto reach_from = [&](int64_t longest) {
      return w_.start_ns > std::numeric_limits<int64_t>::min() + longest ? w_.start_ns - longest
                                                                         : std::numeric_limits<int64_t>::min();
    };
    const int64_t sync_from = reach_from(facts.max_sync_ns);
    auto sync_first = std::lower_bound(m_.syncs.begin(), m_.syncs.end(), sync_from,
                                       [](const SyncRecord& r, int64_t t) { return r.start_ns < t; });
    for (size_t s = static_cast<size_t>(sync_first - m_.syncs.begin()); s < m_.syncs.size(); ++s) {
      const SyncRecord& rec = m_.syncs[s];
      if (rec.start_ns >= w_.end_ns) break;
      // A stream wait is a device-side wait; the host is not blocked.
      if (rec.kind == SyncKind::kStreamWaitEvent) continue;
      ExplicitSyncFinding f;
      f.kind = rec.kind;
      f.sync = static_cast<int32_t>(s);
      f.stream = rec.stream >= 0 && static_cast<size_t>(rec.stream) < m_.streams.size() ? rec.stream : -1;
      f.device_id = f.stream >= 0 ? m_.streams[f.stream].device_id : -1;
      if (rec.correlation_id >= 0) {
        auto it = m_.api_by_correlation.find(rec.correlation_id);
        if (it != m_.api_by_correlation.end()) {
          f.api = it->second;
          f.tid = m_.api.tid[f.api];
        }
      }
      f.start_ns = rec.start_ns;
      f.end_ns = rec.end_ns;
      add(f);
    }
    const int64_t call_from = reach_from(facts.max_call_ns);
    auto call_first = std::lower_bound(facts.calls.begin(), facts.calls.end(), call_from,
                                       [&](int32_t a, int64_t t) { return m_.api.start_ns[a] < t; });
    for (auto it = call_first; it != facts.calls.end(); ++it) {
      int32_t i = *it;
      if (m_.api.start_ns[i] >= w_.end_ns) break;
      ExplicitSyncFinding f;
      f.kind = SyncKindForName(m_.strings.Get(m_.api.name[i]));
      f.api = i;
      f.tid = m_.api.tid[i];
      f.start_ns = m_.api.start_ns[i];
      f.end_ns = m_.api.end_ns[i];
      add(f);
    }
    absl::flat_hash_map<int, ExplicitSyncTotal> totals;
    for (const ExplicitSyncFinding& f : found) {
      ExplicitSyncTotal& t = totals[static_cast<int>(f.kind)];
      t.kind = f.kind;
      t.count += 1;
      t.host_ns = SaturatingAdd(t.host_ns, f.length());
      t.gpu_idle_ns = SaturatingAdd(t.gpu_idle_ns, f.gpu_idle_ns);
      t.idle_account_ns = SaturatingAdd(t.idle_account_ns, f.idle_account_ns);
      result_.explicit_idle_account_ns = SaturatingAdd(result_.explicit_idle_account_ns, f.idle_account_ns);
      result_.explicit_host_ns = SaturatingAdd(result_.explicit_host_ns, f.length());
      result_.explicit_gpu_idle_ns = SaturatingAdd(result_.explicit_gpu_idle_ns, f.gpu_idle_ns);
    }
    for (auto& [k, t] : totals) result_.explicit_totals.push_back(t);
    std::sort(result_.explicit_totals.begin(), result_.explicit_totals.end(),
              [](const ExplicitSyncTotal& a, const ExplicitSyncTotal& b) {
                return std::tie(b.host_ns, a.kind) < std::tie(a.host_ns, b.kind);
              });
    size_t keep = static_cast<size_t>(std::max(o_.max_listed, 0));
    keep = std::min(keep, found.size());
    std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(keep), found.end(),
                      [](const ExplicitSyncFinding& a, const ExplicitSyncFinding& b) {
                        if (a.length() != b.length()) return a.length() > b.length();
                        return a.start_ns < b.start_ns;
                      });
    if (found.size() > keep) found.resize(keep);
    result_.explicit_syncs = std::move(found);
  }

  const TraceModel& m_;
  const Window& w_;
  const HiddenSyncOptions& o_;
  OpSubmitters submitters_;
  const GapCausesResult* idle_account_;
  HiddenSyncResult result_;
};

}  // namespace

HiddenSyncResult AnalyzeHiddenSync(const TraceModel& model, const Window& window, const HiddenSyncOptions& options,
                                   const GapCausesResult* idle_account) {
  return HiddenSyncAnalyzer(model, window, options, idle_account).Run();
}

void ForgetHiddenSyncFacts(const TraceModel& model) {
  model.derived->Forget<SerializationFacts>();
  model.derived->Forget<ImplicitSyncCallTimes>();
  model.derived->Forget<ExplicitSyncFacts>();
}

}  // namespace streamscope
