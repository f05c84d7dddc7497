#include "analyzer/export/perfetto_json_writer.h"

#include <algorithm>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "analyzer/export/slice_args.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/timeline_traversal.h"
#include "analyzer/export/trace_event_writer.h"
#include "analyzer/model/queue_delay.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {
namespace {

constexpr int64_t kAnalysisSortBase = 1'000'000;

// The trace viewer's reserved colour names, per gap cause.
std::string_view GapCauseColor(std::string_view cause) {
  if (cause == "host_blocked_in_call" || cause == "round_trip" || cause == "sync_wait") return "terrible";
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
      : t_(in, trace_index, trace_count),
        m_(*in.model),
        w_(in.window),
        index_(trace_index),
        options_(options),
        out_(writer),
        stats_(stats),
        names_(m_) {}

  void Run() {
    WriteProcesses();
    WriteOps();
    if (options_.api_calls) WriteApiCalls();
    if (options_.nvtx) WriteNvtx();
    WriteAnalysis();
  }

 private:
  int64_t HostPid() const { return t_.HostPid(); }
  int64_t DevicePid(int32_t device_id) const { return t_.DevicePid(device_id); }

  void WriteProcesses() {
    int64_t host = HostPid();
    out_.ProcessName(host, t_.HostProcessName());
    out_.ProcessSortIndex(host, index_ * 1000);
    for (int32_t d : m_.op_devices) {
      out_.ProcessName(DevicePid(d), t_.DeviceProcessName(d));
      out_.ProcessSortIndex(DevicePid(d), index_ * 1000 + 1 + d);
    }
    // Stream order on screen: by source id.
    std::vector<int32_t> order(m_.streams.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return m_.streams[a].id < m_.streams[b].id; });
    stream_rank_.assign(m_.streams.size(), 0);
    for (size_t r = 0; r < order.size(); ++r) stream_rank_[order[r]] = static_cast<int64_t>(r);
    lane_tids_.resize(m_.streams.size());
  }

  // Track of (stream, lane), named on first use.
  int64_t StreamTid(int32_t stream, int lane) {
    std::vector<int64_t>& tids = lane_tids_[stream];
    while (tids.size() <= static_cast<size_t>(lane)) {
      int64_t tid = t_.NextDeviceTid();
      int l = static_cast<int>(tids.size());
      tids.push_back(tid);
      int64_t pid = DevicePid(m_.streams[stream].device_id);
      out_.ThreadName(pid, tid, t_.StreamTrackName(stream, l));
      out_.ThreadSortIndex(pid, tid, stream_rank_[stream] * 64 + std::min(l, 63));
    }
    return tids[lane];
  }

  // Host track ids (TimelineTraversal::HostThreadId), named on first use.
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
    int64_t id = t_.HostThreadId(tid, kind);
    host_tids_[key] = id;
    out_.ThreadName(HostPid(), id, t_.HostThreadName(tid, kind));
    out_.ThreadSortIndex(HostPid(), id, rank * 64 + std::min(kind, 63));
    return id;
  }

  void WriteOps() {
    const GpuOps& ops = m_.ops;
    bool shapes = m_.kernel_shapes.size() == ops.size();
    TraceEventArgs args;
    t_.ForEachOp([&](size_t i, int32_t stream, int lane) {
      int64_t s = ops.start_ns[i], e = ops.end_ns[i];
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
        args.Int("queue_delay_ns", QueueDelayNs(s, m_.api.end_ns[api]));
        if (StartedDuringCall(s, m_.api.end_ns[api])) args.Bool("started_during_call", true);
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
    });
  }

  void WriteApiCalls() {
    const ApiCalls& api = m_.api;
    TraceEventArgs args;
    stats_->host_slices_clipped += t_.ForEachApiCall([&](int32_t i, int64_t s, int64_t e) {
      args.Clear();
      args.Int("source_id", api.source_id[i]).Int("correlation_id", api.correlation_id[i]);
      args.Int("cbid", api.cbid[i]).Int("return_value", api.return_value[i]);
      args.Str("domain", api.domain[i] == ApiDomain::kDriver ? "driver" : "runtime");
      if (e != api.end_ns[i]) args.Int("recorded_end_clipped_by_ns", api.end_ns[i] - e);
      out_.Complete(HostPid(), HostTid(api.tid[i], 0), s, e - s, m_.strings.Get(api.name[i]),
                    api.domain[i] == ApiDomain::kDriver ? "cuda_driver" : "cuda_runtime", &args);
      ++stats_->api_calls;
    });
  }

  void WriteNvtx() {
    TraceEventArgs args;
    stats_->host_slices_clipped += t_.ForEachNvtxRange([&](int32_t i, int64_t s, int64_t e, int kind) {
      const NvtxRange& r = m_.nvtx_ranges[i];
      int64_t tid = HostTid(r.tid, kind);
      args.Clear();
      args.Int("source_id", r.source_id).Int("depth", r.depth);
      args.Str("domain", r.domain == kNoString ? "default" : m_.strings.Get(r.domain));
      if (!r.end_ns) args.Bool("open_at_capture_end", true);
      if (r.end_ns && e != *r.end_ns) args.Int("recorded_end_clipped_by_ns", *r.end_ns - e);
      out_.Complete(HostPid(), tid, s, e - s, m_.strings.Get(r.name), "nvtx", &args);
      ++stats_->nvtx_ranges;
    });
    t_.ForEachNvtxMark([&](const NvtxMark& mark) {
      args.Clear();
      args.Str("domain", mark.domain == kNoString ? "default" : m_.strings.Get(mark.domain));
      out_.Instant(HostPid(), HostTid(mark.tid, 1), mark.ts_ns, m_.strings.Get(mark.name), "nvtx_mark", &args);
      ++stats_->nvtx_marks;
    });
  }

  void WriteAnalysis() {
    int64_t k = 0;
    TraceEventArgs args;
    t_.ForEachAnalysisTrack([&](const AnalysisTrack& t) {
      int64_t pid = t.device_id >= 0 ? DevicePid(t.device_id) : HostPid();
      int64_t tid = t.device_id >= 0 ? t_.NextDeviceTid() : t_.NextSyntheticHostTid();
      out_.ThreadName(pid, tid, t.name);
      out_.ThreadSortIndex(pid, tid, kAnalysisSortBase + k++);
      t.ForEachSlice([&](const AnalysisSlice& s) {
        args.Clear();
        if (!s.cause.empty()) args.Str("cause", s.cause);
        if (s.typed_args.empty()) {
          for (auto& [key, v] : s.args.items()) args.Json(key, v);
        } else {
          const nlohmann::json all = SliceArgsJson(m_, s);
          for (auto& [key, v] : all.items()) args.Json(key, v);
        }
        out_.Complete(pid, tid, s.start_ns, s.end_ns - s.start_ns, s.name, t.group, &args, GapCauseColor(s.cause));
        ++stats_->analysis_slices;
      });
      for (const AnalysisMarker& mk : t.markers) {
        args.Clear();
        args.Str("explanation", mk.explanation);
        if (mk.end_ns > mk.ts_ns) args.Int("duration_ns", mk.end_ns - mk.ts_ns);
        for (auto& [key, v] : mk.args.items()) args.Json(key, v);
        int64_t mtid = mk.host_tid >= 0 && t.device_id < 0 ? HostTid(mk.host_tid, 0) : tid;
        out_.Instant(pid, mtid, mk.ts_ns, mk.name, t.group, &args, "bad");
        ++stats_->analysis_markers;
      }
    });
  }

  TimelineTraversal t_;
  const TraceModel& m_;
  Window w_;
  int index_;
  const PerfettoExportOptions& options_;
  TraceEventWriter& out_;
  PerfettoExportStats* stats_;
  KernelNames names_;
  std::vector<int64_t> stream_rank_;
  std::vector<std::vector<int64_t>> lane_tids_;
  absl::flat_hash_map<std::pair<int64_t, int>, int64_t> host_tids_;
  absl::flat_hash_map<int64_t, int64_t> thread_rank_;
};

}  // namespace

absl::Status WritePerfettoJson(std::span<const PerfettoTraceInput> traces, const PerfettoExportOptions& options,
                               OutputFile* out, PerfettoExportStats* stats) {
  PerfettoExportStats local;
  if (stats == nullptr) stats = &local;
  *stats = PerfettoExportStats{};
  if (options.await_analyses) {
    if (absl::Status s = options.await_analyses(); !s.ok()) return s;
  }
  stats->ts_base_ns = TimelineBaseTime(traces);
  TraceEventWriter writer(out, stats->ts_base_ns);
  writer.Begin();
  nlohmann::json trace_info = nlohmann::json::array();
  for (size_t i = 0; i < traces.size(); ++i) {
    TraceExporter(traces[i], static_cast<int>(i), static_cast<int>(traces.size()), options, writer, stats).Run();
    trace_info.push_back(TimelineTraceInfo(traces[i]));
  }
  AddTimelineNotes(*stats);
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
