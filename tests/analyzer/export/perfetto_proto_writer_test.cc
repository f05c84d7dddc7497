// `export --perfetto-proto`: the written file is decoded back with the
// classes generated from analyzer/export/perfetto_trace.proto and replayed
// the way trace_processor does (per track, BEGIN pushes, END pops), then
// checked against the model of a bundled real trace: every op exactly once
// on its stream's track with its exact start and duration, the analysis
// tracks, flows from each API call to its op, interning and incremental
// state.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/analysis/window.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/export_runner.h"
#include "analyzer/export/timeline_window.h"
#include "analyzer/export/perfetto_trace.pb.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/export/export_fixture_trace.h"

namespace streamscope {
namespace {

namespace pp = perfetto::protos;

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("streamscope_proto_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// An annotation value, flattened for the checks.
struct Arg {
  int64_t i = 0;
  std::string s;
  std::vector<int64_t> array;
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

// The decoded file, with interned strings resolved and slices paired.
struct Decoded {
  std::map<uint64_t, TrackInfo> tracks;
  std::vector<Slice> slices;
  int64_t ts_base_ns = 0;
  int64_t packets = 0;
  bool first_clears_state = false;
  bool every_iid_defined_before_use = true;
  int64_t duplicate_interned_names = 0;
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

Decoded Decode(const std::string& bytes) {
  pp::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(bytes)) << "not a Trace message";
  Decoded d;
  std::map<uint64_t, std::string> names, cats, keys, values;
  struct Event {
    int64_t ts;
    size_t order;
    const pp::TrackEvent* e;
  };
  std::vector<Event> events;
  for (const pp::TracePacket& p : trace.packet()) {
    if (d.packets == 0) {
      d.first_clears_state = (p.sequence_flags() & pp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED) != 0;
    }
    ++d.packets;
    EXPECT_EQ(p.trusted_packet_sequence_id(), 1u);
    const pp::InternedData& in = p.interned_data();
    for (const auto& n : in.event_names()) d.duplicate_interned_names += !names.emplace(n.iid(), n.name()).second;
    for (const auto& n : in.event_categories()) cats.emplace(n.iid(), n.name());
    for (const auto& n : in.debug_annotation_names()) keys.emplace(n.iid(), n.name());
    for (const auto& n : in.debug_annotation_string_values()) values.emplace(n.iid(), n.str());
    if (p.has_track_descriptor()) {
      const pp::TrackDescriptor& t = p.track_descriptor();
      TrackInfo& info = d.tracks[t.uuid()];
      info.name = t.has_thread() ? t.thread().thread_name() : t.name();
      info.parent = t.parent_uuid();
      if (t.has_process()) info.process_name = t.process().process_name();
    }
    if (p.has_track_event()) {
      const pp::TrackEvent& e = p.track_event();
      // Interned references must resolve with what came before (or with).
      if (e.has_name_iid() && !names.contains(e.name_iid())) d.every_iid_defined_before_use = false;
      for (const auto& a : e.debug_annotations()) {
        if (!keys.contains(a.name_iid())) d.every_iid_defined_before_use = false;
        if (a.has_string_value_iid() && !values.contains(a.string_value_iid())) d.every_iid_defined_before_use = false;
      }
      events.push_back({static_cast<int64_t>(p.timestamp()), events.size(), &e});
    }
  }
  // trace_processor sorts by timestamp; packets of one sequence keep their
  // order on ties.
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.ts < b.ts; });
  std::map<uint64_t, std::vector<size_t>> open;  // track -> open slice indices
  for (const Event& ev : events) {
    const pp::TrackEvent& e = *ev.e;
    if (e.type() == pp::TrackEvent::TYPE_SLICE_END) {
      std::vector<size_t>& stack = open[e.track_uuid()];
      if (stack.empty()) {
        ++d.unmatched_ends;
        continue;
      }
      d.slices[stack.back()].dur = ev.ts - d.slices[stack.back()].ts;
      stack.pop_back();
      continue;
    }
    Slice s;
    s.track = e.track_uuid();
    s.ts = ev.ts;
    s.name = names[e.name_iid()];
    if (e.category_iids_size() > 0) s.category = cats[e.category_iids(0)];
    for (const auto& a : e.debug_annotations()) {
      Arg v;
      v.i = a.has_uint_value() ? static_cast<int64_t>(a.uint_value()) : a.has_bool_value() ? a.bool_value() : a.int_value();
      v.s = a.has_string_value_iid() ? values[a.string_value_iid()] : a.string_value();
      if (a.has_legacy_json_value()) v.s = a.legacy_json_value();
      for (const auto& x : a.array_values()) v.array.push_back(x.int_value());
      s.args[keys[a.name_iid()]] = v;
    }
    s.flows.assign(e.flow_ids().begin(), e.flow_ids().end());
    if (e.type() == pp::TrackEvent::TYPE_SLICE_BEGIN) open[s.track].push_back(d.slices.size());
    if (s.name == "streamscope export") d.ts_base_ns = s.args["ts_base_ns"].i;
    d.slices.push_back(std::move(s));
  }
  for (auto& [track, stack] : open) d.unclosed += static_cast<int64_t>(stack.size());
  return d;
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

TEST(PerfettoProto, EveryOpOfRealTracesIsOneSliceOnItsStreamWithExactTimes) {
  for (const std::string& path : kRealTraces) {
    SCOPED_TRACE(path);
    TempDir dir;
    std::string out;
    ASSERT_EQ(Export({path}, dir / "t.pftrace", "", &out), kExitOk) << out;
    Decoded d = Decode(ReadFile(dir / "t.pftrace"));
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
  int checked = 0;
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
    }
    ++checked;
  }
  EXPECT_GE(checked, 2) << "expected gap and hidden-sync tracks in legacy_default";
  std::set<std::string> names;
  for (const auto& [uuid, t] : d.tracks) names.insert(t.name);
  EXPECT_TRUE(names.contains("idle gaps (by cause)"));
  EXPECT_TRUE(names.contains("hidden syncs"));
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
    const std::vector<const Slice*>& slices = by_op[{std::string(OpCategoryName(m.ops.category[i])), m.ops.source_id[i]}];
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

TEST(PerfettoProto, NamesAreInternedOnceAndTheFirstPacketClearsIncrementalState) {
  TempDir dir;
  ASSERT_EQ(Export({"tests/data/overlapped.sqlite"}, dir / "t.pftrace"), kExitOk);
  Decoded d = Decode(ReadFile(dir / "t.pftrace"));
  EXPECT_TRUE(d.first_clears_state);
  EXPECT_TRUE(d.every_iid_defined_before_use);
  EXPECT_EQ(d.duplicate_interned_names, 0);
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
    ASSERT_EQ(s.args.at("block").array.size(), 3u);
    EXPECT_EQ(s.args.at("block").array[0], 256);
    EXPECT_GT(s.args.at("grid").array[0], 0);
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
