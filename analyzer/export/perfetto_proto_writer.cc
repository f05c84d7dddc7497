#include "analyzer/export/perfetto_proto_writer.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <numeric>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "analyzer/base/threads.h"
#include "analyzer/export/perfetto_proto_sink.h"
#include "analyzer/export/slice_args.h"
#include "analyzer/export/spill_buffer.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/timeline_traversal.h"
#include "analyzer/pipeline/phase_timer.h"
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
// The rules, on an arg's integer or text value (null: it is not one).
bool RepeatsTheSlice(std::string_view key, const int64_t* number, const std::string* text, const AnalysisSlice& s) {
  if (key == "cause") return !s.cause.empty();  // written once, from s.cause
  // A critical-path segment's kind: its name starts with it.
  if (key == "segment") return text != nullptr && s.name.starts_with(*text);
  if (key == "length_ns") return number != nullptr && *number == s.end_ns - s.start_ns;
  if (key == "pair") return text != nullptr && *text == s.name;
  if (key == "ops_total") {  // overlaps: the length of "ops" unless that list was cut short
    auto ops = s.args.find("ops");
    return number != nullptr && ops != s.args.end() && ops->is_array() && *number == static_cast<int64_t>(ops->size());
  }
  return false;
}
bool RepeatsTheSlice(std::string_view key, const nlohmann::json& v, const AnalysisSlice& s) {
  const int64_t number = v.is_number_integer() ? v.get<int64_t>() : 0;
  return RepeatsTheSlice(key, v.is_number_integer() ? &number : nullptr,
                         v.is_string() ? &v.get_ref<const std::string&>() : nullptr, s);
}
bool RepeatsTheSlice(const SliceArg& a, const AnalysisSlice& s) {
  return RepeatsTheSlice(a.key, a.type == SliceArg::Type::kInt ? &a.value : nullptr,
                         a.type == SliceArg::Type::kText ? &a.text : nullptr, s);
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

// One part of the file: a sink with its own ids and interning, its output
// and its counts. Parts are written at once on several threads and joined
// in part order (WritePerfettoProto).
struct Part {
  Part(ByteOutput* out, int64_t ts_base_ns, PerfettoProtoSink::Ids ids) : sink(out, ts_base_ns, ids), keys(sink) {}
  PerfettoProtoSink sink;
  Keys keys;
  PerfettoExportStats stats;
};

// The ids of a part. Trace t of `traces` has five kinds of part (k):
// processes 0, ops 1, host 2, analysis 3 and the slice tracks' 4 (one part
// per track, `slice` numbers them, of `slices`). Sequence ids interleave,
// each (trace, kind) taking every (5 * traces)-th id, so that every part's
// first sequences have small ids; the slice parts of a trace share their
// kind's ids, every `slices`-th each.
PerfettoProtoSink::Ids PartIds(uint32_t traces, uint32_t t, uint32_t k, uint32_t slice = 0, uint32_t slices = 1) {
  const uint32_t stride = 5 * traces;
  const uint32_t first = 1 + 5 * t + k;  // the (trace, kind)'s first id
  PerfettoProtoSink::Ids ids;
  ids.first_uuid = 1 + ((uint64_t{5 * t + k} << 36) | (uint64_t{slice} << 24));
  if (k < 4) {
    ids.descriptor_sequence = first;
    ids.first_sequence = first + stride;
    ids.sequence_stride = stride;
  } else {
    ids.descriptor_sequence = 0;  // slice parts describe no track
    ids.first_sequence = first + stride * slice;
    ids.sequence_stride = stride * slices;
  }
  return ids;
}

// Adds a part's counts to the file's.
void AddCounts(const PerfettoExportStats& part, PerfettoExportStats* total) {
  total->events += part.events;
  total->ops += part.ops;
  total->api_calls += part.api_calls;
  total->nvtx_ranges += part.nvtx_ranges;
  total->nvtx_marks += part.nvtx_marks;
  total->flows += part.flows;
  total->analysis_slices += part.analysis_slices;
  total->analysis_markers += part.analysis_markers;
  for (int c = 0; c < kNumOpCategories; ++c) total->ops_by_category[c] += part.ops_by_category[c];
  total->ops_on_overflow_tracks += part.ops_on_overflow_tracks;
  total->host_slices_clipped += part.host_slices_clipped;
}

// One trace's tracks, written in parts that can run at once:
//   WriteProcesses  the process tracks (before the others start);
//   WriteOps        the streams' tracks: ops and their flows;
//   WriteHost       the host threads' tracks: API calls and NVTX;
//   WriteAnalysis   the analysis tracks' descriptors and markers (after
//                   WriteOps and WriteHost, whose track numbering it
//                   continues), and WriteAnalysisSlices each slice track's
//                   slices (at any time: on a track reserved beforehand).
// What the parts share is set before they start and read-only while they
// run; each part has its own traversal state.
class ProtoTraceExporter {
 public:
  ProtoTraceExporter(const PerfettoTraceInput& in, int trace_index, int trace_count,
                     const PerfettoExportOptions& options)
      : m_(*in.model),
        w_(in.window),
        index_(trace_index),
        options_(options),
        ops_walk_(in, trace_index, trace_count),
        host_walk_(in, trace_index, trace_count),
        names_(m_) {}

  void WriteProcesses(Part& part) {
    host_uuid_ = part.sink.ProcessTrack(HostPid(), ops_walk_.HostProcessName());
    for (int32_t d : m_.op_devices) DeviceUuid(part, d);
    lane_tracks_.resize(m_.streams.size());
    FindFlows();
  }

  void WriteOps(Part& part) {
    const GpuOps& ops = m_.ops;
    PerfettoProtoSink& out = part.sink;
    const Keys& k = part.keys;
    PerfettoExportStats& stats = part.stats;
    bool shapes = m_.kernel_shapes.size() == ops.size();
    uint64_t category_iids[kNumOpCategories];
    uint64_t copy_name_iids[kNumOpCategories];
    for (int c = 0; c < kNumOpCategories; ++c) {
      auto cat = static_cast<OpCategory>(c);
      category_iids[c] = out.Category(OpCategoryName(cat));
      copy_name_iids[c] =
          out.EventName(cat == OpCategory::kMemset ? std::string("memset")
                                                   : absl::StrCat("memcpy ", std::string(OpCategoryName(cat))));
    }
    ops_walk_.ForEachOp([&](size_t i, int32_t stream, int lane) __attribute__((always_inline)) {
      int64_t s = ops.start_ns[i], e = ops.end_ns[i];
      uint64_t track = StreamTrack(part, stream, lane);
      OpCategory c = ops.category[i];
      int ci = static_cast<int>(c);
      uint64_t name = c == OpCategory::kKernel ? KernelNameIid(part, ops.name[i]) : copy_name_iids[ci];
      int32_t api = m_.ApiForOp(i);
      bool flow = HasFlow(api);
      // Args the JSON has but the file already says are left out (size):
      // table (from the category), stream (the track), api_source_id and
      // queue_delay_ns (the flow leads to the call, with its id and times).
      out.StartSlice(track, s, e, name, category_iids[ci]);
      out.Int(k.source_id, ops.source_id[i]);
      out.Correlation(ops.correlation_id[i]);
      if (c == OpCategory::kKernel) {
        if (shapes) {
          const KernelShape& ks = m_.kernel_shapes[i];
          // "x,y,z" strings (an array of three ints takes 17 bytes); block
          // shapes repeat (interned: 7 bytes), grids follow the data (inline).
          out.Str(k.grid, absl::StrCat(ks.grid[0], ",", ks.grid[1], ",", ks.grid[2]));
          out.InternedStr(k.block, absl::StrCat(ks.block[0], ",", ks.block[1], ",", ks.block[2]));
          out.Int(k.registers, ks.registers);
          out.Int(k.shared_bytes, ks.shared_bytes);
        }
        if (ops.name[i] != kNoString && names_.Get(ops.name[i]) != m_.strings.Get(ops.name[i])) {
          out.InternedStr(k.mangled_name, m_.strings.Get(ops.name[i]));
        }
      } else {
        out.Int(k.bytes, ops.bytes[i]);
        if (c != OpCategory::kMemset) out.InternedStr(k.src_kind, MemoryKindName(ops.src_kind[i]));
        out.InternedStr(k.dst_kind, MemoryKindName(ops.dst_kind[i]));
        out.Bool(k.async, ops.is_async[i] != 0);
        if (ops.peer_device[i] >= 0) out.Int(k.peer_device, ops.peer_device[i]);
      }
      if (ops.graph_id[i] >= 0) out.Int(k.graph_id, ops.graph_id[i]);
      if (api >= 0 && !flow) out.Int(k.api_source_id, m_.api.source_id[api]);
      if (lane > 0) out.Bool(k.overlaps, true);
      if (flow) {
        out.Flow(FlowId(index_, i));
        ++stats.flows;
      }
      out.Commit();
      ++stats.events;
      ++stats.ops;
      ++stats.ops_by_category[ci];
      if (lane > 0) ++stats.ops_on_overflow_tracks;
    });
  }

  void WriteHost(Part& part) {
    if (options_.api_calls) WriteApiCalls(part);
    if (options_.nvtx) WriteNvtx(part);
  }

  // The analysis tracks whose slices WriteAnalysisSlices writes: those
  // without markers (whose instants may lie on host tracks).
  std::vector<const AnalysisTrack*> SliceTracks() const {
    std::vector<const AnalysisTrack*> tracks;
    host_walk_.ForEachAnalysisTrack([&](const AnalysisTrack& t) {
      if (t.markers.empty()) tracks.push_back(&t);
    });
    return tracks;
  }
  // Reserves the slice tracks' uuids in `part` (which describes them in
  // WriteAnalysis): call before WriteAnalysisSlices.
  void ReserveSliceTracks(Part& part) {
    for (const AnalysisTrack* t : SliceTracks()) slice_track_uuid_[t] = part.sink.ReserveTrack();
  }
  uint64_t SliceTrackUuid(const AnalysisTrack& t) const { return slice_track_uuid_.at(&t); }

  // Run `run` of `runs` of the track's slices (AnalysisTrack::ForEachSlice).
  void WriteAnalysisSlices(Part& part, const AnalysisTrack& t, uint64_t track, int run = 0, int runs = 1) {
    PerfettoProtoSink& out = part.sink;
    const Keys& k = part.keys;
    uint64_t group = out.Category(t.group);
    t.ForEachSlice(
        [&](const AnalysisSlice& s) {
          uint64_t name = out.EventName(s.name);
          out.StartSlice(track, s.start_ns, s.end_ns, name, group);
          if (!s.cause.empty() && !CauseInName(s)) out.InternedStr(k.cause, s.cause);
          for (auto& [key, v] : s.args.items()) {
            if (RepeatsTheSlice(key, v, s) || WriteOpRefs(out, key, v)) continue;
            out.Json(key, v, /*intern=*/kRepeatingArgs.contains(key));
          }
          for (const SliceArg& a : s.typed_args) {
            if (!RepeatsTheSlice(a, s)) WriteTypedArg(out, a);
          }
          out.Commit();
          ++part.stats.events;
          ++part.stats.analysis_slices;
        },
        run, runs);
  }

  // After WriteOps and WriteHost: every analysis track's descriptor, in
  // order, and the markers of those with markers.
  void WriteAnalysis(Part& part) {
    PerfettoProtoSink& out = part.sink;
    const Keys& k = part.keys;
    TimelineTraversal& walk = host_walk_;  // its host tracks' numbering, continued
    walk.ContinueTidsFrom(ops_walk_, host_walk_);
    walk.ForEachAnalysisTrack([&](const AnalysisTrack& t) {
      uint64_t parent = t.device_id >= 0 ? DeviceUuid(part, t.device_id) : host_uuid_;
      int64_t pid = t.device_id >= 0 ? DevicePid(t.device_id) : HostPid();
      int64_t tid = t.device_id >= 0 ? walk.NextDeviceTid() : walk.NextSyntheticHostTid();
      if (t.markers.empty()) {
        out.DescribeThreadTrack(SliceTrackUuid(t), parent, pid, tid, t.name);
        return;
      }
      uint64_t track = out.ThreadTrack(parent, pid, tid, t.name);
      if (t.HasSlices()) WriteAnalysisSlices(part, t, track);
      uint64_t group = out.Category(t.group);
      for (const AnalysisMarker& mk : t.markers) {
        uint64_t mtrack = mk.host_tid >= 0 && t.device_id < 0 ? HostTrack(part, mk.host_tid, 0) : track;
        uint64_t name = out.EventName(mk.name);
        out.StartInstant(mtrack, mk.ts_ns, name, group);
        out.Str(k.explanation, mk.explanation);
        if (mk.end_ns > mk.ts_ns) out.Int(k.duration_ns, mk.end_ns - mk.ts_ns);
        for (auto& [key, v] : mk.args.items()) {
          if (!WriteOpRefs(out, key, v)) out.Json(key, v);
        }
        out.Commit();
        ++part.stats.events;
        ++part.stats.analysis_markers;
      }
    });
  }

 private:
  int64_t HostPid() const { return ops_walk_.HostPid(); }
  int64_t DevicePid(int32_t device_id) const { return ops_walk_.DevicePid(device_id); }

  // Described in WriteProcesses for every device with ops, else on first
  // use (only WriteOps and then WriteAnalysis use it, never at once).
  uint64_t DeviceUuid(Part& part, int32_t device_id) {
    auto it = device_uuid_.find(device_id);
    if (it != device_uuid_.end()) return it->second;
    uint64_t uuid = part.sink.ProcessTrack(DevicePid(device_id), ops_walk_.DeviceProcessName(device_id));
    device_uuid_[device_id] = uuid;
    return uuid;
  }

  // Track of (stream, lane), described on first use.
  uint64_t StreamTrack(Part& part, int32_t stream, int lane) {
    std::vector<uint64_t>& tracks = lane_tracks_[stream];
    while (tracks.size() <= static_cast<size_t>(lane)) {
      int l = static_cast<int>(tracks.size());
      int32_t device = m_.streams[stream].device_id;
      std::string name = ops_walk_.StreamTrackName(stream, l);
      tracks.push_back(
          part.sink.ThreadTrack(DeviceUuid(part, device), DevicePid(device), ops_walk_.NextDeviceTid(), name));
    }
    return tracks[lane];
  }

  // Host tracks (TimelineTraversal::HostThreadId), described on first use.
  uint64_t HostTrack(Part& part, int64_t tid, int kind) {
    auto key = std::make_pair(tid, kind);
    auto it = host_tracks_.find(key);
    if (it != host_tracks_.end()) return it->second;
    int64_t id = host_walk_.HostThreadId(tid, kind);
    uint64_t uuid = part.sink.ThreadTrack(host_uuid_, HostPid(), id, host_walk_.HostThreadName(tid, kind));
    host_tracks_[key] = uuid;
    return uuid;
  }

  // Event-name iids per StringId: kernel names demangled, others as recorded
  // (each table serves one part).
  uint64_t KernelNameIid(Part& part, StringId id) {
    if (id < 0) return part.sink.EventName("kernel");
    if (static_cast<size_t>(id) >= kernel_iids_.size()) kernel_iids_.resize(m_.strings.size() + 1, 0);
    uint64_t& iid = kernel_iids_[id];
    if (iid == 0) iid = part.sink.EventName(names_.Get(id));
    return iid;
  }
  uint64_t RawNameIid(Part& part, StringId id) {
    if (id < 0) return part.sink.EventName("");
    if (static_cast<size_t>(id) >= raw_iids_.size()) raw_iids_.resize(m_.strings.size() + 1, 0);
    uint64_t& iid = raw_iids_[id];
    if (iid == 0) iid = part.sink.EventName(m_.strings.Get(id));
    return iid;
  }

  static uint64_t FlowId(int trace_index, size_t op) { return (static_cast<uint64_t>(trace_index) << 40) + op + 1; }
  bool HasFlow(int32_t api) const {
    return options_.flows && options_.api_calls && api >= 0 && InWindow(m_.api.start_ns[api], m_.api.end_ns[api], w_);
  }

  // The flows from each call to the ops it submitted, by call (so that the
  // host part needs nothing from the ops part).
  void FindFlows() {
    flow_begin_.assign(m_.api.size() + 1, 0);
    ops_walk_.ForEachOpIndex([&](size_t i, int32_t) {
      int32_t api = m_.ApiForOp(i);
      if (HasFlow(api)) ++flow_begin_[api + 1];
    });
    for (size_t a = 0; a < m_.api.size(); ++a) flow_begin_[a + 1] += flow_begin_[a];
    flow_ids_.resize(flow_begin_.back());
    std::vector<uint32_t> next(flow_begin_.begin(), flow_begin_.end() - 1);
    ops_walk_.ForEachOpIndex([&](size_t i, int32_t) {
      int32_t api = m_.ApiForOp(i);
      if (HasFlow(api)) flow_ids_[next[api]++] = FlowId(index_, i);
    });
  }

  void WriteApiCalls(Part& part) {
    const ApiCalls& api = m_.api;
    PerfettoProtoSink& out = part.sink;
    const Keys& k = part.keys;
    uint64_t runtime = out.Category("cuda_runtime"), driver = out.Category("cuda_driver");
    part.stats.host_slices_clipped +=
        host_walk_.ForEachApiCall([&](int32_t i, int64_t s, int64_t e) __attribute__((always_inline)) {
          bool is_driver = api.domain[i] == ApiDomain::kDriver;
          uint64_t track = HostTrack(part, api.tid[i], 0);
          uint64_t name = RawNameIid(part, api.name[i]);
          out.StartSlice(track, s, e, name, is_driver ? driver : runtime);
          out.Int(k.source_id, api.source_id[i]);
          out.Correlation(api.correlation_id[i]);
          // cbid numbers the function the name says; kept only without a name.
          if (api.name[i] == kNoString) out.Int(k.cbid, api.cbid[i]);
          // Only errors (the JSON writes 0 too); the domain is the category.
          if (api.return_value[i] != 0) out.Int(k.return_value, api.return_value[i]);
          if (e != api.end_ns[i]) out.Int(k.clipped, api.end_ns[i] - e);
          for (uint32_t f = flow_begin_[i]; f < flow_begin_[i + 1]; ++f) out.Flow(flow_ids_[f]);
          out.Commit();
          ++part.stats.events;
          ++part.stats.api_calls;
        });
  }

  void WriteNvtx(Part& part) {
    PerfettoProtoSink& out = part.sink;
    const Keys& k = part.keys;
    uint64_t nvtx = out.Category("nvtx"), nvtx_mark = out.Category("nvtx_mark");
    part.stats.host_slices_clipped +=
        host_walk_.ForEachNvtxRange([&](int32_t i, int64_t s, int64_t e, int kind) __attribute__((always_inline)) {
          const NvtxRange& r = m_.nvtx_ranges[i];
          uint64_t track = HostTrack(part, r.tid, kind);
          std::string_view domain = r.domain == kNoString ? "default" : m_.strings.Get(r.domain);
          uint64_t name = RawNameIid(part, r.name);
          out.StartSlice(track, s, e, name, nvtx);
          out.Int(k.source_id, r.source_id);
          out.Int(k.depth, r.depth);
          out.InternedStr(k.domain, domain);
          if (!r.end_ns) out.Bool(k.open_at_end, true);
          if (r.end_ns && e != *r.end_ns) out.Int(k.clipped, *r.end_ns - e);
          out.Commit();
          ++part.stats.events;
          ++part.stats.nvtx_ranges;
        });
    host_walk_.ForEachNvtxMark([&](const NvtxMark& mark) __attribute__((always_inline)) {
      std::string_view domain = mark.domain == kNoString ? "default" : m_.strings.Get(mark.domain);
      uint64_t track = HostTrack(part, mark.tid, 1);
      uint64_t name = RawNameIid(part, mark.name);
      out.StartInstant(track, mark.ts_ns, name, nvtx_mark);
      out.InternedStr(k.domain, domain);
      out.Commit();
      ++part.stats.events;
      ++part.stats.nvtx_marks;
    });
  }

  // Op and call references as {table: id} dicts, as WriteOpRefs writes
  // their text forms.
  void WriteTypedArg(PerfettoProtoSink& out, const SliceArg& a) const {
    const uint64_t key = out.AnnotationName(a.key);
    const auto index = static_cast<size_t>(a.value);
    switch (a.type) {
      case SliceArg::Type::kInt: out.Int(key, a.value); return;
      case SliceArg::Type::kText:
        if (kRepeatingArgs.contains(a.key)) {
          out.InternedStr(key, a.text);
        } else {
          out.Str(key, a.text);
        }
        return;
      case SliceArg::Type::kOpRef:
      case SliceArg::Type::kOpJson: out.OpRef(key, {OpTable(m_.ops.category[index]), m_.ops.source_id[index]}); return;
      case SliceArg::Type::kCallRef: out.OpRef(key, {"api_call", m_.api.source_id[index]}); return;
    }
  }

  const TraceModel& m_;
  Window w_;
  int index_;
  const PerfettoExportOptions& options_;
  TimelineTraversal ops_walk_;   // WriteOps' (lanes, device tids)
  TimelineTraversal host_walk_;  // WriteHost's (synthetic host tids), then WriteAnalysis'
  KernelNames names_;
  uint64_t host_uuid_ = 0;
  absl::flat_hash_map<int32_t, uint64_t> device_uuid_;
  std::vector<std::vector<uint64_t>> lane_tracks_;
  absl::flat_hash_map<std::pair<int64_t, int>, uint64_t> host_tracks_;
  std::vector<uint64_t> kernel_iids_, raw_iids_;
  std::vector<uint32_t> flow_begin_;  // per API call + 1: its flows in flow_ids_
  std::vector<uint64_t> flow_ids_;
  absl::flat_hash_map<const AnalysisTrack*, uint64_t> slice_track_uuid_;
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
  const int64_t base = TimelineBaseTime(traces);
  stats->ts_base_ns = base;
  const std::string dir = std::filesystem::path(out->path()).parent_path().string();
  absl::Status analyses = absl::OkStatus();
  bool awaited = false;
  const auto trace_count = static_cast<uint32_t>(traces.size());
  std::unique_ptr<Part> first_processes;  // trace 0's, which writes the export info last
  for (size_t i = 0; i < traces.size(); ++i) {
    const auto t = static_cast<uint32_t>(i);
    ProtoTraceExporter exporter(traces[i], static_cast<int>(i), static_cast<int>(traces.size()), options);
    // The process tracks and the ops go straight into the file (nothing
    // else writes to it meanwhile); the other parts are held until then.
    auto processes = std::make_unique<Part>(out, base, PartIds(trace_count, t, 0));
    exporter.WriteProcesses(*processes);
    Part ops(out, base, PartIds(trace_count, t, 1));
    auto host_output = std::make_unique<SpillBuffer>(dir);
    Part host(host_output.get(), base, PartIds(trace_count, t, 2));
    auto analysis_output = std::make_unique<SpillBuffer>(dir);
    Part analysis(analysis_output.get(), base, PartIds(trace_count, t, 3));
    std::vector<const AnalysisTrack*> slice_tracks;
    std::vector<std::unique_ptr<SpillBuffer>> slice_outputs;
    std::vector<std::unique_ptr<Part>> slice_parts;
    TaskThreads parts;  // after what its threads use: joined first on every way out
    parts.Start([&] {
      exporter.WriteOps(ops);
      ops.sink.Finish();
    });
    parts.Start([&] {
      exporter.WriteHost(host);
      host.sink.Finish();
    });
    // The analysis tracks: on a thread of their own each, while the ops and
    // host parts are written, once the analyses are ready.
    if (!awaited) {
      awaited = true;
      if (options.await_analyses) analyses = options.await_analyses();
    }
    if (analyses.ok()) {
      exporter.ReserveSliceTracks(analysis);
      slice_tracks = exporter.SliceTracks();
      const auto slices = static_cast<uint32_t>(slice_tracks.size());
      for (uint32_t k = 0; k < slices; ++k) {
        const AnalysisTrack* track = slice_tracks[k];
        // A track of many slices in runs at once, on one sequence: each
        // run after the first clears its state again (Ids::continues_sequence).
        // The runs depend on the slice count alone, so that the file is the
        // same with STREAMSCOPE_THREADS=1.
        const auto runs = static_cast<int>(
            std::clamp<int64_t>(track->SliceCount() / std::max<int64_t>(options.slices_per_run, 1), 1, 8));
        for (int run = 0; run < runs; ++run) {
          PerfettoProtoSink::Ids ids = PartIds(trace_count, t, 4, k, slices);
          ids.continues_sequence = run > 0;
          slice_outputs.push_back(std::make_unique<SpillBuffer>(dir));
          slice_parts.push_back(std::make_unique<Part>(slice_outputs.back().get(), base, ids));
          Part* part = slice_parts.back().get();
          parts.Start([&exporter, part, track, run, runs] {
            exporter.WriteAnalysisSlices(*part, *track, exporter.SliceTrackUuid(*track), run, runs);
            part->sink.Finish();
          });
        }
      }
    }
    parts.Join();
    MarkPhase("timeline parts");  // STREAMSCOPE_PROFILE
    if (!analyses.ok()) return analyses;
    exporter.WriteAnalysis(analysis);
    analysis.sink.Finish();
    for (const Part* part : {processes.get(), &ops, &host, &analysis}) AddCounts(part->stats, stats);
    for (const std::unique_ptr<Part>& part : slice_parts) AddCounts(part->stats, stats);
    // In file order after the ops: host tracks, analysis track descriptors
    // and markers, analysis slices.
    for (SpillBuffer* held : {host_output.get(), analysis_output.get()}) {
      if (absl::Status s = held->AppendTo(out); !s.ok()) return s;
    }
    for (const std::unique_ptr<SpillBuffer>& held : slice_outputs) {
      if (absl::Status s = held->AppendTo(out); !s.ok()) return s;
    }
    if (i == 0) first_processes = std::move(processes);
    MarkPhase("timeline joined");
  }
  AddTimelineNotes(*stats);
  if (first_processes == nullptr) first_processes = std::make_unique<Part>(out, base, PartIds(1, 0, 0));  // no trace
  WriteTraceInfo(traces, first_processes->sink, *stats);
  ++stats->events;
  absl::Status st = out->Commit();
  stats->bytes = out->bytes_written();
  return st;
}

}  // namespace streamscope
