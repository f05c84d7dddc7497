#include "analyzer/analysis/causes/diagnose.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analyzer/analysis/causes/api_names.h"
#include "analyzer/analysis/causes/copy_bound.h"
#include "analyzer/analysis/causes/diagnose_support.h"
#include "analyzer/analysis/causes/hardware_queues.h"
#include "analyzer/analysis/causes/host_link_rate.h"
#include "analyzer/analysis/causes/idle_partition.h"
#include "analyzer/analysis/causes/round_trip.h"
#include "analyzer/analysis/causes/small_grid.h"
#include "analyzer/analysis/causes/window_detections.h"
#include "analyzer/analysis/overlap_gaps/busy_time_index.h"
#include "analyzer/analysis/windows/trace_facts.h"
#include "analyzer/intervals/interval_set.h"
#include "analyzer/model/saturating.h"

namespace streamscope {

std::string_view DiagnoseStepName(DiagnoseStep s) {
  switch (s) {
    case DiagnoseStep::kHardware: return "hardware";
    case DiagnoseStep::kMemoryType: return "memory_type";
    case DiagnoseStep::kDependencies: return "dependencies";
    case DiagnoseStep::kHiddenSync: return "hidden_sync";
    case DiagnoseStep::kCpuStarvation: return "cpu_starvation";
    case DiagnoseStep::kContention: return "contention";
    case DiagnoseStep::kSmallWork: return "small_work";
  }
  return "unknown";
}

std::string_view DiagnoseCauseName(DiagnoseCause c) {
  switch (c) {
    case DiagnoseCause::kCopyEngines: return "copy_engines";
    case DiagnoseCause::kNoConcurrentKernels: return "no_concurrent_kernels";
    case DiagnoseCause::kPageableCopies: return "pageable_copies";
    case DiagnoseCause::kSameStream: return "same_stream";
    case DiagnoseCause::kEventWait: return "event_wait";
    case DiagnoseCause::kSyncBetween: return "sync_between";
    case DiagnoseCause::kLegacyDefaultStream: return "legacy_default_stream";
    case DiagnoseCause::kImplicitSyncCall: return "implicit_sync_call";
    case DiagnoseCause::kCpuStarvation: return "cpu_starvation";
    case DiagnoseCause::kContention: return "contention";
    case DiagnoseCause::kSmallWork: return "small_work";
    case DiagnoseCause::kCopyBandwidthBound: return "copy_bandwidth_bound";
    case DiagnoseCause::kRoundTrip: return "round_trip";
    case DiagnoseCause::kHardwareQueue: return "hardware_queue";
    case DiagnoseCause::kLazyLoading: return "lazy_module_loading";
    case DiagnoseCause::kSmallGrid: return "small_grid";
  }
  return "unknown";
}

DiagnoseStep StepOf(DiagnoseCause c) {
  switch (c) {
    case DiagnoseCause::kCopyEngines:
    case DiagnoseCause::kNoConcurrentKernels:
    case DiagnoseCause::kCopyBandwidthBound: return DiagnoseStep::kHardware;
    case DiagnoseCause::kPageableCopies: return DiagnoseStep::kMemoryType;
    case DiagnoseCause::kSameStream:
    case DiagnoseCause::kEventWait:
    case DiagnoseCause::kSyncBetween:
    case DiagnoseCause::kRoundTrip: return DiagnoseStep::kDependencies;
    case DiagnoseCause::kHardwareQueue: return DiagnoseStep::kHardware;
    case DiagnoseCause::kLazyLoading: return DiagnoseStep::kHiddenSync;
    case DiagnoseCause::kSmallGrid: return DiagnoseStep::kSmallWork;
    case DiagnoseCause::kLegacyDefaultStream:
    case DiagnoseCause::kImplicitSyncCall: return DiagnoseStep::kHiddenSync;
    case DiagnoseCause::kCpuStarvation: return DiagnoseStep::kCpuStarvation;
    case DiagnoseCause::kContention: return DiagnoseStep::kContention;
    case DiagnoseCause::kSmallWork: return DiagnoseStep::kSmallWork;
  }
  return DiagnoseStep::kHardware;
}

std::string OpKey(const TraceModel& model, int32_t op) {
  OpCategory c = model.ops.category[op];
  if (c == OpCategory::kKernel) return absl::StrCat("compute:", std::string(model.strings.Get(model.ops.name[op])));
  return absl::StrCat(std::string(OpCategoryName(c)), ":", model.ops.bytes[op]);
}

namespace {

using diagnose_support::CiteOp;
using diagnose_support::EventWaitFacts;
using diagnose_support::Median;
using diagnose_support::OpGrouper;
using diagnose_support::OpsStartingIn;
using diagnose_support::SharedTime;

constexpr int kH2D = static_cast<int>(OpCategory::kHtoD);
constexpr int kD2H = static_cast<int>(OpCategory::kDtoH);
constexpr int kCompute = static_cast<int>(OpCategory::kKernel);

bool IsExplicitSyncName(std::string_view n) { return n.find("Synchronize") != std::string_view::npos; }

// Whole-trace facts of the dependency steps, built once per trace
// (TraceModel::Derived) and shared by all windows.

// Host-blocking explicit syncs: sync records (stream waits excluded) and the
// outermost sync calls that no record describes, each list by start.
struct SyncSpanFacts {
  struct Span {
    int64_t start, end;
    int32_t api;
    int64_t tid;
    std::string name;
  };
  explicit SyncSpanFacts(const TraceModel& m) {
    auto call_name = [&](int32_t api) { return m.strings.Get(m.api.name[api]); };
    absl::flat_hash_set<int64_t> sync_corr;
    for (const SyncRecord& s : m.syncs) {
      if (s.kind == SyncKind::kStreamWaitEvent) continue;
      int32_t api = -1;
      if (s.correlation_id >= 0) {
        sync_corr.insert(s.correlation_id);
        auto it = m.api_by_correlation.find(s.correlation_id);
        if (it != m.api_by_correlation.end()) api = it->second;
      }
      records.push_back({s.start_ns, s.end_ns, api, api >= 0 ? m.api.tid[api] : -1,
                         api >= 0 ? std::string(BaseApiName(call_name(api))) : std::string(SyncKindName(s.kind))});
    }
    absl::flat_hash_map<int64_t, int64_t> covered;           // tid -> end of its last sync call
    std::vector<int8_t> is_sync_name(m.strings.size(), -1);  // per name id, decided once
    for (size_t i = 0; i < m.api.size(); ++i) {
      StringId name_id = m.api.name[i];
      if (name_id >= 0 && static_cast<size_t>(name_id) < is_sync_name.size()) {
        if (is_sync_name[name_id] < 0) is_sync_name[name_id] = IsExplicitSyncName(m.strings.Get(name_id)) ? 1 : 0;
        if (!is_sync_name[name_id]) continue;
      } else if (!IsExplicitSyncName(call_name(static_cast<int32_t>(i)))) {
        continue;
      }
      std::string_view name = call_name(static_cast<int32_t>(i));
      auto [cov, inserted] = covered.try_emplace(m.api.tid[i], kMinTime);
      if (m.api.start_ns[i] < cov->second) continue;  // nested driver call: same wait
      cov->second = m.api.end_ns[i];
      if (m.api.correlation_id[i] >= 0 && sync_corr.contains(m.api.correlation_id[i])) continue;
      calls.push_back(
          {m.api.start_ns[i], m.api.end_ns[i], static_cast<int32_t>(i), m.api.tid[i], std::string(BaseApiName(name))});
    }
  }
  std::vector<Span> records, calls;
};

class Diagnoser {
 public:
  Diagnoser(const TraceModel& m, const Window& w, const DiagnoseOptions& o, const DiagnoseInputs& in)
      : m_(m),
        w_(w),
        o_(o),
        overlap_(&in.overlap),
        gaps_(&in.gap_causes),
        hidden_(&in.hidden_sync),
        launch_(&in.launch_stats),
        contention_(in.contention),
        detections_(&in.detections) {
    ops_ = OpsStartingIn(m, w);
  }

  DiagnoseResult Run() {
    result_.window = w_;
    for (const DeviceOverlap& d : overlap_->devices) {
      result_.busy_ns += d.busy_ns;
      // Not from d.intervals: a report keeps only the longest intervals.
      result_.overlap_ns += d.overlap_ns;
    }
    if (ops_.empty()) result_.notes.push_back({DiagnoseNote::Kind::kNoOpsInWindow, 0});
    result_.idle_ns = gaps_->idle_ns;
    for (GapCause c : {GapCause::kWindowStart, GapCause::kWindowEnd, GapCause::kFirstLaunch}) {
      result_.idle_apart_ns += gaps_->cause_ns[static_cast<int>(c)];
    }
    if (!ops_.empty()) {
      int64_t first = m_.ops.start_ns[ops_.front()], last = first;
      for (int32_t op : ops_) last = std::max(last, m_.ops.end_ns[op]);
      result_.gpu_span_ns = std::min(last, w_.end_ns) - first;
    }
    Hardware();
    for (DiagnoseFinding& f : FindCopyBandwidthBound(m_, *overlap_, ops_, result_.gpu_span_ns, o_)) {
      findings_.push_back(std::move(f));
    }
    if (auto f = HardwareQueueFinding(m_, w_, detections_->queue_held, o_.max_evidence)) {
      findings_.push_back(std::move(*f));
    }
    MemoryType();
    SameStream();
    EventWaits();
    if (auto f = FindRoundTrip(m_, *gaps_, o_.max_evidence)) findings_.push_back(std::move(*f));
    SyncsBetween();
    LegacyStream();
    if (auto f = LoadStallFinding(m_, w_, detections_->load_stalls, o_.max_evidence)) {
      findings_.push_back(std::move(*f));
    }
    ImplicitCalls();
    CpuStarvation();
    if (contention_) findings_.push_back(*contention_);
    SmallWork();
    for (DiagnoseFinding& f : FindSmallGrids(m_, w_, ops_, o_)) findings_.push_back(std::move(f));
    int64_t threshold = std::max<int64_t>(
        o_.min_impact_ns, static_cast<int64_t>(o_.min_impact_share * static_cast<double>(result_.gpu_span_ns)));
    for (DiagnoseFinding& f : findings_) f.significant = f.impact_ns >= threshold;
    std::stable_partition(findings_.begin(), findings_.end(), [](const DiagnoseFinding& f) { return f.significant; });
    result_.findings = std::move(findings_);
    return std::move(result_);
  }

 private:
  int32_t Api(int32_t op) const { return m_.ApiForOp(static_cast<size_t>(op)); }
  std::string_view CallName(int32_t api) const { return m_.strings.Get(m_.api.name[api]); }
  int64_t Clipped(int32_t op) const { return ClippedLength({m_.ops.start_ns[op], m_.ops.end_ns[op]}, w_.interval()); }
  void Cite(DiagnoseFinding& f, int32_t op) const { CiteOp(f, op, o_.max_evidence); }
  void CiteCall(DiagnoseFinding& f, int32_t api) const {
    if (api < 0) return;
    if (std::find(f.tids.begin(), f.tids.end(), m_.api.tid[api]) == f.tids.end()) f.tids.push_back(m_.api.tid[api]);
    if (static_cast<int>(f.calls.size()) >= o_.max_evidence) return;
    if (std::find(f.calls.begin(), f.calls.end(), api) == f.calls.end()) f.calls.push_back(api);
  }
  int64_t UnionInWindow(IntervalList x) const { return TotalLength(Clip(Normalize(std::move(x)), w_.interval())); }

  // 1. Hardware ---------------------------------------------------------------
  void Hardware() {
    for (const DeviceOverlap& d : overlap_->devices) {
      const Device* dev = m_.FindDevice(d.device_id);
      int64_t h2d = d.category_ns[kH2D], d2h = d.category_ns[kD2H], compute = d.category_ns[kCompute];
      std::string name = dev != nullptr ? dev->name : "";
      bool copies_matter = (h2d > 0 && d2h > 0) || (d.copy_ns > 0 && compute > 0);
      if (dev == nullptr || dev->async_engine_count < 0) {
        if (copies_matter) {
          result_.notes.push_back({DiagnoseNote::Kind::kCopyEnginesUnknown, d.device_id});
        }
      } else if (dev->async_engine_count == 0 && d.copy_ns > 0 && compute > 0) {
        DiagnoseFinding f;
        f.cause = DiagnoseCause::kCopyEngines;
        f.impact_ns = std::min(d.copy_ns, compute);
        CopyEnginesFacts facts;
        facts.device_id = d.device_id;
        facts.device_name = name;
        facts.engines = 0;
        facts.copy_ns = d.copy_ns;
        facts.compute_ns = compute;
        f.facts = std::move(facts);
        f.figures = {{"device_id", d.device_id}, {"async_engine_count", 0}};
        CiteFirstOf(f, d.device_id, {OpCategory::kHtoD, OpCategory::kDtoH, OpCategory::kKernel});
        findings_.push_back(std::move(f));
      } else if (dev->async_engine_count == 1 && h2d > 0 && d2h > 0) {
        const PairOverlap* p = overlap_->Find(d.device_id, OverlapPairIndex(OpCategory::kHtoD, OpCategory::kDtoH));
        DiagnoseFinding f;
        f.cause = DiagnoseCause::kCopyEngines;
        f.impact_ns = std::max<int64_t>(0, std::min(h2d, d2h) - (p ? p->overlapped_ns : 0));
        CopyEnginesFacts facts;
        facts.device_id = d.device_id;
        facts.device_name = name;
        facts.engines = 1;
        facts.h2d_ns = h2d;
        facts.d2h_ns = d2h;
        f.facts = std::move(facts);
        f.figures = {{"device_id", d.device_id}, {"async_engine_count", 1}, {"h2d_ns", h2d}, {"d2h_ns", d2h}};
        CiteFirstOf(f, d.device_id, {OpCategory::kHtoD, OpCategory::kDtoH});
        findings_.push_back(std::move(f));
      }
      if (dev != nullptr && dev->concurrent_kernels == 0 && compute > 0) {
        absl::flat_hash_map<int32_t, int64_t> per_stream;
        for (int32_t op : ops_) {
          if (m_.ops.device_id[op] == d.device_id && m_.ops.category[op] == OpCategory::kKernel) {
            per_stream[m_.ops.stream[op]] += Clipped(op);
          }
        }
        if (per_stream.size() >= 2) {
          int64_t sum = 0, max = 0;
          for (auto& [s, t] : per_stream) {
            sum += t;
            max = std::max(max, t);
          }
          DiagnoseFinding f;
          f.cause = DiagnoseCause::kNoConcurrentKernels;
          f.impact_ns = std::min(sum - max, compute);
          f.facts = NoConcurrentKernelsFacts{d.device_id, name, static_cast<int64_t>(per_stream.size())};
          f.figures = {{"device_id", d.device_id}, {"kernel_streams", static_cast<double>(per_stream.size())}};
          CiteFirstOf(f, d.device_id, {OpCategory::kKernel});
          findings_.push_back(std::move(f));
        }
      }
    }
  }

  void CiteFirstOf(DiagnoseFinding& f, int32_t device, std::initializer_list<OpCategory> cats) const {
    for (OpCategory c : cats) {
      for (int32_t op : ops_) {
        if (m_.ops.device_id[op] == device && m_.ops.category[op] == c) {
          Cite(f, op);
          break;
        }
      }
    }
  }

  // 2. Memory type ------------------------------------------------------------
  void MemoryType() {
    struct Side {
      int64_t count = 0, bytes = 0, ns = 0;
      std::vector<int64_t> durations;
      std::set<int32_t> devices;
    };
    std::array<Side, kNumOpCategories> pageable{};
    std::vector<int32_t> pageable_ops, pinned_ops;
    for (int32_t op : ops_) {
      OpCategory c = m_.ops.category[op];
      if (!IsCopy(c)) continue;
      int ci = static_cast<int>(c);
      MemoryKind s = m_.ops.src_kind[op], d = m_.ops.dst_kind[op];
      int64_t dur = SaturatingSub(m_.ops.end_ns[op], m_.ops.start_ns[op]);
      if (s == MemoryKind::kPageable || d == MemoryKind::kPageable) {
        pageable[ci].count += 1;
        pageable[ci].bytes += m_.ops.bytes[op];
        pageable[ci].ns += dur;
        pageable[ci].durations.push_back(dur);
        pageable[ci].devices.insert(m_.ops.device_id[op]);
        pageable_ops.push_back(op);
      } else if (s == MemoryKind::kPinned || d == MemoryKind::kPinned) {
        pinned_ops.push_back(op);
      }
    }
    if (pageable_ops.empty()) return;
    DiagnoseFinding f;
    f.cause = DiagnoseCause::kPageableCopies;
    PageableCopiesFacts facts;
    int64_t excess = 0;
    for (int ci = 0; ci < kNumOpCategories; ++ci) {
      const Side& p = pageable[ci];
      if (p.count == 0) continue;
      std::string cat(OpCategoryName(static_cast<OpCategory>(ci)));
      PageableCopiesFacts::Direction part;
      part.category = static_cast<OpCategory>(ci);
      part.count = p.count;
      part.bytes = p.bytes;
      part.ns = p.ns;
      const double avg_bytes = static_cast<double>(p.bytes) / static_cast<double>(p.count);
      part.avg_bytes = static_cast<int64_t>(avg_bytes);
      part.median_ns = Median(p.durations);
      part.latency_bound = avg_bytes < static_cast<double>(o_.latency_bound_copy_bytes);
      // The reference: the same device's pinned copies of this direction
      // and of similar size in this trace.
      int64_t ref_bytes = 0, ref_ns = 0;
      std::vector<int64_t> ref_durations;
      for (int32_t op : pinned_ops) {
        if (static_cast<int>(m_.ops.category[op]) != ci || !p.devices.contains(m_.ops.device_id[op])) continue;
        double b = static_cast<double>(m_.ops.bytes[op]);
        if (b * o_.similar_size_factor < avg_bytes || b > avg_bytes * o_.similar_size_factor) continue;
        int64_t dur = SaturatingSub(m_.ops.end_ns[op], m_.ops.start_ns[op]);
        ref_bytes += m_.ops.bytes[op];
        ref_ns += dur;
        ref_durations.push_back(dur);
      }
      double ref = 0;  // ns per byte
      if (!ref_durations.empty() && ref_bytes > 0) {
        ref = static_cast<double>(ref_ns) / static_cast<double>(ref_bytes);
        part.pinned_median_ns = Median(ref_durations);
        part.reference = PageableCopiesFacts::Reference::kThisTrace;
      } else if (!part.latency_bound && o_.reference != nullptr && o_.reference->pinned_ns_per_byte[ci] > 0) {
        ref = o_.reference->pinned_ns_per_byte[ci];
        part.reference = PageableCopiesFacts::Reference::kReferenceTrace;
        part.reference_source = o_.reference->source;
      } else if (!part.latency_bound) {
        // The host link's ceiling, when every device of these copies has a
        // known link: the slowest, so the extra time is not overstated.
        std::optional<HostLinkRate> slowest;
        for (int32_t dev : p.devices) {
          std::optional<HostLinkRate> r = DeviceLinkRate(m_, dev);
          if (!r) {
            slowest.reset();
            break;
          }
          if (!slowest || r->bytes_per_ns < slowest->bytes_per_ns) slowest = r;
        }
        if (slowest) {
          ref = 1.0 / slowest->bytes_per_ns;
          part.reference = PageableCopiesFacts::Reference::kDeviceLink;
          part.link = *slowest;
        }
      }
      f.figures[cat + "_pageable_copies"] = static_cast<double>(p.count);
      f.figures[cat + "_pageable_bytes"] = static_cast<double>(p.bytes);
      f.figures[cat + "_pageable_ns"] = static_cast<double>(p.ns);
      f.figures[cat + "_median_ns"] = static_cast<double>(part.median_ns);
      f.figures[cat + "_latency_bound"] = part.latency_bound ? 1 : 0;
      if (part.latency_bound && part.pinned_median_ns > 0) {
        // Per copy: the time beyond a pinned copy of similar size.
        int64_t extra = 0;
        for (int64_t d : p.durations) extra += std::max<int64_t>(0, d - part.pinned_median_ns);
        excess += extra;
        part.slowdown = static_cast<double>(part.median_ns) / static_cast<double>(part.pinned_median_ns);
        part.op_ns = part.median_ns;
        part.pinned_op_ns = part.pinned_median_ns;
        part.extra_ns = extra;
        f.figures[cat + "_pinned_median_ns"] = static_cast<double>(part.pinned_median_ns);
        f.figures[cat + "_extra_ns"] = static_cast<double>(extra);
      } else if (!part.latency_bound && ref > 0 && p.bytes > 0) {
        double rate = static_cast<double>(p.ns) / static_cast<double>(p.bytes);
        double slow = rate / ref;
        int64_t expected = static_cast<int64_t>(ref * static_cast<double>(p.bytes));
        int64_t extra = std::max<int64_t>(0, p.ns - expected);
        excess += extra;
        part.slowdown = slow;
        part.op_ns = static_cast<int64_t>(rate * avg_bytes);
        part.pinned_op_ns = static_cast<int64_t>(ref * avg_bytes);
        part.extra_ns = extra;
        f.figures[cat + "_slowdown"] = slow;
        f.figures[cat + "_extra_ns"] = static_cast<double>(extra);
      } else {
        part.reference = PageableCopiesFacts::Reference::kNone;  // nothing to compare with: unknown
      }
      facts.directions.push_back(std::move(part));
    }
    int64_t held = 0, held_calls = 0;
    std::set<std::string> held_names;
    for (const ImplicitSyncFinding& c : hidden_->implicit_calls) {
      if (c.kind != ImplicitSyncKind::kPageableAsyncMemcpy || !c.observed) continue;
      held_calls += 1;
      held += m_.api.end_ns[c.api] - m_.api.start_ns[c.api];
      held_names.insert(std::string(BaseApiName(CallName(c.api))));
      CiteCall(f, c.api);
    }
    // The GPU idle while the submitting thread was held in those calls: a
    // measured cost that needs no reference rate (CPU starvation leaves it
    // to this step).
    int64_t held_idle = 0;
    for (const GapCauseTotal& t : gaps_->totals) {
      if (t.cause == GapCause::kHostBlockedInCall && t.detail >= 0 &&
          held_names.contains(std::string(BaseApiName(m_.strings.Get(t.detail))))) {
        held_idle += t.ns;
      }
    }
    for (int32_t op : pageable_ops) {
      Cite(f, op);
      if (f.calls.size() < static_cast<size_t>(o_.max_evidence)) CiteCall(f, Api(op));
    }
    f.impact_ns = excess + held_idle;
    facts.host_held_calls = held_calls;
    facts.host_held_ns = held;
    f.facts = std::move(facts);
    f.figures["host_held_calls"] = static_cast<double>(held_calls);
    f.figures["host_held_ns"] = static_cast<double>(held);
    f.figures["host_held_idle_ns"] = static_cast<double>(held_idle);
    findings_.push_back(std::move(f));
  }

  // 3a. Same stream -----------------------------------------------------------
  void SameStream() {
    const std::array<std::pair<OpCategory, OpCategory>, 3> pairs = {{
        {OpCategory::kKernel, OpCategory::kHtoD},
        {OpCategory::kKernel, OpCategory::kDtoH},
        {OpCategory::kHtoD, OpCategory::kDtoH},
    }};
    DiagnoseFinding f;
    f.cause = DiagnoseCause::kSameStream;
    SameStreamFacts facts;
    for (const DeviceOverlap& d : overlap_->devices) {
      // Time per (stream, category) of this device.
      absl::flat_hash_map<int32_t, std::array<int64_t, kNumOpCategories>> per_stream;
      std::array<int64_t, kNumOpCategories> total{};
      for (int32_t op : ops_) {
        if (m_.ops.device_id[op] != d.device_id) continue;
        // Ops on no stream (unified-memory migrations, which the driver
        // runs on demand) are not a stream's work that another stream could
        // take: the remedy does not apply to them.
        if (!IsProgramStream(m_, m_.ops.stream[op])) continue;
        // A result read back needs the kernel before it: not a copy that
        // another stream would overlap.
        if (m_.ops.category[op] == OpCategory::kDtoH && m_.ops.bytes[op] <= kResultReadBackMaxBytes) continue;
        int ci = static_cast<int>(m_.ops.category[op]);
        int64_t t = Clipped(op);
        per_stream[m_.ops.stream[op]][ci] += t;
        total[ci] += t;
      }
      int64_t best = 0;
      int32_t best_stream = -1;
      std::set<int> cats;
      for (auto [a, b] : pairs) {
        const PairOverlap* p = overlap_->Find(d.device_id, OverlapPairIndex(a, b));
        if (p == nullptr || p->possible_ns <= 0 || p->hidden_share > o_.same_stream_max_hidden) continue;
        int ia = static_cast<int>(a), ib = static_cast<int>(b);
        if (total[ia] <= 0 || total[ib] <= 0) continue;
        for (auto& [s, t] : per_stream) {
          double sa = static_cast<double>(t[ia]) / static_cast<double>(total[ia]);
          double sb = static_cast<double>(t[ib]) / static_cast<double>(total[ib]);
          if (sa < o_.same_stream_share || sb < o_.same_stream_share) continue;
          int64_t lost = p->possible_ns - p->overlapped_ns;
          if (lost > best) {
            best = lost;
            best_stream = s;
          }
          cats.insert(ia);
          cats.insert(ib);
        }
      }
      if (best_stream < 0) continue;
      SameStreamFacts::Device part;
      part.device_id = d.device_id;
      for (int c : cats) part.categories.push_back(static_cast<OpCategory>(c));
      int64_t on_stream = 0;
      for (int32_t op : ops_) {
        if (m_.ops.stream[op] != best_stream) continue;
        on_stream += 1;
        if (cats.contains(static_cast<int>(m_.ops.category[op]))) Cite(f, op);
      }
      part.stream_id =
          best_stream < 0 || static_cast<size_t>(best_stream) >= m_.streams.size() ? -1 : m_.streams[best_stream].id;
      part.stream_ops = on_stream;
      part.hideable_ns = best;
      facts.devices.push_back(std::move(part));
      f.impact_ns += best;
      f.figures[absl::StrCat("device_", d.device_id, "_stream_id")] = static_cast<double>(m_.streams[best_stream].id);
    }
    if (facts.devices.empty()) return;
    f.facts = std::move(facts);
    findings_.push_back(std::move(f));
  }

  // 3b. Event waits -----------------------------------------------------------
  void EventWaits() {
    const EventWaitFacts& facts = m_.Derived<EventWaitFacts>();
    if (!facts.any) return;
    const std::vector<std::vector<EventWaitFacts::Wait>>& waits = facts.by_stream;
    const std::vector<OpEnd>& ends = m_.Derived<OpEndsInOrder>().ends;

    DiagnoseFinding f;
    f.cause = DiagnoseCause::kEventWait;
    IntervalList delays;
    int64_t delayed = 0;
    const size_t first = FirstOpStartingAt(m_, w_.start_ns);
    const size_t last = std::max(first, FirstOpStartingAt(m_, w_.end_ns));
    StreamPredecessorWalk predecessors(m_, first);
    for (size_t i = first; i < last; ++i) {
      int32_t s = m_.ops.stream[i];
      int32_t prev = predecessors.Next(i);
      if (s < 0 || static_cast<size_t>(s) >= waits.size()) continue;
      int64_t start = m_.ops.start_ns[i];
      if (waits[s].empty()) continue;
      int32_t a = Api(static_cast<int32_t>(i));
      if (a < 0) continue;
      int64_t lo = kMinTime, prev_end = kMinTime;
      if (prev >= 0) {
        int32_t pa = Api(prev);
        lo = pa >= 0 ? m_.api.start_ns[pa] : m_.ops.start_ns[prev];
        prev_end = m_.ops.end_ns[prev];
      }
      const EventWaitFacts::Wait* wait = facts.FirstIn(s, lo, m_.api.end_ns[a]);
      if (wait == nullptr) continue;
      int64_t ready = std::max(m_.api.end_ns[a], prev_end);
      if (start - ready <= o_.dependency_tolerance_ns) continue;
      delays.push_back({ready, start});
      delayed += 1;
      Cite(f, static_cast<int32_t>(i));
      CiteCall(f, wait->api);
      // The op it waited for: the latest op of another stream that ended just before it started.
      auto e = std::upper_bound(ends.begin(), ends.end(), OpEnd{start, std::numeric_limits<int32_t>::max()});
      for (int scanned = 0; e != ends.begin() && scanned < 64; ++scanned) {
        --e;
        if (e->end < start - o_.dependency_tolerance_ns) break;
        if (m_.ops.stream[e->op] != s) {
          Cite(f, e->op);
          break;
        }
      }
    }
    if (delayed == 0) return;
    // Cost: the delays; the idle partition's event-wait time is their idle
    // part, the rest ran while the device did other work (idle_partition.h).
    f.impact_ns = UnionInWindow(std::move(delays));
    int64_t gap_ns = gaps_->cause_ns[static_cast<int>(GapCause::kDependencyEventWait)];
    f.facts = EventWaitDelays{delayed, f.impact_ns, gap_ns};
    f.figures = {{"delayed_ops", static_cast<double>(delayed)}, {"idle_ns", static_cast<double>(gap_ns)}};
    findings_.push_back(std::move(f));
  }

  // 3c. Explicit syncs between submissions ------------------------------------
  void SyncsBetween() {
    int64_t last_submit = kMinTime;
    for (int32_t op : ops_) {
      int32_t a = Api(op);
      if (a >= 0) last_submit = std::max(last_submit, m_.api.start_ns[a]);
    }
    if (last_submit == kMinTime) return;
    const SyncSpanFacts& facts = m_.Derived<SyncSpanFacts>();
    DiagnoseFinding f;
    f.cause = DiagnoseCause::kSyncBetween;
    IntervalList idle_spans;
    std::map<std::string, int64_t> by_name;
    int64_t count = 0;
    // Sync records first, then the calls no record describes (each list by start).
    for (const std::vector<SyncSpanFacts::Span>* list : {&facts.records, &facts.calls}) {
      auto from = std::lower_bound(list->begin(), list->end(), w_.start_ns,
                                   [](const SyncSpanFacts::Span& x, int64_t t) { return x.start < t; });
      for (auto s = from; s != list->end() && s->start < w_.end_ns; ++s) {
        AddSyncSpan(*s, last_submit, f, idle_spans, by_name, count);
      }
    }
    // Cost: the idle partition's sync_wait time (the GPU drained by the
    // sync, then waiting for the next submission); round trips are their own finding.
    const int64_t idle = gaps_->cause_ns[static_cast<int>(GapCause::kSyncWait)] +
                         BlockedInCallsNs(m_, *gaps_, [](std::string_view n) { return IsExplicitSyncName(n); });
    if (count == 0 || idle <= 0) return;
    SyncBetweenFacts found;
    found.syncs = count;
    found.idle_ns = idle;
    for (auto& [n, k] : by_name) found.calls.push_back({n, k});
    f.impact_ns = idle;
    f.facts = std::move(found);
    f.figures = {{"syncs", static_cast<double>(count)}};
    findings_.push_back(std::move(f));
  }

  // One explicit sync of SyncsBetween(): counted when it starts in the
  // window and more submissions follow it.
  void AddSyncSpan(const SyncSpanFacts::Span& s, int64_t last_submit, DiagnoseFinding& f, IntervalList& idle_spans,
                   std::map<std::string, int64_t>& by_name, int64_t& count) const {
    if (s.end >= last_submit) return;
    auto next = std::lower_bound(m_.ops.start_ns.begin(), m_.ops.start_ns.end(), s.end);
    int64_t until = next == m_.ops.start_ns.end() ? w_.end_ns : std::min(*next, w_.end_ns);
    if (until <= s.start) return;
    idle_spans.push_back({s.start, until});
    count += 1;
    by_name[s.name] += 1;
    CiteCall(f, s.api);
    if (next != m_.ops.start_ns.end()) Cite(f, static_cast<int32_t>(next - m_.ops.start_ns.begin()));
  }

  // 4a. Legacy default stream -------------------------------------------------
  void LegacyStream() {
    if (hidden_->serialization.empty()) return;
    DiagnoseFinding f;
    f.cause = DiagnoseCause::kLegacyDefaultStream;
    IntervalList delays;
    for (const SerializationFinding& s : hidden_->serialization) {
      delays.push_back({s.ready_ns, m_.ops.start_ns[s.delayed_op]});
      Cite(f, s.delayed_op);
      Cite(f, s.waited_op);
    }
    f.impact_ns = UnionInWindow(std::move(delays));
    int64_t to_legacy = hidden_->serialization_count[0], from_legacy = hidden_->serialization_count[1];
    f.facts = LegacyStreamFacts{to_legacy, from_legacy, f.impact_ns};
    f.figures = {
        {"blocking_waited_for_legacy", static_cast<double>(to_legacy)},
        {"legacy_waited_for_blocking", static_cast<double>(from_legacy)},
        {"delay_ns", static_cast<double>(hidden_->serialization_delay_ns[0] + hidden_->serialization_delay_ns[1])}};
    findings_.push_back(std::move(f));
  }

  // 4b. Implicitly synchronizing calls ------------------------------------------
  void ImplicitCalls() {
    DiagnoseFinding f;
    f.cause = DiagnoseCause::kImplicitSyncCall;
    std::map<std::string, std::pair<int64_t, int64_t>> by_name;  // name -> (calls, observed)
    std::set<ImplicitSyncKind> kinds;
    int64_t waited = 0;
    for (const ImplicitSyncFinding& c : hidden_->implicit_calls) {
      if (c.kind == ImplicitSyncKind::kPageableAsyncMemcpy) continue;  // step 2
      std::string name(BaseApiName(CallName(c.api)));
      auto& [calls, observed] = by_name[name];
      calls += 1;
      if (!c.observed) continue;
      observed += 1;
      kinds.insert(c.kind);
      blamed_calls_.insert(name);
      waited += c.waited_ns;
      CiteCall(f, c.api);
      Cite(f, c.waited_for_op);
    }
    if (blamed_calls_.empty()) return;
    int64_t idle = 0;
    for (const GapCauseTotal& t : gaps_->totals) {
      if (t.cause == GapCause::kHostBlockedInCall && t.detail >= 0 &&
          blamed_calls_.contains(std::string(BaseApiName(m_.strings.Get(t.detail))))) {
        idle += t.ns;
      }
    }
    ImplicitSyncFacts facts;
    for (auto& [n, c] : by_name) {
      if (c.second > 0) facts.calls.push_back({n, c.first});
    }
    facts.kinds.assign(kinds.begin(), kinds.end());
    facts.waited_ns = waited;
    facts.idle_ns = idle;
    f.impact_ns = idle;
    f.facts = std::move(facts);
    f.figures = {{"waited_ns", static_cast<double>(waited)}, {"idle_ns", static_cast<double>(idle)}};
    findings_.push_back(std::move(f));
  }

  // 5. CPU starvation -----------------------------------------------------------
  void CpuStarvation() {
    // Calls already blamed: explicit syncs, implicit syncs, pageable copy calls.
    absl::flat_hash_set<std::string> blamed(blamed_calls_.begin(), blamed_calls_.end());
    for (const ImplicitSyncFinding& c : hidden_->implicit_calls) {
      if (c.kind == ImplicitSyncKind::kPageableAsyncMemcpy && c.observed) {
        blamed.insert(std::string(BaseApiName(CallName(c.api))));
      }
    }
    std::map<std::pair<int, std::string>, std::pair<int64_t, int64_t>> by_detail;  // (cause, detail) -> (ns, gaps)
    std::set<int64_t> tids;
    int64_t total = 0;
    for (const GapCauseTotal& t : gaps_->totals) {
      if (!IsCpuStarvation(t.cause) || t.ns <= 0) continue;
      std::string detail = t.detail >= 0 ? std::string(m_.strings.Get(t.detail)) : "";
      if (t.cause == GapCause::kHostBlockedInCall &&
          (IsExplicitSyncName(detail) || blamed.contains(std::string(BaseApiName(detail))))) {
        continue;
      }
      auto& [ns, gaps] = by_detail[{static_cast<int>(t.cause), detail}];
      ns += t.ns;
      gaps += t.gaps;
      total += t.ns;
      if (t.tid >= 0) tids.insert(t.tid);
    }
    if (total <= 0) return;
    std::vector<std::pair<std::pair<int, std::string>, std::pair<int64_t, int64_t>>> sorted(by_detail.begin(),
                                                                                            by_detail.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    DiagnoseFinding f;
    f.cause = DiagnoseCause::kCpuStarvation;
    f.impact_ns = total;
    f.tids.assign(tids.begin(), tids.end());
    CpuStarvationFacts facts;
    facts.idle_ns = total;
    for (size_t i = 0; i < sorted.size() && i < 3; ++i) {
      const auto& [key, val] = sorted[i];
      GapCause cause = static_cast<GapCause>(key.first);
      facts.top.push_back({cause, key.second, val.first, val.second});
      if (i == 0) {
        f.labels["top_cause"] = std::string(GapCauseName(cause));
        // Named as the gap-cause tables name it; unannotated work has no name.
        if (cause == GapCause::kHostBlockedInCall) f.labels["top_api_name"] = key.second;
        if (cause == GapCause::kHostNvtxRange) f.labels["top_nvtx_name"] = key.second;
      }
    }
    f.facts = std::move(facts);
    for (const GapFinding& g : gaps_->worst_gaps) {
      if (!IsCpuStarvation(g.primary)) continue;
      Cite(f, g.next_op);
      CiteCall(f, g.api);
    }
    findings_.push_back(std::move(f));
  }

  // 7. Work too small for its launch cost ----------------------------------------
  void SmallWork() {
    DiagnoseFinding f;
    f.cause = DiagnoseCause::kSmallWork;
    SmallWorkFacts facts;
    int64_t removable = 0, idle = 0;
    for (const KernelLaunchStats& k : launch_->kernels) {
      if (!k.launch_bound()) continue;
      removable += k.graph_removable_ns;
      idle += k.idle_before_ns;
      Cite(f, k.first_op);
      if (facts.groups.size() < 3) {
        facts.groups.push_back({k.name, k.count, k.gpu_ns.median, k.api_ns.median});
      }
    }
    if (facts.groups.empty()) return;
    // Idle cost: at most the idle partition's launch-path time.
    f.impact_ns =
        std::min(removable > 0 ? removable : idle, gaps_->cause_ns[static_cast<int>(GapCause::kSubmissionLatency)]);
    facts.idle_ns = f.impact_ns;
    f.facts = std::move(facts);
    f.figures = {{"graph_removable_ns", static_cast<double>(removable)},
                 {"idle_between_ns", static_cast<double>(idle)},
                 {"launch_bound_kernels", static_cast<double>(launch_->launch_bound_kernels)}};
    findings_.push_back(std::move(f));
  }

  const TraceModel& m_;
  const Window& w_;
  const DiagnoseOptions& o_;
  const OverlapResult* overlap_;
  const GapCausesResult* gaps_;
  const HiddenSyncResult* hidden_;
  const LaunchStatsResult* launch_;
  const std::optional<DiagnoseFinding>& contention_;
  const WindowDetections* detections_;
  OpIndexRange ops_;
  std::set<std::string> blamed_calls_;  // implicit-sync call names (base names)
  std::vector<DiagnoseFinding> findings_;
  DiagnoseResult result_;
};

}  // namespace

DiagnoseResult AnalyzeDiagnose(const TraceModel& model, const Window& window, const DiagnoseOptions& options,
                               const DiagnoseInputs& inputs) {
  return Diagnoser(model, window, options, inputs).Run();
}

DiagnoseReference BuildDiagnoseReference(const TraceModel& model, const std::vector<Window>& windows,
                                         const DiagnoseOptions& options) {
  DiagnoseReference ref;
  ref.source = model.path;
  OpGrouper grouper(model);
  std::vector<std::vector<int64_t>> alone;  // by group
  std::array<int64_t, kNumOpCategories> bytes{}, ns{};
  for (const Window& w : windows) {
    const OpIndexRange ops = OpsStartingIn(model, w);
    std::vector<int64_t> shared = SharedTime(model, w, ops);
    for (size_t k = 0; k < ops.size(); ++k) {
      int32_t op = ops[k];
      int64_t dur = SaturatingSub(model.ops.end_ns[op], model.ops.start_ns[op]);
      if (dur <= 0) continue;
      if (static_cast<double>(shared[k]) <= options.alone_fraction * static_cast<double>(dur)) {
        size_t gid = static_cast<size_t>(grouper.GroupOf(op));
        if (gid >= alone.size()) alone.resize(gid + 1);
        alone[gid].push_back(dur);
      }
      OpCategory c = model.ops.category[op];
      MemoryKind s = model.ops.src_kind[op], d = model.ops.dst_kind[op];
      if (IsCopy(c) && s != MemoryKind::kPageable && d != MemoryKind::kPageable &&
          (s == MemoryKind::kPinned || d == MemoryKind::kPinned)) {
        bytes[static_cast<int>(c)] += model.ops.bytes[op];
        ns[static_cast<int>(c)] += dur;
      }
    }
  }
  for (auto& [key, gid] :
       grouper.KeysInOrder([&](int32_t g) { return static_cast<size_t>(g) < alone.size() && !alone[g].empty(); })) {
    ref.alone_median_ns[std::move(key)] = Median(std::move(alone[gid]));
  }
  for (int c = 0; c < kNumOpCategories; ++c) {
    if (bytes[c] > 0) ref.pinned_ns_per_byte[c] = static_cast<double>(ns[c]) / static_cast<double>(bytes[c]);
  }
  return ref;
}

void ForgetDiagnoseFacts(const TraceModel& model) {
  model.derived->Forget<EventWaitFacts>();
  model.derived->Forget<SyncSpanFacts>();
}

}  // namespace streamscope
