// `export --perfetto-proto`: the written file is decoded back with the
// classes generated from analyzer/export/perfetto_trace.proto and read the
// way trace_processor reads it: per packet sequence, incremental state
// cleared by SEQ_INCREMENTAL_STATE_CLEARED, TracePacketDefaults (track,
// clock), delta timestamps summed on the sequence's incremental clock from
// its ClockSnapshot, interned names resolved in the sequence's own tables;
// then per track, BEGIN pushes and END pops. Checked against the model of
// bundled real traces and a synthetic one: every op exactly once on its
// stream's track with its exact start and duration, the analysis tracks,
// flows from each API call to its op, and Perfetto's incremental-state
// rules (with a hand-made trace that breaks them, so the check can fail).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/export_runner.h"
#include "analyzer/export/perfetto_proto_writer.h"
#include "analyzer/export/perfetto_trace.pb.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/timeline_window.h"
#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/export/export_fixture_trace.h"
#include "tests/analyzer/export/export_test_util.h"

namespace streamscope {
namespace {

namespace pp = perfetto::protos;

using testing::ReadFile;
using testing::TempDir;

// An annotation value, flattened for the checks. Op references ({table:
// id} dicts) read back as the JSON's "table#id" text, in `s` or `list`.
struct Arg {
  int64_t i = 0;
  std::string s;
  std::vector<std::string> list;
};

struct Slice {
  uint64_t track = 0;
  int64_t ts = 0, dur = -1;  // dur -1: instant
  std::string name, category;
  std::map<std::string, Arg> args;
  std::vector<uint64_t> flows;
};

struct TrackInfo {
  std::string name;
  uint64_t parent = 0;
  std::string process_name;  // process tracks
};

// Breaches of Perfetto's incremental-state rules (trace_packet.proto,
// clock_snapshot.proto), as a reader that follows them would see them.
struct RuleBreaches {
  int64_t sequence_not_opened_by_clear = 0;  // first packet of a sequence lacks SEQ_INCREMENTAL_STATE_CLEARED
  int64_t state_used_without_flag = 0;       // uses interning/defaults/clock without SEQ_NEEDS_INCREMENTAL_STATE
  int64_t iid_not_defined = 0;               // refers to an iid its sequence has not defined
  int64_t iid_redefined = 0;                 // defines an iid its sequence already has
  int64_t clock_without_snapshot = 0;        // a timestamp on a sequence clock no snapshot defined
  int64_t sequence_id_missing = 0;
  int64_t Total() const {
    return sequence_not_opened_by_clear + state_used_without_flag + iid_not_defined + iid_redefined +
           clock_without_snapshot + sequence_id_missing;
  }
};

// The decoded file, with delta timestamps summed, interned strings resolved
// per sequence and slices paired.
struct Decoded {
  std::map<uint64_t, TrackInfo> tracks;
  std::vector<Slice> slices;
  int64_t ts_base_ns = 0;
  int64_t packets = 0;
  int64_t sequences = 0;
  int64_t delta_timestamps = 0;
  RuleBreaches breaches;
  int64_t unclosed = 0, unmatched_ends = 0;

  std::string TrackName(uint64_t uuid) const {
    auto it = tracks.find(uuid);
    return it == tracks.end() ? "" : it->second.name;
  }
  std::string ProcessOf(uint64_t uuid) const {
    auto it = tracks.find(uuid);
    if (it == tracks.end()) return "";
    auto p = tracks.find(it->second.parent);
    return p == tracks.end() ? "" : p->second.process_name;
  }
};

constexpr uint32_t kBootTime = 6;  // BUILTIN_CLOCK_BOOTTIME

// Incremental state of one packet sequence, reset by SEQ_INCREMENTAL_STATE_CLEARED.
struct SequenceState {
  std::map<uint64_t, std::string> names, cats, keys, values;
  uint32_t default_clock = 0;  // 0: none (BOOTTIME)
  bool has_default_track = false;
  uint64_t default_track = 0;
  struct Clock {
    bool incremental = false;
    uint64_t value = 0;   // last value, in the clock's own domain
    int64_t to_boot = 0;  // BOOTTIME = value + to_boot
  };
  std::map<uint32_t, Clock> clocks;  // sequence-scoped clocks (ids 64-127)
};

class Decoder {
 public:
  explicit Decoder(Decoded& d) : d_(d) {}

  void Packet(const pp::TracePacket& p) {
    ++d_.packets;
    if (!p.has_trusted_packet_sequence_id() || p.trusted_packet_sequence_id() == 0) ++d_.breaches.sequence_id_missing;
    uint32_t id = p.trusted_packet_sequence_id();
    bool first = !seen_.contains(id);
    seen_.insert(id);
    if (first) ++d_.sequences;
    bool cleared = (p.sequence_flags() & pp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED) != 0;
    bool needs = (p.sequence_flags() & pp::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE) != 0;
    if (first && !cleared) ++d_.breaches.sequence_not_opened_by_clear;
    if (cleared) state_[id] = SequenceState{};
    SequenceState& st = state_[id];
    bool uses_state = p.has_interned_data();
    if (p.has_trace_packet_defaults()) {
      const pp::TracePacketDefaults& def = p.trace_packet_defaults();
      st.default_clock = def.timestamp_clock_id();
      st.has_default_track = def.track_event_defaults().has_track_uuid();
      st.default_track = def.track_event_defaults().track_uuid();
    }
    if (p.has_clock_snapshot()) {
      uint64_t boot = 0;
      for (const auto& c : p.clock_snapshot().clocks()) {
        if (c.clock_id() == kBootTime) boot = c.timestamp();
      }
      for (const auto& c : p.clock_snapshot().clocks()) {
        if (c.clock_id() < 64) continue;
        SequenceState::Clock& clock = st.clocks[c.clock_id()];
        clock.incremental = c.is_incremental();
        clock.value = c.timestamp();
        clock.to_boot = static_cast<int64_t>(boot) - static_cast<int64_t>(c.timestamp());
      }
    }
    const pp::InternedData& in = p.interned_data();
    for (const auto& n : in.event_names()) Define(st.names, n.iid(), n.name());
    for (const auto& n : in.event_categories()) Define(st.cats, n.iid(), n.name());
    for (const auto& n : in.debug_annotation_names()) Define(st.keys, n.iid(), n.name());
    for (const auto& n : in.debug_annotation_string_values()) Define(st.values, n.iid(), n.str());

    if (p.has_track_descriptor()) {
      const pp::TrackDescriptor& t = p.track_descriptor();
      TrackInfo& info = d_.tracks[t.uuid()];
      info.name = t.has_thread() ? t.thread().thread_name() : t.name();
      info.parent = t.parent_uuid();
      if (t.has_process()) info.process_name = t.process().process_name();
    }
    if (!p.has_track_event()) {
      if (uses_state && !needs && !cleared) ++d_.breaches.state_used_without_flag;
      return;
    }
    // The timestamp, in its clock: the packet's, else the sequence default.
    int64_t ts = static_cast<int64_t>(p.timestamp());
    uint32_t clock_id = p.has_timestamp_clock_id() ? p.timestamp_clock_id() : st.default_clock;
    if (!p.has_timestamp_clock_id() && st.default_clock != 0) uses_state = true;
    if (clock_id >= 64) {
      uses_state = true;
      auto c = st.clocks.find(clock_id);
      if (c == st.clocks.end()) {
        ++d_.breaches.clock_without_snapshot;
      } else if (c->second.incremental) {
        c->second.value += p.timestamp();
        ts = static_cast<int64_t>(c->second.value) + c->second.to_boot;
        ++d_.delta_timestamps;
      } else {
        ts = static_cast<int64_t>(p.timestamp()) + c->second.to_boot;
      }
    }
    const pp::TrackEvent& e = p.track_event();
    Slice s;
    s.track = e.track_uuid();
    if (!e.has_track_uuid() && st.has_default_track) {
      s.track = st.default_track;
      uses_state = true;
    }
    s.ts = ts;
    if (e.has_name_iid()) s.name = Lookup(st.names, e.name_iid());
    if (e.has_name()) s.name = e.name();
    if (e.category_iids_size() > 0) s.category = Lookup(st.cats, e.category_iids(0));
    uses_state = uses_state || e.has_name_iid() || e.category_iids_size() > 0;
    for (const auto& a : e.debug_annotations()) {
      uses_state = true;
      s.args[Lookup(st.keys, a.name_iid())] = Value(st, a);
    }
    if (e.has_correlation_id()) s.args["correlation_id"].i = static_cast<int64_t>(e.correlation_id());
    s.flows.assign(e.flow_ids().begin(), e.flow_ids().end());
    s.flows.insert(s.flows.end(), e.flow_ids_old().begin(), e.flow_ids_old().end());
    if (uses_state && !needs) ++d_.breaches.state_used_without_flag;
    events_.push_back({ts, e.type(), std::move(s)});
  }

  // Pairs BEGIN/END per track after sorting by time, as trace_processor does
  // (packets of one sequence keep their order on ties).
  void Finish() {
    std::stable_sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) { return a.ts < b.ts; });
    std::map<uint64_t, std::vector<size_t>> open;  // track -> open slice indices
    for (Event& ev : events_) {
      if (ev.type == pp::TrackEvent::TYPE_SLICE_END) {
        std::vector<size_t>& stack = open[ev.slice.track];
        if (stack.empty()) {
          ++d_.unmatched_ends;
          continue;
        }
        d_.slices[stack.back()].dur = ev.ts - d_.slices[stack.back()].ts;
        stack.pop_back();
        continue;
      }
      if (ev.type == pp::TrackEvent::TYPE_SLICE_BEGIN) open[ev.slice.track].push_back(d_.slices.size());
      if (ev.slice.name == "streamscope export") d_.ts_base_ns = ev.slice.args["ts_base_ns"].i;
      d_.slices.push_back(std::move(ev.slice));
    }
    for (auto& [track, stack] : open) d_.unclosed += static_cast<int64_t>(stack.size());
  }

 private:
  struct Event {
    int64_t ts;
    pp::TrackEvent::Type type;
    Slice slice;
  };

  void Define(std::map<uint64_t, std::string>& table, uint64_t iid, const std::string& text) {
    if (!table.emplace(iid, text).second) ++d_.breaches.iid_redefined;
  }
  std::string Lookup(const std::map<uint64_t, std::string>& table, uint64_t iid) {
    auto it = table.find(iid);
    if (it != table.end()) return it->second;
    ++d_.breaches.iid_not_defined;
    return "";
  }
  // {table: id} -> "table#id".
  std::string OpRef(SequenceState& st, const pp::DebugAnnotation& dict) {
    if (dict.dict_entries_size() != 1) return "";
    const pp::DebugAnnotation& e = dict.dict_entries(0);
    return Lookup(st.keys, e.name_iid()) + "#" + std::to_string(e.int_value());
  }
  Arg Value(SequenceState& st, const pp::DebugAnnotation& a) {
    Arg v;
    v.i = a.has_uint_value()   ? static_cast<int64_t>(a.uint_value())
          : a.has_bool_value() ? a.bool_value()
                               : a.int_value();
    v.s = a.has_string_value_iid() ? Lookup(st.values, a.string_value_iid()) : a.string_value();
    if (a.has_legacy_json_value()) v.s = a.legacy_json_value();
    if (a.dict_entries_size() > 0) v.s = OpRef(st, a);
    for (const auto& x : a.array_values()) {
      v.list.push_back(x.dict_entries_size() > 0 ? OpRef(st, x)
                       : x.has_string_value()    ? x.string_value()
                                                 : std::to_string(x.int_value()));
    }
    return v;
  }

  Decoded& d_;
  std::set<uint32_t> seen_;
  std::map<uint32_t, SequenceState> state_;
  std::vector<Event> events_;
};

Decoded DecodeTrace(const pp::Trace& trace) {
  Decoded d;
  Decoder decoder(d);
  for (const pp::TracePacket& p : trace.packet()) decoder.Packet(p);
  decoder.Finish();
  return d;
}

Decoded Decode(const std::string& bytes) {
  pp::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(bytes)) << "not a Trace message";
  return DecodeTrace(trace);
}

// Op slices by (category, source id): the category names the source table.
std::map<std::pair<std::string, int64_t>, std::vector<const Slice*>> OpSlices(const Decoded& d) {
  static const std::set<std::string> kOpCategories = [] {
    std::set<std::string> c;
    for (int i = 0; i < kNumOpCategories; ++i) c.insert(std::string(OpCategoryName(static_cast<OpCategory>(i))));
    return c;
  }();
  std::map<std::pair<std::string, int64_t>, std::vector<const Slice*>> by_op;
  for (const Slice& s : d.slices) {
    if (kOpCategories.contains(s.category)) by_op[{s.category, s.args.at("source_id").i}].push_back(&s);
  }
  return by_op;
}

// An op citation ("copy 7 (stream 13)") as the decoder gives it back:
// "memcpy#7" (table and row id; the stream is the slice's track). "" if not one.
std::string OpRefKey(const nlohmann::json& v) {
  static const std::regex ref(R"(^(kernel|copy|memset) ([0-9]+)( \((stream [0-9-]+|no stream)\))?$)");
  std::smatch m;
  if (!v.is_string()) return "";
  const std::string& s = v.get_ref<const std::string&>();
  if (!std::regex_match(s, m, ref)) return "";
  const std::string table = m[1] == "copy" ? "memcpy" : std::string(m[1]);
  return table + "#" + std::string(m[2]);
}
bool IsOpRef(const nlohmann::json& v) { return !OpRefKey(v).empty(); }

int Export(const std::vector<std::string>& traces, const std::string& proto, const std::string& json = "",
           std::string* out_text = nullptr, std::string* err_text = nullptr) {
  ExportOptions options;
  options.traces = traces;
  options.window.kind = WindowSpec::Kind::kWholeTrace;  // every op of the trace
  options.perfetto_proto_path = proto;
  options.perfetto_path = json;
  std::ostringstream out, err;
  int rc = ExitWith(RunExport(options, out), err);
  if (out_text != nullptr) *out_text = out.str();
  if (err_text != nullptr) *err_text = err.str();
  return rc;
}

const std::vector<std::string> kRealTraces = {"tests/data/overlapped.sqlite", "tests/data/legacy_default.sqlite",
                                              "tests/data/implicit_sync.sqlite", "tests/data/launch_graph.sqlite"};

// Exports `path` and checks every op of the window is one slice on its
// stream's track with its exact start and duration.
void ExpectEveryOpExactlyOnce(const std::string& path, const std::string& proto) {
  std::string out;
  ASSERT_EQ(Export({path}, proto, "", &out), kExitOk) << out;
  Decoded d = Decode(ReadFile(proto));
  EXPECT_EQ(d.breaches.Total(), 0);
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = models->front();
  Window w = ExtendToHostItems(m, WholeTraceWindow(m));

  std::map<std::pair<std::string, int64_t>, std::vector<const Slice*>> by_op = OpSlices(d);
  int64_t expected = 0;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (!InWindow(m.ops.start_ns[i], m.ops.end_ns[i], w)) continue;
    ++expected;
    OpCategory c = m.ops.category[i];
    auto it = by_op.find({std::string(OpCategoryName(c)), m.ops.source_id[i]});
    ASSERT_NE(it, by_op.end()) << "op " << i << " missing";
    ASSERT_EQ(it->second.size(), 1u) << "op " << i << " written " << it->second.size() << " times";
    const Slice& s = *it->second.front();
    EXPECT_EQ(s.ts + d.ts_base_ns, m.ops.start_ns[i]);
    EXPECT_EQ(s.dur, m.ops.end_ns[i] - m.ops.start_ns[i]);
    EXPECT_EQ(s.category, OpCategoryName(c));
    EXPECT_TRUE(d.TrackName(s.track).starts_with(StreamLabel(m, m.ops.stream[i]))) << d.TrackName(s.track);
    EXPECT_EQ(d.ProcessOf(s.track), DeviceLabel(m, m.ops.device_id[i]));
    EXPECT_EQ(s.args.at("correlation_id").i, m.ops.correlation_id[i]);
  }
  EXPECT_GT(expected, 0);
  EXPECT_EQ(static_cast<int64_t>(by_op.size()), expected);
  EXPECT_EQ(d.unclosed, 0);
  EXPECT_EQ(d.unmatched_ends, 0);
}

TEST(PerfettoProto, EveryOpOfRealTracesIsOneSliceOnItsStreamWithExactTimes) {
  for (const std::string& path : kRealTraces) {
    SCOPED_TRACE(path);
    TempDir dir;
    ExpectEveryOpExactlyOnce(path, dir / "t.pftrace");
  }
}

// The bench's synthetic trace, smaller: overlapping streams (overflow lanes,
// from the jitter), nested API calls and NVTX ranges, 12k ops.
TEST(PerfettoProto, EveryOpOfASyntheticTraceWithOverflowLanesIsExact) {
  TempDir dir;
  testing::FixtureOptions options;
  options.iterations = 3000;
  ASSERT_EQ(testing::WriteFixtureTrace(dir / "f.sqlite", options), "");
  ExpectEveryOpExactlyOnce(dir / "f.sqlite", dir / "t.pftrace");
  // NVTX marks are written after the ranges of their track, so their
  // packets go back in time: absolute timestamps, still exact.
  Decoded d = Decode(ReadFile(dir / "t.pftrace"));
  auto models = LoadTraceFile(dir / "f.sqlite");
  ASSERT_TRUE(models.ok());
  std::multiset<int64_t> mark_times, instant_times;
  for (const NvtxMark& mark : models->front().nvtx_marks) mark_times.insert(mark.ts_ns);
  for (const Slice& s : d.slices) {
    if (s.category == "nvtx_mark") instant_times.insert(s.ts + d.ts_base_ns);
  }
  EXPECT_FALSE(mark_times.empty());
  EXPECT_EQ(instant_times, mark_times);
}

TEST(PerfettoProto, AnalysisTracksHoldTheSameSlicesAsTheAnalyses) {
  const std::string path = "tests/data/legacy_default.sqlite";
  TempDir dir;
  ASSERT_EQ(Export({path}, dir / "t.pftrace"), kExitOk);
  Decoded d = Decode(ReadFile(dir / "t.pftrace"));
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok());
  const TraceModel& m = models->front();
  absl::StatusOr<AnalysisTracks> analyzed = AnalyzeForTimeline(m, WholeTraceWindow(m));
  ASSERT_TRUE(analyzed.ok()) << analyzed.status();
  const AnalysisTracks& tracks = *analyzed;
  int checked = 0, op_refs = 0, call_refs = 0, segments = 0, op_objects = 0;
  for (const AnalysisTrack& t : tracks.tracks) {
    if (t.slices.empty() && t.markers.empty()) continue;
    std::vector<const Slice*> on_track;
    for (const Slice& s : d.slices) {
      if (d.TrackName(s.track) == t.name) on_track.push_back(&s);
    }
    ASSERT_EQ(on_track.size(), t.slices.size() + t.markers.size()) << t.name;
    for (size_t i = 0; i < t.slices.size(); ++i) {
      EXPECT_EQ(on_track[i]->name, t.slices[i].name);
      EXPECT_EQ(on_track[i]->ts + d.ts_base_ns, t.slices[i].start_ns);
      EXPECT_EQ(on_track[i]->dur, t.slices[i].end_ns - t.slices[i].start_ns);
      // Op references ("memcpy#7", lists of them) come back the same.
      for (auto& [key, v] : t.slices[i].args.items()) {
        if (IsOpRef(v)) {
          EXPECT_EQ(on_track[i]->args.at(key).s, OpRefKey(v)) << key;
          ++op_refs;
        } else if (v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), IsOpRef)) {
          std::vector<std::string> keys;
          for (const nlohmann::json& x : v) keys.push_back(OpRefKey(x));
          EXPECT_EQ(on_track[i]->args.at(key).list, keys) << key;
          ++op_refs;
        } else if (key == "call" && v.is_string()) {
          // "call 6 cudaMemcpyAsync (thread 1)" -> {api_call: 6}: the call's row id.
          const std::string text = v.get<std::string>();
          EXPECT_EQ(on_track[i]->args.at(key).s, "api_call#" + text.substr(5, text.find(' ', 5) - 5)) << text;
          ++call_refs;
        } else if (key == "segment") {
          EXPECT_FALSE(on_track[i]->args.contains(key)) << "restates the name " << t.slices[i].name;
          ++segments;
        } else if (key == "on") {
          EXPECT_EQ(on_track[i]->args.at(key).s, v.get<std::string>());  // interned, the same text
        } else if (key == "op" && v.is_object()) {
          // A critical-path segment's op ({"table": "kernel", "id": 3, ...}) -> {kernel: 3}.
          EXPECT_EQ(on_track[i]->args.at(key).s,
                    v["table"].get<std::string>() + "#" + std::to_string(v["id"].get<int64_t>()));
          ++op_objects;
        }
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 2) << "expected gap and hidden-sync tracks in legacy_default";
  EXPECT_GT(op_refs, 0) << "expected gaps naming the ops around them";
  EXPECT_GT(call_refs, 0) << "expected gaps and critical-path segments naming calls";
  EXPECT_GT(segments, 0) << "expected a critical path";
  EXPECT_GT(op_objects, 0) << "expected critical-path segments on GPU ops";
  std::set<std::string> names;
  for (const auto& [uuid, t] : d.tracks) names.insert(t.name);
  EXPECT_TRUE(names.contains("idle gaps (by cause)"));
  EXPECT_TRUE(names.contains("hidden syncs"));
}

// A produced analysis track of many slices is written in runs at once, on
// one sequence whose state each run after the first clears again: read
// back, the file holds the same slices on the same tracks as when written
// in one run, and it is the same file with or without threads.
TEST(PerfettoProto, ATrackWrittenInRunsReadsBackAsInOneRun) {
  const std::string path = "tests/data/legacy_default.sqlite";
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = models->front();
  const Window w = ExtendToHostItems(m, WholeTraceWindow(m));
  absl::StatusOr<AnalysisTracks> tracks = AnalyzeForTimeline(m, w, 200'000, nullptr, /*produce_slices=*/true);
  ASSERT_TRUE(tracks.ok()) << tracks.status();
  int64_t produced = 0;
  for (const AnalysisTrack& t : tracks->tracks) produced += t.produce ? t.produced : 0;
  ASSERT_GT(produced, 16) << "expected gap and critical-path tracks made while written";
  TempDir dir;
  auto write = [&](const std::string& name, int64_t slices_per_run) {
    auto out = OutputFile::Create(dir / name, true);
    EXPECT_TRUE(out.ok()) << out.status();
    PerfettoTraceInput input{&m, w, &*tracks, ""};
    PerfettoExportOptions options;
    options.slices_per_run = slices_per_run;
    EXPECT_TRUE(WritePerfettoProto({&input, 1}, options, out->get(), nullptr).ok());
    return Decode(ReadFile(dir / name));
  };
  const Decoded one = write("one.pftrace", int64_t{1} << 40);
  const Decoded runs = write("runs.pftrace", 2);  // up to 8 runs a track
  EXPECT_EQ(runs.breaches.Total(), 0);
  EXPECT_EQ(runs.unclosed, 0);
  EXPECT_EQ(runs.unmatched_ends, 0);
  EXPECT_EQ(runs.sequences, one.sequences) << "runs continue their track's sequence";
  EXPECT_GT(runs.packets, one.packets) << "each run after the first clears the state again";
  auto key = [&](const Decoded& d, const Slice& s) {
    std::string args;
    for (const auto& [k, v] : s.args)
      absl::StrAppend(&args, k, "=", v.i, "/", v.s, "/", absl::StrJoin(v.list, ","), ";");
    return absl::StrCat(d.TrackName(s.track), "|", s.ts, "|", s.dur, "|", s.name, "|", s.category, "|", args);
  };
  std::vector<std::string> a, b;
  for (const Slice& s : one.slices) a.push_back(key(one, s));
  for (const Slice& s : runs.slices) b.push_back(key(runs, s));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  // The same bytes on one thread.
  setenv("STREAMSCOPE_THREADS", "1", 1);
  write("runs1.pftrace", 2);
  unsetenv("STREAMSCOPE_THREADS");
  EXPECT_EQ(ReadFile(dir / "runs1.pftrace"), ReadFile(dir / "runs.pftrace"));
}

TEST(PerfettoProto, FlowsLinkEachApiCallToTheOpsItSubmitted) {
  const std::string path = "tests/data/overlapped.sqlite";
  TempDir dir;
  ASSERT_EQ(Export({path}, dir / "t.pftrace"), kExitOk);
  Decoded d = Decode(ReadFile(dir / "t.pftrace"));
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok());
  const TraceModel& m = models->front();
  std::map<uint64_t, std::vector<const Slice*>> by_flow;
  for (const Slice& s : d.slices) {
    for (uint64_t f : s.flows) by_flow[f].push_back(&s);
  }
  std::map<std::pair<std::string, int64_t>, std::vector<const Slice*>> by_op = OpSlices(d);
  int64_t linked = 0;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    int32_t api = m.ApiForOp(i);
    if (api < 0) continue;
    const std::vector<const Slice*>& slices =
        by_op[{std::string(OpCategoryName(m.ops.category[i])), m.ops.source_id[i]}];
    ASSERT_EQ(slices.size(), 1u);
    const Slice& s = *slices.front();
    int64_t api_source_id = m.api.source_id[api];
    ASSERT_EQ(s.flows.size(), 1u) << s.name;
    const std::vector<const Slice*>& ends = by_flow[s.flows[0]];
    ASSERT_EQ(ends.size(), 2u) << "flow " << s.flows[0] << " has " << ends.size() << " ends";
    const Slice* call = ends[0] == &s ? ends[1] : ends[0];
    EXPECT_TRUE(call->category == "cuda_runtime" || call->category == "cuda_driver") << call->category;
    EXPECT_EQ(call->args.at("source_id").i, api_source_id);
    EXPECT_EQ(call->args.at("correlation_id").i, s.args.at("correlation_id").i);
    EXPECT_LE(call->ts, s.ts) << "the call comes first, so the arrow points at the op";
    ++linked;
  }
  EXPECT_GT(linked, 0);
  int64_t flows = 0;
  for (const auto& [id, ends] : by_flow) flows += ends.size() == 2;
  EXPECT_EQ(flows, linked) << "every flow joins one call to one op";
}

TEST(PerfettoProto, EverySequenceClearsItsStateAndDefinesClockAndNamesBeforeUse) {
  for (const std::string& path : kRealTraces) {
    SCOPED_TRACE(path);
    TempDir dir;
    ASSERT_EQ(Export({path}, dir / "t.pftrace"), kExitOk);
    Decoded d = Decode(ReadFile(dir / "t.pftrace"));
    EXPECT_EQ(d.breaches.sequence_not_opened_by_clear, 0);
    EXPECT_EQ(d.breaches.state_used_without_flag, 0);
    EXPECT_EQ(d.breaches.iid_not_defined, 0);
    EXPECT_EQ(d.breaches.iid_redefined, 0);
    EXPECT_EQ(d.breaches.clock_without_snapshot, 0);
    EXPECT_EQ(d.breaches.sequence_id_missing, 0);
    // A sequence per track with events, plus the descriptors' of the
    // writer's parts (processes, ops, host, analysis); hidden-sync markers
    // on a host thread's track add a sequence for that track. Most
    // timestamps are deltas on the incremental clock.
    std::set<uint64_t> tracks_with_events, tracks_with_instants;
    for (const Slice& s : d.slices) {
      tracks_with_events.insert(s.track);
      if (s.dur < 0) tracks_with_instants.insert(s.track);
    }
    const auto tracks = static_cast<int64_t>(tracks_with_events.size());
    EXPECT_GE(d.sequences, tracks + 1);
    EXPECT_LE(d.sequences, tracks + 4 + static_cast<int64_t>(tracks_with_instants.size()));
    EXPECT_GT(d.delta_timestamps, static_cast<int64_t>(d.slices.size()));
  }
}

// The checks above can fail: a hand-made trace that breaks each rule.
TEST(PerfettoProto, TheRuleCheckCatchesADeltaBeforeItsSnapshotAndAnUndefinedName) {
  pp::Trace trace;
  pp::TracePacket* open = trace.add_packet();  // opens sequence 2 without clearing it
  open->set_trusted_packet_sequence_id(2);
  open->mutable_trace_packet_defaults()->set_timestamp_clock_id(64);
  pp::TracePacket* event = trace.add_packet();  // a delta before any ClockSnapshot, iid 5 undefined
  event->set_trusted_packet_sequence_id(2);
  event->set_timestamp(10);
  event->mutable_track_event()->set_type(pp::TrackEvent::TYPE_INSTANT);
  event->mutable_track_event()->set_name_iid(5);
  Decoded d = DecodeTrace(trace);
  EXPECT_EQ(d.breaches.sequence_not_opened_by_clear, 1);
  EXPECT_EQ(d.breaches.clock_without_snapshot, 1);
  EXPECT_EQ(d.breaches.iid_not_defined, 1);
  EXPECT_EQ(d.breaches.state_used_without_flag, 1);

  // The same, done right: cleared, snapshot, names, flags; the delta counts
  // from the snapshot.
  open->set_sequence_flags(pp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
  pp::ClockSnapshot* clocks = open->mutable_clock_snapshot();
  clocks->add_clocks()->set_clock_id(6);
  clocks->mutable_clocks(0)->set_timestamp(1000);
  clocks->add_clocks()->set_clock_id(64);
  clocks->mutable_clocks(1)->set_timestamp(1000);
  clocks->mutable_clocks(1)->set_is_incremental(true);
  event->set_sequence_flags(pp::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
  pp::EventName* name = event->mutable_interned_data()->add_event_names();
  name->set_iid(5);
  name->set_name("tick");
  pp::TracePacket* second = trace.add_packet();
  *second = *event;
  second->clear_interned_data();
  d = DecodeTrace(trace);
  EXPECT_EQ(d.breaches.Total(), 0);
  ASSERT_EQ(d.slices.size(), 2u);
  EXPECT_EQ(d.slices[0].name, "tick");
  EXPECT_EQ(d.slices[0].ts, 1010);
  EXPECT_EQ(d.slices[1].ts, 1020);
}

TEST(PerfettoProto, NamesAreInternedOncePerSequence) {
  TempDir dir;
  ASSERT_EQ(Export({"tests/data/overlapped.sqlite"}, dir / "t.pftrace"), kExitOk);
  pp::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(ReadFile(dir / "t.pftrace")));
  std::map<uint32_t, std::multiset<std::string>> names_by_sequence;
  for (const pp::TracePacket& p : trace.packet()) {
    for (const auto& n : p.interned_data().event_names()) {
      names_by_sequence[p.trusted_packet_sequence_id()].insert(n.name());
    }
  }
  for (const auto& [sequence, names] : names_by_sequence) {
    for (const std::string& n : names) EXPECT_EQ(names.count(n), 1u) << n << " on sequence " << sequence;
  }
  Decoded d = Decode(ReadFile(dir / "t.pftrace"));
  int64_t kernels = 0;
  std::set<std::string> kernel_names;
  for (const Slice& s : d.slices) {
    if (s.category == "compute") {
      ++kernels;
      kernel_names.insert(s.name);
    }
  }
  EXPECT_GT(kernels, static_cast<int64_t>(kernel_names.size())) << "kernel names repeat, so interning pays";
}

TEST(PerfettoProto, KernelsCarryTheirLaunchShapesInBothExports) {
  TempDir dir;
  ASSERT_EQ(Export({"tests/data/overlapped.sqlite"}, dir / "t.pftrace", dir / "t.json"), kExitOk);
  Decoded d = Decode(ReadFile(dir / "t.pftrace"));
  // Known answer: the workload launches its kernels with 256-thread blocks.
  int64_t with_shape = 0;
  for (const Slice& s : d.slices) {
    if (s.category != "compute") continue;
    ASSERT_TRUE(s.args.contains("grid")) << s.name;
    EXPECT_EQ(s.args.at("block").s, "256,1,1");  // "x,y,z" (an array in the JSON)
    EXPECT_GT(std::stoll(s.args.at("grid").s), 0);
    EXPECT_EQ(std::count(s.args.at("grid").s.begin(), s.args.at("grid").s.end(), ','), 2);
    ++with_shape;
  }
  EXPECT_GT(with_shape, 0);
  nlohmann::json json = nlohmann::json::parse(ReadFile(dir / "t.json"));
  int64_t json_with_shape = 0;
  for (const nlohmann::json& e : json["traceEvents"]) {
    if (e.value("cat", "") != "compute") continue;
    EXPECT_EQ(e["args"]["block"], nlohmann::json::array({256, 1, 1}));
    ++json_with_shape;
  }
  EXPECT_EQ(json_with_shape, with_shape);
}

TEST(PerfettoProto, TwoTracesGetTheirOwnLabelledProcesses) {
  TempDir dir;
  ASSERT_EQ(Export({"tests/data/sequential.sqlite", "tests/data/overlapped.sqlite"}, dir / "t.pftrace"), kExitOk);
  Decoded d = Decode(ReadFile(dir / "t.pftrace"));
  int processes_seq = 0, processes_ovl = 0;
  for (const auto& [uuid, t] : d.tracks) {
    if (t.process_name.starts_with("tests/data/sequential.sqlite")) ++processes_seq;
    if (t.process_name.starts_with("tests/data/overlapped.sqlite")) ++processes_ovl;
  }
  EXPECT_GE(processes_seq, 2);  // host + device
  EXPECT_GE(processes_ovl, 2);
  EXPECT_EQ(d.breaches.Total(), 0) << "each trace's tracks get sequences of their own";
  EXPECT_EQ(d.unclosed + d.unmatched_ends, 0);
}

TEST(PerfettoProto, NamesThatAreNotUtf8AreRepairedAsInTheJson) {
  TempDir dir;
  ASSERT_EQ(testing::WriteFixtureTrace(dir / "f.sqlite", {}), "");
  ASSERT_EQ(Export({dir / "f.sqlite"}, dir / "t.pftrace", dir / "t.json"), kExitOk);
  Decoded d = Decode(ReadFile(dir / "t.pftrace"));
  const std::string repaired = "bad\xEF\xBF\xBD\xEF\xBF\xBD utf8 \xC3\xA9";  // U+FFFD per bad byte
  int64_t hostile = 0;
  for (const Slice& s : d.slices) hostile += s.name.find(repaired) != std::string::npos;
  EXPECT_GT(hostile, 0);
  // Same names as the JSON export, which repairs the same way.
  nlohmann::json json = nlohmann::json::parse(ReadFile(dir / "t.json"));
  std::multiset<std::string> json_kernels, proto_kernels;
  for (const nlohmann::json& e : json["traceEvents"]) {
    if (e.value("cat", "") == "compute") json_kernels.insert(e["name"].get<std::string>());
  }
  for (const Slice& s : d.slices) {
    if (s.category == "compute") proto_kernels.insert(s.name);
  }
  EXPECT_EQ(proto_kernels, json_kernels);
}

TEST(PerfettoProto, AnUnwritableOutputIsAClearErrorAndWritesNothing) {
  TempDir dir;
  std::string err;
  EXPECT_EQ(Export({"tests/data/overlapped.sqlite"}, dir / "no/such/folder/t.pftrace", "", nullptr, &err),
            kExitOutputError);
  EXPECT_NE(err.find("streamscope: export: "), std::string::npos) << err;
  EXPECT_NE(err.find("t.pftrace"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir / "no"));
}

TEST(PerfettoProto, AnExistingFileIsNotReplacedWithoutForce) {
  TempDir dir;
  { std::ofstream(dir / "t.pftrace") << "keep"; }
  std::string err;
  EXPECT_EQ(Export({"tests/data/overlapped.sqlite"}, dir / "t.pftrace", "", nullptr, &err), kExitOutputError);
  EXPECT_EQ(ReadFile(dir / "t.pftrace"), "keep");
}

TEST(PerfettoProto, TheSameFileForTwoOutputsIsAUsageError) {
  TempDir dir;
  EXPECT_EQ(Export({"tests/data/overlapped.sqlite"}, dir / "t.out", dir / "t.out"), kExitUsage);
}

}  // namespace
}  // namespace streamscope
