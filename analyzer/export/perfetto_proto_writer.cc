#include "analyzer/export/perfetto_proto_writer.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "analyzer/export/perfetto_proto_sink.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/timeline_traversal.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {
namespace {

// Annotation keys, interned once.
struct Keys {
  explicit Keys(PerfettoProtoSink& s)
      : source_id(s.AnnotationName("source_id")),
        correlation_id(s.AnnotationName("correlation_id")),
        grid(s.AnnotationName("grid")),
        block(s.AnnotationName("block")),
        registers(s.AnnotationName("registers")),
        shared_bytes(s.AnnotationName("shared_bytes")),
        mangled_name(s.AnnotationName("mangled_name")),
        bytes(s.AnnotationName("bytes")),
        src_kind(s.AnnotationName("src_kind")),
        dst_kind(s.AnnotationName("dst_kind")),
        async(s.AnnotationName("async")),
        peer_device(s.AnnotationName("peer_device")),
        graph_id(s.AnnotationName("graph_id")),
        api_source_id(s.AnnotationName("api_source_id")),
        overlaps(s.AnnotationName("overlaps_previous_op_on_stream")),
        cbid(s.AnnotationName("cbid")),
        return_value(s.AnnotationName("return_value")),
        domain(s.AnnotationName("domain")),
        clipped(s.AnnotationName("recorded_end_clipped_by_ns")),
        depth(s.AnnotationName("depth")),
        open_at_end(s.AnnotationName("open_at_capture_end")),
        cause(s.AnnotationName("cause")),
        explanation(s.AnnotationName("explanation")),
        duration_ns(s.AnnotationName("duration_ns")) {}
  uint64_t source_id, correlation_id, grid, block, registers, shared_bytes, mangled_name, bytes, src_kind, dst_kind,
      async, peer_device, graph_id, api_source_id, overlaps, cbid, return_value, domain, clipped, depth, open_at_end,
      cause, explanation, duration_ns;
};

// Analysis args whose string values repeat (interned), and args that only
// restate the slice (left out: the JSON has them).
const absl::flat_hash_set<std::string_view> kRepeatingArgs = {"pair", "cause", "direction", "on"};
bool RepeatsTheSlice(std::string_view key, const nlohmann::json& v, const AnalysisSlice& s) {
  if (key == "cause") return !s.cause.empty();  // written once, from s.cause
  // A critical-path segment's kind: its name starts with it.
  if (key == "segment") return v.is_string() && s.name.starts_with(v.get_ref<const std::string&>());
  if (key == "length_ns") return v.is_number_integer() && v.get<int64_t>() == s.end_ns - s.start_ns;
  if (key == "pair") return v.is_string() && v.get_ref<const std::string&>() == s.name;
  if (key == "ops_total") {  // overlaps: the length of "ops" unless that list was cut short
    auto ops = s.args.find("ops");
    return v.is_number_integer() && ops != s.args.end() && ops->is_array() &&
           v.get<int64_t>() == static_cast<int64_t>(ops->size());
  }
  return false;
}
// The slice's cause, unless its name already says it ("gap: <cause>",
// "<cause>: <name>", "<cause>").
bool CauseInName(const AnalysisSlice& s) {
  std::string_view name = s.name, cause = s.cause;
  if (name == cause) return true;
  if (name.starts_with("gap: ") && name.substr(5) == cause) return true;
  return name.size() > cause.size() + 1 && name.starts_with(cause) && name.substr(cause.size(), 2) == ": ";
}

// "copy 7 (stream 13)", "kernel 2", "copy 9 (no stream)" (an op citation,
// render/op_ref.h: kind, the row id in its source table, the stream) ->
// {"memcpy", 7}: the stream is the slice's own track.
std::optional<PerfettoProtoSink::OpReference> ParseOpRef(const nlohmann::json& v) {
  if (!v.is_string()) return std::nullopt;
  std::string_view text = v.get_ref<const std::string&>();
  size_t space = text.find(' ');
  if (space == std::string_view::npos || space + 1 == text.size()) return std::nullopt;
  std::string_view kind = text.substr(0, space);
  std::string_view table;
  for (int c = 0; c < kNumOpCategories; ++c) {
    if (kind == OpKind(static_cast<OpCategory>(c))) table = OpTable(static_cast<OpCategory>(c));
  }
  if (table.empty()) return std::nullopt;
  std::string_view rest = text.substr(space + 1);
  size_t digits = rest.find_first_not_of("0123456789");
  std::string_view number = rest.substr(0, digits);
  if (number.empty() || number.size() > 18) return std::nullopt;
  if (digits != std::string_view::npos) {
    std::string_view tail = rest.substr(digits);
    if (!(tail.starts_with(" (stream ") || tail == " (no stream)") || !tail.ends_with(")")) return std::nullopt;
  }
  int64_t id = 0;
  for (char ch : number) id = id * 10 + (ch - '0');
  return PerfettoProtoSink::OpReference{table, id};
}

// "call 6 cudaMemcpyAsync (thread 1)" (a call citation, render/op_ref.h
// CallRef: the row id in the api_call table, the function, the thread) ->
// {"api_call", 6}: the call's own slice has its name and thread.
std::optional<PerfettoProtoSink::OpReference> ParseCallRef(const nlohmann::json& v) {
  if (!v.is_string()) return std::nullopt;
  std::string_view text = v.get_ref<const std::string&>();
  if (!text.starts_with("call ") || !text.ends_with(")")) return std::nullopt;
  std::string_view rest = text.substr(5);
  size_t digits = rest.find_first_not_of("0123456789");
  if (digits == 0 || digits == std::string_view::npos || digits > 18 || rest[digits] != ' ') return std::nullopt;
  if (rest.find(" (thread ", digits) == std::string_view::npos) return std::nullopt;
  int64_t id = 0;
  for (char ch : rest.substr(0, digits)) id = id * 10 + (ch - '0');
  return PerfettoProtoSink::OpReference{"api_call", id};
}

// Writes an analysis arg that is an op or call reference or a list of op
// references as dicts; false if it is something else.
bool WriteOpRefs(PerfettoProtoSink& out, std::string_view key, const nlohmann::json& v) {
  if (auto ref = ParseOpRef(v)) {
    out.OpRef(out.AnnotationName(key), *ref);
    return true;
  }
  if (auto ref = ParseCallRef(v)) {
    out.OpRef(out.AnnotationName(key), *ref);
    return true;
  }
  if (!v.is_array() || v.empty()) return false;
  std::vector<PerfettoProtoSink::OpReference> refs;
  for (const nlohmann::json& x : v) {
    auto ref = ParseOpRef(x);
    if (!ref) return false;
    refs.push_back(*ref);
  }
  out.OpRefs(out.AnnotationName(key), refs);
  return true;
}

class ProtoTraceExporter {
 public:
  ProtoTraceExporter(const PerfettoTraceInput& in, int trace_index, int trace_count,
                     const PerfettoExportOptions& options, PerfettoProtoSink& sink, const Keys& keys,
                     PerfettoExportStats* stats)
      : t_(in, trace_index, trace_count),
        m_(*in.model),
        w_(in.window),
        index_(trace_index),
        options_(options),
        out_(sink),
        k_(keys),
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
    host_uuid_ = out_.ProcessTrack(HostPid(), t_.HostProcessName());
    for (int32_t d : m_.op_devices) device_uuid_[d] = out_.ProcessTrack(DevicePid(d), t_.DeviceProcessName(d));
    lane_tracks_.resize(m_.streams.size());
  }

  uint64_t DeviceUuid(int32_t device_id) {
    auto it = device_uuid_.find(device_id);
    if (it != device_uuid_.end()) return it->second;
    uint64_t uuid = out_.ProcessTrack(DevicePid(device_id), t_.DeviceProcessName(device_id));
    device_uuid_[device_id] = uuid;
    return uuid;
  }

  // Track of (stream, lane), described on first use.
  uint64_t StreamTrack(int32_t stream, int lane) {
    std::vector<uint64_t>& tracks = lane_tracks_[stream];
    while (tracks.size() <= static_cast<size_t>(lane)) {
      int l = static_cast<int>(tracks.size());
      int32_t device = m_.streams[stream].device_id;
      std::string name = t_.StreamTrackName(stream, l);
      tracks.push_back(out_.ThreadTrack(DeviceUuid(device), DevicePid(device), t_.NextDeviceTid(), name));
    }
    return tracks[lane];
  }

  // Host tracks (TimelineTraversal::HostThreadId), described on first use.
  uint64_t HostTrack(int64_t tid, int kind) {
    auto key = std::make_pair(tid, kind);
    auto it = host_tracks_.find(key);
    if (it != host_tracks_.end()) return it->second;
    int64_t id = t_.HostThreadId(tid, kind);
    uint64_t uuid = out_.ThreadTrack(host_uuid_, HostPid(), id, t_.HostThreadName(tid, kind));
    host_tracks_[key] = uuid;
    return uuid;
  }

  // Event-name iids per StringId: kernel names demangled, others as recorded.
  uint64_t KernelNameIid(StringId id) {
    if (id < 0) return out_.EventName("kernel");
    if (static_cast<size_t>(id) >= kernel_iids_.size()) kernel_iids_.resize(m_.strings.size() + 1, 0);
    uint64_t& iid = kernel_iids_[id];
    if (iid == 0) iid = out_.EventName(names_.Get(id));
    return iid;
  }
  uint64_t RawNameIid(StringId id) {
    if (id < 0) return out_.EventName("");
    if (static_cast<size_t>(id) >= raw_iids_.size()) raw_iids_.resize(m_.strings.size() + 1, 0);
    uint64_t& iid = raw_iids_[id];
    if (iid == 0) iid = out_.EventName(m_.strings.Get(id));
    return iid;
  }

  static uint64_t FlowId(int trace_index, size_t op) { return (static_cast<uint64_t>(trace_index) << 40) + op + 1; }

  void WriteOps() {
    const GpuOps& ops = m_.ops;
    bool shapes = m_.kernel_shapes.size() == ops.size();
    uint64_t category_iids[kNumOpCategories];
    uint64_t copy_name_iids[kNumOpCategories];
    for (int c = 0; c < kNumOpCategories; ++c) {
      auto cat = static_cast<OpCategory>(c);
      category_iids[c] = out_.Category(OpCategoryName(cat));
      copy_name_iids[c] =
          out_.EventName(cat == OpCategory::kMemset ? std::string("memset")
                                                    : absl::StrCat("memcpy ", std::string(OpCategoryName(cat))));
    }
    t_.ForEachOp([&](size_t i, int32_t stream, int lane) __attribute__((always_inline)) {
      int64_t s = ops.start_ns[i], e = ops.end_ns[i];
      uint64_t track = StreamTrack(stream, lane);
      OpCategory c = ops.category[i];
      int ci = static_cast<int>(c);
      uint64_t name = c == OpCategory::kKernel ? KernelNameIid(ops.name[i]) : copy_name_iids[ci];
      int32_t api = m_.ApiForOp(i);
      bool flow =
          options_.flows && options_.api_calls && api >= 0 && InWindow(m_.api.start_ns[api], m_.api.end_ns[api], w_);
      // Args the JSON has but the file already says are left out (size):
      // table (from the category), stream (the track), api_source_id and
      // queue_delay_ns (the flow leads to the call, with its id and times).
      out_.StartSlice(track, s, e, name, category_iids[ci]);
      out_.Int(k_.source_id, ops.source_id[i]);
      out_.Correlation(ops.correlation_id[i]);
      if (c == OpCategory::kKernel) {
        if (shapes) {
          const KernelShape& ks = m_.kernel_shapes[i];
          // "x,y,z" strings (an array of three ints takes 17 bytes); block
          // shapes repeat (interned: 7 bytes), grids follow the data (inline).
          out_.Str(k_.grid, absl::StrCat(ks.grid[0], ",", ks.grid[1], ",", ks.grid[2]));
          out_.InternedStr(k_.block, absl::StrCat(ks.block[0], ",", ks.block[1], ",", ks.block[2]));
          out_.Int(k_.registers, ks.registers);
          out_.Int(k_.shared_bytes, ks.shared_bytes);
        }
        if (ops.name[i] != kNoString && names_.Get(ops.name[i]) != m_.strings.Get(ops.name[i])) {
          out_.InternedStr(k_.mangled_name, m_.strings.Get(ops.name[i]));
        }
      } else {
        out_.Int(k_.bytes, ops.bytes[i]);
        if (c != OpCategory::kMemset) out_.InternedStr(k_.src_kind, MemoryKindName(ops.src_kind[i]));
        out_.InternedStr(k_.dst_kind, MemoryKindName(ops.dst_kind[i]));
        out_.Bool(k_.async, ops.is_async[i] != 0);
        if (ops.peer_device[i] >= 0) out_.Int(k_.peer_device, ops.peer_device[i]);
      }
      if (ops.graph_id[i] >= 0) out_.Int(k_.graph_id, ops.graph_id[i]);
      if (api >= 0 && !flow) out_.Int(k_.api_source_id, m_.api.source_id[api]);
      if (lane > 0) out_.Bool(k_.overlaps, true);
      if (flow) {
        uint64_t id = FlowId(index_, i);
        out_.Flow(id);
        api_flows_.emplace_back(api, id);
        ++stats_->flows;
      }
      out_.Commit();
      ++stats_->events;
      ++stats_->ops;
      ++stats_->ops_by_category[ci];
      if (lane > 0) ++stats_->ops_on_overflow_tracks;
    });
    std::sort(api_flows_.begin(), api_flows_.end());
  }

  void WriteApiCalls() {
    const ApiCalls& api = m_.api;
    uint64_t runtime = out_.Category("cuda_runtime"), driver = out_.Category("cuda_driver");
    stats_->host_slices_clipped +=
        t_.ForEachApiCall([&](int32_t i, int64_t s, int64_t e) __attribute__((always_inline)) {
          bool is_driver = api.domain[i] == ApiDomain::kDriver;
          uint64_t track = HostTrack(api.tid[i], 0);
          uint64_t name = RawNameIid(api.name[i]);
          out_.StartSlice(track, s, e, name, is_driver ? driver : runtime);
          out_.Int(k_.source_id, api.source_id[i]);
          out_.Correlation(api.correlation_id[i]);
          // cbid numbers the function the name says; kept only without a name.
          if (api.name[i] == kNoString) out_.Int(k_.cbid, api.cbid[i]);
          // Only errors (the JSON writes 0 too); the domain is the category.
          if (api.return_value[i] != 0) out_.Int(k_.return_value, api.return_value[i]);
          if (e != api.end_ns[i]) out_.Int(k_.clipped, api.end_ns[i] - e);
          auto range = std::equal_range(api_flows_.begin(), api_flows_.end(), std::make_pair(i, uint64_t{0}),
                                        [](const auto& a, const auto& b) { return a.first < b.first; });
          for (auto it = range.first; it != range.second; ++it) out_.Flow(it->second);
          out_.Commit();
          ++stats_->events;
          ++stats_->api_calls;
        });
    api_flows_.clear();
    api_flows_.shrink_to_fit();
  }

  void WriteNvtx() {
    uint64_t nvtx = out_.Category("nvtx"), nvtx_mark = out_.Category("nvtx_mark");
    stats_->host_slices_clipped +=
        t_.ForEachNvtxRange([&](int32_t i, int64_t s, int64_t e, int kind) __attribute__((always_inline)) {
          const NvtxRange& r = m_.nvtx_ranges[i];
          uint64_t track = HostTrack(r.tid, kind);
          std::string_view domain = r.domain == kNoString ? "default" : m_.strings.Get(r.domain);
          uint64_t name = RawNameIid(r.name);
          out_.StartSlice(track, s, e, name, nvtx);
          out_.Int(k_.source_id, r.source_id);
          out_.Int(k_.depth, r.depth);
          out_.InternedStr(k_.domain, domain);
          if (!r.end_ns) out_.Bool(k_.open_at_end, true);
          if (r.end_ns && e != *r.end_ns) out_.Int(k_.clipped, *r.end_ns - e);
          out_.Commit();
          ++stats_->events;
          ++stats_->nvtx_ranges;
        });
    t_.ForEachNvtxMark([&](const NvtxMark& mark) __attribute__((always_inline)) {
      std::string_view domain = mark.domain == kNoString ? "default" : m_.strings.Get(mark.domain);
      uint64_t track = HostTrack(mark.tid, 1);
      uint64_t name = RawNameIid(mark.name);
      out_.StartInstant(track, mark.ts_ns, name, nvtx_mark);
      out_.InternedStr(k_.domain, domain);
      out_.Commit();
      ++stats_->events;
      ++stats_->nvtx_marks;
    });
  }

  void WriteAnalysis() {
    t_.ForEachAnalysisTrack([&](const AnalysisTrack& t) {
      uint64_t parent = t.device_id >= 0 ? DeviceUuid(t.device_id) : host_uuid_;
      int64_t pid = t.device_id >= 0 ? DevicePid(t.device_id) : HostPid();
      int64_t tid = t.device_id >= 0 ? t_.NextDeviceTid() : t_.NextSyntheticHostTid();
      uint64_t track = out_.ThreadTrack(parent, pid, tid, t.name);
      uint64_t group = out_.Category(t.group);
      t.ForEachSlice([&](const AnalysisSlice& s) {
        uint64_t name = out_.EventName(s.name);
        out_.StartSlice(track, s.start_ns, s.end_ns, name, group);
        if (!s.cause.empty() && !CauseInName(s)) out_.InternedStr(k_.cause, s.cause);
        for (auto& [key, v] : s.args.items()) {
          if (RepeatsTheSlice(key, v, s) || WriteOpRefs(out_, key, v)) continue;
          out_.Json(key, v, /*intern=*/kRepeatingArgs.contains(key));
        }
        out_.Commit();
        ++stats_->events;
        ++stats_->analysis_slices;
      });
      for (const AnalysisMarker& mk : t.markers) {
        uint64_t mtrack = mk.host_tid >= 0 && t.device_id < 0 ? HostTrack(mk.host_tid, 0) : track;
        uint64_t name = out_.EventName(mk.name);
        out_.StartInstant(mtrack, mk.ts_ns, name, group);
        out_.Str(k_.explanation, mk.explanation);
        if (mk.end_ns > mk.ts_ns) out_.Int(k_.duration_ns, mk.end_ns - mk.ts_ns);
        for (auto& [key, v] : mk.args.items()) {
          if (!WriteOpRefs(out_, key, v)) out_.Json(key, v);
        }
        out_.Commit();
        ++stats_->events;
        ++stats_->analysis_markers;
      }
    });
  }

  TimelineTraversal t_;
  const TraceModel& m_;
  Window w_;
  int index_;
  const PerfettoExportOptions& options_;
  PerfettoProtoSink& out_;
  const Keys& k_;
  PerfettoExportStats* stats_;
  KernelNames names_;
  uint64_t host_uuid_ = 0;
  absl::flat_hash_map<int32_t, uint64_t> device_uuid_;
  std::vector<std::vector<uint64_t>> lane_tracks_;
  absl::flat_hash_map<std::pair<int64_t, int>, uint64_t> host_tracks_;
  std::vector<uint64_t> kernel_iids_, raw_iids_;
  std::vector<std::pair<int32_t, uint64_t>> api_flows_;  // (API call, flow id), sorted after WriteOps
};

// The JSON's otherData: an instant at time 0 on a global track.
void WriteTraceInfo(std::span<const PerfettoTraceInput> traces, PerfettoProtoSink& sink,
                    const PerfettoExportStats& stats) {
  uint64_t track = sink.NamedTrack(0, "streamscope export info");
  uint64_t name = sink.EventName("streamscope export");
  uint64_t cat = sink.Category("info");
  nlohmann::json info = nlohmann::json::array();
  for (const PerfettoTraceInput& t : traces) info.push_back(TimelineTraceInfo(t));
  nlohmann::json by_cat = nlohmann::json::object();
  for (int c = 0; c < kNumOpCategories; ++c) {
    by_cat[std::string(OpCategoryName(static_cast<OpCategory>(c)))] = stats.ops_by_category[c];
  }
  nlohmann::json fields = {
      {"generator", "streamscope export"},
      {"ts_base_ns", stats.ts_base_ns},
      {"time_unit", "timestamps are nanoseconds after ts_base_ns"},
      {"traces", info},
      {"ops", stats.ops},
      {"ops_by_category", by_cat},
      {"api_calls", stats.api_calls},
      {"nvtx_ranges", stats.nvtx_ranges},
      {"flows", stats.flows},
      {"ops_on_overflow_tracks", stats.ops_on_overflow_tracks},
      {"host_slices_clipped", stats.host_slices_clipped},
      {"notes", stats.notes},
  };
  sink.StartInstant(track, stats.ts_base_ns, name, cat);
  for (auto& [key, v] : fields.items()) sink.Json(key, v);
  sink.Commit();
}

}  // namespace

absl::Status WritePerfettoProto(std::span<const PerfettoTraceInput> traces, const PerfettoExportOptions& options,
                                OutputFile* out, PerfettoExportStats* stats) {
  PerfettoExportStats local;
  if (stats == nullptr) stats = &local;
  *stats = PerfettoExportStats{};
  stats->ts_base_ns = TimelineBaseTime(traces);
  PerfettoProtoSink sink(out, stats->ts_base_ns);
  Keys keys(sink);
  for (size_t i = 0; i < traces.size(); ++i) {
    ProtoTraceExporter(traces[i], static_cast<int>(i), static_cast<int>(traces.size()), options, sink, keys, stats)
        .Run();
  }
  AddTimelineNotes(*stats);
  WriteTraceInfo(traces, sink, *stats);
  ++stats->events;
  absl::Status st = sink.Finish();
  stats->bytes = out->bytes_written();
  return st;
}

}  // namespace streamscope
