#include "analyzer/export/perfetto_json_writer.h"

#include <algorithm>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/trace_event_writer.h"
#include "analyzer/export/track_layout.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {
namespace {

// Device processes get pids far above real ones; synthetic host tracks get
// tids above any Linux tid (pid_max <= 2^22).
constexpr int64_t kDevicePidBase = int64_t{1} << 30;
constexpr int64_t kDevicePidsPerTrace = 256;
constexpr int64_t kSyntheticTidBase = int64_t{1} << 28;
constexpr int64_t kAnalysisSortBase = 1'000'000;

// The trace viewer's reserved colour names, per gap cause.
std::string_view GapCauseColor(std::string_view cause) {
  if (cause == "host_blocked_in_call") return "terrible";
  if (cause == "host_nvtx_range" || cause == "host_unannotated") return "bad";
  if (cause == "submission_latency") return "yellow";
  if (cause.rfind("dependency", 0) == 0) return "olive";
  if (cause == "window_start" || cause == "window_end") return "white";
  if (!cause.empty()) return "grey";
  return {};
}

class TraceExporter {
 public:
  TraceExporter(const PerfettoTraceInput& in, int trace_index, int trace_count, const PerfettoExportOptions& options,
                TraceEventWriter& writer, PerfettoExportStats* stats)
      : in_(in),
        m_(*in.model),
        w_(in.window),
        index_(trace_index),
        count_(trace_count),
        options_(options),
        out_(writer),
        stats_(stats),
        names_(m_) {}

  void Run() {
    WriteProcesses();
    WriteOps();
    if (options_.api_calls) WriteApiCalls();
    if (options_.nvtx) WriteNvtx();
    if (in_.analysis != nullptr) WriteAnalysis(*in_.analysis);
  }

 private:
  std::string Prefix() const { return count_ > 1 ? absl::StrCat(in_.label.empty() ? m_.path : in_.label, ": ") : ""; }
  int64_t HostPid() const {
    // Several traces may share a pid (control and variant runs): number them.
    if (m_.pid > 0 && m_.pid < kDevicePidBase && count_ == 1) return m_.pid;
    return 1 + index_;
  }
  int64_t DevicePid(int32_t device_id) const {
    return kDevicePidBase + index_ * kDevicePidsPerTrace + (device_id & (kDevicePidsPerTrace - 1));
  }

  void WriteProcesses() {
    int64_t host = HostPid();
    std::string cmd;
    if (auto it = m_.metadata.find("executable"); it != m_.metadata.end()) cmd = it->second;
    out_.ProcessName(host, absl::StrCat(Prefix(), "host process ", m_.pid > 0 ? absl::StrCat(m_.pid) : "?",
                                        cmd.empty() ? "" : absl::StrCat(" (", cmd, ")")));
    out_.ProcessSortIndex(host, index_ * 1000);
    for (int32_t d : m_.op_devices) {
      out_.ProcessName(DevicePid(d), absl::StrCat(Prefix(), DeviceLabel(m_, d)));
      out_.ProcessSortIndex(DevicePid(d), index_ * 1000 + 1 + d);
    }
    // Stream order on screen: by source id.
    std::vector<int32_t> order(m_.streams.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return m_.streams[a].id < m_.streams[b].id; });
    stream_rank_.assign(m_.streams.size(), 0);
    for (size_t r = 0; r < order.size(); ++r) stream_rank_[order[r]] = static_cast<int64_t>(r);
    lanes_.resize(m_.streams.size());
    lane_tids_.resize(m_.streams.size());
  }

  // Track of (stream, lane), named on first use.
  int64_t StreamTid(int32_t stream, int lane) {
    std::vector<int64_t>& tids = lane_tids_[stream];
    while (tids.size() <= static_cast<size_t>(lane)) {
      int64_t tid = next_device_tid_++;
      int l = static_cast<int>(tids.size());
      tids.push_back(tid);
      int64_t pid = DevicePid(m_.streams[stream].device_id);
      std::string name = StreamLabel(m_, stream);
      if (l > 0) absl::StrAppend(&name, " overflow ", l);
      out_.ThreadName(pid, tid, name);
      out_.ThreadSortIndex(pid, tid, stream_rank_[stream] * 64 + std::min(l, 63));
    }
    return tids[lane];
  }

  // Host track ids: the OS tid when it fits; `kind` 0 = API calls,
  // 1 = NVTX push/pop, 2+ = NVTX start/end lanes.
  int64_t HostTid(int64_t tid, int kind) {
    auto key = std::make_pair(tid, kind);
    auto it = host_tids_.find(key);
    if (it != host_tids_.end()) return it->second;
    int64_t rank;
    if (auto r = thread_rank_.find(tid); r != thread_rank_.end()) {
      rank = r->second;
    } else {
      rank = static_cast<int64_t>(thread_rank_.size());
      thread_rank_[tid] = rank;
    }
    int64_t id = (kind == 0 && tid > 0 && tid < kSyntheticTidBase) ? tid : kSyntheticTidBase + next_host_tid_++;
    host_tids_[key] = id;
    std::string name = absl::StrCat("thread ", tid);
    if (auto n = m_.thread_names.find(tid); n != m_.thread_names.end() && !n->second.empty()) {
      absl::StrAppend(&name, " (", n->second, ")");
    }
    if (kind == 1) absl::StrAppend(&name, " NVTX");
    if (kind >= 2) absl::StrAppend(&name, " NVTX start/end", kind > 2 ? absl::StrCat(" ", kind - 1) : "");
    out_.ThreadName(HostPid(), id, name);
    out_.ThreadSortIndex(HostPid(), id, rank * 64 + std::min(kind, 63));
    return id;
  }

  void WriteOps() {
    const GpuOps& ops = m_.ops;
    auto [first, last] = m_.OpRangeFor(w_.start_ns, w_.end_ns + 1);
    bool shapes = m_.kernel_shapes.size() == ops.size();
    TraceEventArgs args;
    for (size_t i = first; i < last; ++i) {
      int64_t s = ops.start_ns[i], e = ops.end_ns[i];
      if (!InWindow(s, e, w_)) continue;
      int32_t stream = ops.stream[i];
      if (stream < 0 || static_cast<size_t>(stream) >= m_.streams.size()) continue;
      int lane = lanes_[stream].Place(s, e);
      int64_t pid = DevicePid(m_.streams[stream].device_id);
      int64_t tid = StreamTid(stream, lane);
      OpCategory c = ops.category[i];
      args.Clear();
      args.Str("table", OpTable(c)).Int("source_id", ops.source_id[i]);
      args.Int("correlation_id", ops.correlation_id[i]);
      args.Int("stream", m_.streams[stream].id);
      if (c == OpCategory::kKernel) {
        if (shapes) {
          const KernelShape& k = m_.kernel_shapes[i];
          args.Ints("grid", {k.grid[0], k.grid[1], k.grid[2]});
          args.Ints("block", {k.block[0], k.block[1], k.block[2]});
          args.Int("registers", k.registers).Int("shared_bytes", k.shared_bytes);
        }
        if (ops.name[i] != kNoString && names_.Get(ops.name[i]) != m_.strings.Get(ops.name[i])) {
          args.Str("mangled_name", m_.strings.Get(ops.name[i]));
        }
      } else {
        args.Int("bytes", ops.bytes[i]);
        if (c != OpCategory::kMemset) args.Str("src_kind", MemoryKindName(ops.src_kind[i]));
        args.Str("dst_kind", MemoryKindName(ops.dst_kind[i]));
        args.Bool("async", ops.is_async[i] != 0);
        if (ops.peer_device[i] >= 0) args.Int("peer_device", ops.peer_device[i]);
      }
      if (ops.graph_id[i] >= 0) args.Int("graph_id", ops.graph_id[i]);
      int32_t api = m_.ApiForOp(i);
      if (api >= 0) {
        args.Int("api_source_id", m_.api.source_id[api]);
        args.Int("queue_delay_ns", s - m_.api.end_ns[api]);
      }
      if (lane > 0) args.Bool("overlaps_previous_op_on_stream", true);
      std::string_view name = c == OpCategory::kKernel ? names_.Get(ops.name[i]) : std::string_view{};
      std::string label;
      if (c != OpCategory::kKernel) {
        label = OpDisplayName(m_, i, names_);
        name = label;
      }
      out_.Complete(pid, tid, s, e - s, name, OpCategoryName(c), &args);
      ++stats_->ops;
      ++stats_->ops_by_category[static_cast<int>(c)];
      if (lane > 0) ++stats_->ops_on_overflow_tracks;
      if (options_.flows && options_.api_calls && api >= 0 && InWindow(m_.api.start_ns[api], m_.api.end_ns[api], w_)) {
        uint64_t id = (static_cast<uint64_t>(index_) << 40) + i + 1;
        // Both ends 1 ns inside their slices: viewers bind a flow event to
        // the slice open at its ts, and an event at a slice's very start
        // may sort before the slice opens.
        int64_t as = m_.api.start_ns[api];
        out_.FlowStart(HostPid(), HostTid(m_.api.tid[api], 0), as + std::min<int64_t>(1, (m_.api.end_ns[api] - as) / 2),
                       id, "launch", "flow");
        out_.FlowEnd(pid, tid, s + std::min<int64_t>(1, (e - s) / 2), id, "launch", "flow");
        ++stats_->flows;
      }
    }
  }

  void WriteApiCalls() {
    const ApiCalls& api = m_.api;
    // Calls that can reach the window: ones starting before its end.
    size_t last = std::lower_bound(api.start_ns.begin(), api.start_ns.end(), w_.end_ns + 1) - api.start_ns.begin();
    std::vector<int32_t> order;
    for (size_t i = 0; i < last; ++i) {
      if (InWindow(api.start_ns[i], api.end_ns[i], w_)) order.push_back(static_cast<int32_t>(i));
    }
    // Parents before children: by start, then longest first.
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      if (api.start_ns[a] != api.start_ns[b]) return api.start_ns[a] < api.start_ns[b];
      return api.end_ns[a] > api.end_ns[b];
    });
    absl::flat_hash_map<int64_t, NestingClipper> clippers;
    TraceEventArgs args;
    for (int32_t i : order) {
      NestingClipper& clip = clippers[api.tid[i]];
      int64_t s = api.start_ns[i];
      int64_t e = clip.Place(s, api.end_ns[i]);
      args.Clear();
      args.Int("source_id", api.source_id[i]).Int("correlation_id", api.correlation_id[i]);
      args.Int("cbid", api.cbid[i]).Int("return_value", api.return_value[i]);
      args.Str("domain", api.domain[i] == ApiDomain::kDriver ? "driver" : "runtime");
      if (e != api.end_ns[i]) args.Int("recorded_end_clipped_by_ns", api.end_ns[i] - e);
      out_.Complete(HostPid(), HostTid(api.tid[i], 0), s, e - s, m_.strings.Get(api.name[i]),
                    api.domain[i] == ApiDomain::kDriver ? "cuda_driver" : "cuda_runtime", &args);
      ++stats_->api_calls;
    }
    for (auto& [tid, c] : clippers) stats_->host_slices_clipped += c.clipped();
  }

  void WriteNvtx() {
    std::vector<int32_t> order;
    int64_t open_end = std::max(w_.end_ns, WholeTraceWindow(m_).end_ns);
    auto end_of = [&](const NvtxRange& r) { return std::max(r.start_ns, r.end_ns.value_or(open_end)); };
    for (size_t i = 0; i < m_.nvtx_ranges.size(); ++i) {
      const NvtxRange& r = m_.nvtx_ranges[i];
      if (InWindow(r.start_ns, end_of(r), w_)) order.push_back(static_cast<int32_t>(i));
    }
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      const NvtxRange& x = m_.nvtx_ranges[a];
      const NvtxRange& y = m_.nvtx_ranges[b];
      if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
      return end_of(x) > end_of(y);
    });
    absl::flat_hash_map<int64_t, NestingClipper> clippers;
    absl::flat_hash_map<int64_t, LaneAssigner> lanes;
    TraceEventArgs args;
    for (int32_t i : order) {
      const NvtxRange& r = m_.nvtx_ranges[i];
      int64_t s = r.start_ns, e = end_of(r), tid;
      if (r.push_pop) {
        NestingClipper& clip = clippers[r.tid];
        e = clip.Place(s, e);
        tid = HostTid(r.tid, 1);
      } else {
        tid = HostTid(r.tid, 2 + lanes[r.tid].Place(s, e));
      }
      args.Clear();
      args.Int("source_id", r.source_id).Int("depth", r.depth);
      args.Str("domain", r.domain == kNoString ? "default" : m_.strings.Get(r.domain));
      if (!r.end_ns) args.Bool("open_at_capture_end", true);
      if (r.end_ns && e != *r.end_ns) args.Int("recorded_end_clipped_by_ns", *r.end_ns - e);
      out_.Complete(HostPid(), tid, s, e - s, m_.strings.Get(r.name), "nvtx", &args);
      ++stats_->nvtx_ranges;
    }
    for (auto& [tid, c] : clippers) stats_->host_slices_clipped += c.clipped();
    for (const NvtxMark& mark : m_.nvtx_marks) {
      if (!InWindow(mark.ts_ns, mark.ts_ns, w_)) continue;
      args.Clear();
      args.Str("domain", mark.domain == kNoString ? "default" : m_.strings.Get(mark.domain));
      out_.Instant(HostPid(), HostTid(mark.tid, 1), mark.ts_ns, m_.strings.Get(mark.name), "nvtx_mark", &args);
      ++stats_->nvtx_marks;
    }
  }

  void WriteAnalysis(const AnalysisTracks& tracks) {
    int64_t k = 0;
    TraceEventArgs args;
    for (const AnalysisTrack& t : tracks.tracks) {
      if (t.slices.empty() && t.markers.empty()) continue;
      int64_t pid = t.device_id >= 0 ? DevicePid(t.device_id) : HostPid();
      int64_t tid = t.device_id >= 0 ? next_device_tid_++ : kSyntheticTidBase + next_host_tid_++;
      out_.ThreadName(pid, tid, t.name);
      out_.ThreadSortIndex(pid, tid, kAnalysisSortBase + k++);
      for (const AnalysisSlice& s : t.slices) {
        args.Clear();
        if (!s.cause.empty()) args.Str("cause", s.cause);
        for (auto& [key, v] : s.args.items()) args.Json(key, v);
        out_.Complete(pid, tid, s.start_ns, s.end_ns - s.start_ns, s.name, t.group, &args, GapCauseColor(s.cause));
        ++stats_->analysis_slices;
      }
      for (const AnalysisMarker& mk : t.markers) {
        args.Clear();
        args.Str("explanation", mk.explanation);
        if (mk.end_ns > mk.ts_ns) args.Int("duration_ns", mk.end_ns - mk.ts_ns);
        for (auto& [key, v] : mk.args.items()) args.Json(key, v);
        int64_t mtid = mk.host_tid >= 0 && t.device_id < 0 ? HostTid(mk.host_tid, 0) : tid;
        out_.Instant(pid, mtid, mk.ts_ns, mk.name, t.group, &args, "bad");
        ++stats_->analysis_markers;
      }
    }
  }

  const PerfettoTraceInput& in_;
  const TraceModel& m_;
  Window w_;
  int index_, count_;
  const PerfettoExportOptions& options_;
  TraceEventWriter& out_;
  PerfettoExportStats* stats_;
  KernelNames names_;
  std::vector<int64_t> stream_rank_;
  std::vector<LaneAssigner> lanes_;
  std::vector<std::vector<int64_t>> lane_tids_;
  int64_t next_device_tid_ = 1;
  int64_t next_host_tid_ = 0;
  absl::flat_hash_map<std::pair<int64_t, int>, int64_t> host_tids_;
  absl::flat_hash_map<int64_t, int64_t> thread_rank_;
};

// The earliest time any exported item starts (ops, API calls, NVTX ranges
// that begin before the window), so every ts is >= 0.
int64_t BaseTime(std::span<const PerfettoTraceInput> traces) {
  int64_t base = INT64_MAX;
  for (const PerfettoTraceInput& t : traces) {
    base = std::min(base, t.window.start_ns);
    const TraceModel& m = *t.model;
    auto [first, last] = m.OpRangeFor(t.window.start_ns, t.window.end_ns + 1);
    if (first < last) base = std::min(base, m.ops.start_ns[first]);
    if (m.api.size() > 0) {
      // API calls overlapping the window start may begin earlier.
      for (size_t i = 0; i < m.api.size() && m.api.start_ns[i] < t.window.start_ns; ++i) {
        if (m.api.end_ns[i] >= t.window.start_ns) base = std::min(base, m.api.start_ns[i]);
      }
    }
    for (const NvtxRange& r : m.nvtx_ranges) {
      if (r.start_ns >= t.window.start_ns) break;  // sorted by start
      if (!r.end_ns || *r.end_ns >= t.window.start_ns) base = std::min(base, r.start_ns);
    }
  }
  return base == INT64_MAX ? 0 : base;
}

}  // namespace

absl::Status WritePerfettoJson(std::span<const PerfettoTraceInput> traces, const PerfettoExportOptions& options,
                               OutputFile* out, PerfettoExportStats* stats) {
  PerfettoExportStats local;
  if (stats == nullptr) stats = &local;
  *stats = PerfettoExportStats{};
  stats->ts_base_ns = BaseTime(traces);
  TraceEventWriter writer(out, stats->ts_base_ns);
  writer.Begin();
  nlohmann::json trace_info = nlohmann::json::array();
  for (size_t i = 0; i < traces.size(); ++i) {
    TraceExporter(traces[i], static_cast<int>(i), static_cast<int>(traces.size()), options, writer, stats).Run();
    const PerfettoTraceInput& t = traces[i];
    nlohmann::json info = {{"path", t.model->path},           {"label", t.label},
                           {"format", t.model->format},       {"pid", t.model->pid},
                           {"window", t.window.label},        {"window_start_ns", t.window.start_ns},
                           {"window_end_ns", t.window.end_ns}};
    if (t.analysis != nullptr) {
      info["analyses"] = t.analysis->analyses;
      info["analysis_notes"] = t.analysis->notes;
    }
    trace_info.push_back(std::move(info));
  }
  if (stats->ops_on_overflow_tracks > 0) {
    stats->notes.push_back(absl::StrCat(stats->ops_on_overflow_tracks,
                                        " ops started before the previous op of their stream ended (clock jitter or "
                                        "concurrent work on one stream) and are shown on \"overflow\" tracks"));
  }
  if (stats->host_slices_clipped > 0) {
    stats->notes.push_back(
        absl::StrCat(stats->host_slices_clipped,
                     " API calls or NVTX ranges ended after the enclosing call/range on their thread and "
                     "were clipped to it (args.recorded_end_clipped_by_ns)"));
  }
  nlohmann::json other = {
      {"generator", "streamscope export"},
      {"ts_base_ns", stats->ts_base_ns},
      {"time_unit", "ts and dur are microseconds (3 decimals = ns) after ts_base_ns"},
      {"traces", trace_info},
      {"ops", stats->ops},
      {"api_calls", stats->api_calls},
      {"nvtx_ranges", stats->nvtx_ranges},
      {"flows", stats->flows},
      {"ops_on_overflow_tracks", stats->ops_on_overflow_tracks},
      {"host_slices_clipped", stats->host_slices_clipped},
      {"notes", stats->notes},
  };
  nlohmann::json by_cat = nlohmann::json::object();
  for (int c = 0; c < kNumOpCategories; ++c) {
    by_cat[std::string(OpCategoryName(static_cast<OpCategory>(c)))] = stats->ops_by_category[c];
  }
  other["ops_by_category"] = by_cat;
  absl::Status st = writer.Finish(other);
  stats->events = writer.events();
  stats->bytes = out->bytes_written();
  return st;
}

}  // namespace streamscope
