// The Perfetto / Chrome trace-event JSON export, checked against the format
// (required fields, well-formed tracks, resolving flows) and against the
// model it came from (counts per category and stream, ids in args).
#include <algorithm>
#include <set>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/export/perfetto_json_writer.h"
#include "analyzer/export/slice_args.h"
#include "analyzer/export/text_escape.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/timeline_window.h"
#include "gtest/gtest.h"
#include "tests/analyzer/export/export_test_util.h"

namespace streamscope {
namespace {

using testing::FixtureOptions;
using testing::LoadFixture;
using testing::Ns;
using testing::ParsedTrace;
using testing::ParseTraceEvents;
using testing::ReadFile;
using testing::TempDir;

struct Exported {
  ParsedTrace trace;
  PerfettoExportStats stats;
};

Exported Export(const TempDir& dir, const TraceModel& model, const Window& window, bool analyses = true,
                const std::string& name = "out.json") {
  AnalysisTracks tracks;
  if (analyses) tracks = AnalyzeForTimeline(model, window).value();
  PerfettoTraceInput input{&model, window, analyses ? &tracks : nullptr, ""};
  auto file = OutputFile::Create(dir / name, false);
  EXPECT_TRUE(file.ok());
  Exported e;
  absl::Status s = WritePerfettoJson({&input, 1}, {}, file->get(), &e.stats);
  EXPECT_TRUE(s.ok()) << s;
  e.trace = ParseTraceEvents(ReadFile(dir / name));
  return e;
}

// Every track holds disjoint or properly nested slices; `strict` tracks
// (GPU streams) only disjoint ones.
void ExpectWellFormedTracks(const ParsedTrace& t) {
  for (const auto& [key, track] : t.tracks) {
    std::vector<std::pair<int64_t, int64_t>> iv;
    for (const nlohmann::json* e : track.slices) iv.push_back({Ns(e->at("ts")), Ns(e->at("ts")) + Ns(e->at("dur"))});
    std::sort(iv.begin(), iv.end(),
              [](auto a, auto b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
    bool strict = track.name.rfind("stream ", 0) == 0;
    std::vector<int64_t> open;
    for (auto [s, e] : iv) {
      while (!open.empty() && open.back() <= s) open.pop_back();
      if (strict && e > s) {
        EXPECT_TRUE(open.empty()) << track.name << ": slice at " << s << " overlaps another";
      }
      if (!open.empty()) {
        EXPECT_LE(e, open.back()) << track.name << ": slice [" << s << ", " << e << ") partially overlaps";
      }
      if (e > s) open.push_back(e);
    }
  }
}

class PerfettoJson : public ::testing::Test {
 protected:
  TempDir dir_;
  TraceModel model_ = LoadFixture(dir_);
  Window whole_ = ExtendToHostItems(model_, WholeTraceWindow(model_));
};

TEST_F(PerfettoJson, EveryEventHasTheRequiredFields) {
  Exported e = Export(dir_, model_, whole_);
  ASSERT_TRUE(e.trace.doc.at("traceEvents").is_array());
  EXPECT_EQ(e.trace.doc.at("displayTimeUnit"), "ns");
  int64_t n = 0;
  for (const nlohmann::json& ev : e.trace.doc.at("traceEvents")) {
    ASSERT_TRUE(ev.contains("ph") && ev.contains("pid") && ev.contains("tid") && ev.contains("name")) << ev;
    ASSERT_TRUE(ev.at("name").is_string());
    ASSERT_TRUE(ev.at("pid").is_number_integer() && ev.at("tid").is_number_integer()) << ev;
    if (ev.at("ph") != "M") {
      ASSERT_TRUE(ev.contains("ts") && ev.at("ts").is_number()) << ev;
      EXPECT_GE(ev.at("ts").get<double>(), 0) << ev;
    }
    if (ev.at("ph") == "X") {
      ASSERT_TRUE(ev.contains("dur") && ev.at("dur").is_number()) << ev;
      EXPECT_GE(ev.at("dur").get<double>(), 0) << ev;
      ASSERT_TRUE(ev.contains("cat")) << ev;
    }
    ++n;
  }
  EXPECT_EQ(n, e.stats.events);
}

TEST_F(PerfettoJson, TimesAreMicrosecondsWithExactNanoseconds) {
  Exported e = Export(dir_, model_, whole_);
  int64_t base = e.trace.doc.at("otherData").at("ts_base_ns");
  EXPECT_EQ(base, e.stats.ts_base_ns);
  // The first H2D starts at kFixtureStartNs (> 2^53 ns): exact after the base.
  const testing::Track* stream13 = e.trace.TracksNamed("stream 13 (non-blocking)").front();
  int64_t first = INT64_MAX;
  for (const nlohmann::json* s : stream13->slices) first = std::min(first, Ns(s->at("ts")));
  EXPECT_EQ(base + first, testing::kFixtureStartNs);
  for (const nlohmann::json* s : stream13->slices) {
    if (s->at("cat") == "H2D") {
      EXPECT_EQ(Ns(s->at("dur")), 20'000);
    }
  }
}

TEST_F(PerfettoJson, ProcessPerDeviceAndTrackPerStreamNamedWithItsKind) {
  Exported e = Export(dir_, model_, whole_);
  std::set<std::string> processes;
  for (auto& [pid, name] : e.trace.process_names) processes.insert(name);
  EXPECT_TRUE(processes.count("GPU 0: NVIDIA H200 (synthetic)"));
  EXPECT_TRUE(processes.count("host process 4242 (pipeline)"));
  EXPECT_EQ(e.trace.TracksNamed("stream 13 (non-blocking)").size(), 1u);
  EXPECT_EQ(e.trace.TracksNamed("stream 14 (non-blocking)").size(), 2u);  // + overflow
  EXPECT_EQ(e.trace.TracksNamed("stream 15 (blocking)").size(), 1u);
  EXPECT_EQ(e.trace.TracksNamed("stream 7").size(), 0u);         // no ops, no track
  EXPECT_EQ(e.trace.TracksNamed("thread 1 (main)").size(), 2u);  // API calls + NVTX
}

TEST_F(PerfettoJson, SlicesNeverPartiallyOverlapOnATrack) {
  Exported e = Export(dir_, model_, whole_);
  ExpectWellFormedTracks(e.trace);
}

TEST_F(PerfettoJson, JitteredOpGoesToAnOverflowTrackAndIsCounted) {
  Exported e = Export(dir_, model_, whole_);
  EXPECT_EQ(e.stats.ops_on_overflow_tracks, 1);
  auto overflow = e.trace.TracksNamed("stream 14 (non-blocking) overflow 1");
  ASSERT_EQ(overflow.size(), 1u);
  ASSERT_EQ(overflow[0]->slices.size(), 1u);
  EXPECT_TRUE(overflow[0]->slices[0]->at("args").at("overlaps_previous_op_on_stream").get<bool>());
  EXPECT_EQ(e.trace.doc.at("otherData").at("ops_on_overflow_tracks"), 1);
}

TEST_F(PerfettoJson, ExportedOpsEqualTheModelPerCategoryAndStream) {
  Exported e = Export(dir_, model_, whole_);
  std::map<std::string, int64_t> model_by_cat, json_by_cat;
  std::map<int64_t, int64_t> model_by_stream, json_by_stream;
  for (size_t i = 0; i < model_.ops.size(); ++i) {
    ++model_by_cat[std::string(OpCategoryName(model_.ops.category[i]))];
    ++model_by_stream[model_.streams[model_.ops.stream[i]].id];
  }
  for (const auto& [key, track] : e.trace.tracks) {
    if (track.name.rfind("stream ", 0) != 0) continue;
    for (const nlohmann::json* s : track.slices) {
      ++json_by_cat[s->at("cat").get<std::string>()];
      ++json_by_stream[s->at("args").at("stream").get<int64_t>()];
    }
  }
  EXPECT_EQ(json_by_cat, model_by_cat);
  EXPECT_EQ(json_by_stream, model_by_stream);
  // Known answers of the fixture: 8 iterations + 1 jittered kernel.
  EXPECT_EQ(json_by_cat["compute"], 9);
  EXPECT_EQ(json_by_cat["H2D"], 8);
  EXPECT_EQ(json_by_cat["D2H"], 8);
  EXPECT_EQ(json_by_cat["memset"], 8);
  EXPECT_EQ(e.stats.ops, 33);
  EXPECT_EQ(e.trace.doc.at("otherData").at("ops_by_category").at("compute"), 9);
}

TEST_F(PerfettoJson, ArgsCarryIdsBytesMemoryKindsAndKernelShape) {
  Exported e = Export(dir_, model_, whole_);
  bool saw_kernel = false, saw_h2d = false;
  for (const auto& [key, track] : e.trace.tracks) {
    for (const nlohmann::json* s : track.slices) {
      const nlohmann::json& a = s->value("args", nlohmann::json::object());
      if (s->at("cat") == "compute" && a.value("source_id", 0) == 2) {
        saw_kernel = true;
        EXPECT_EQ(a.at("table"), "kernel");
        EXPECT_EQ(a.at("stream"), 14);
        EXPECT_EQ(s->at("name"), "vector_add(float*, float*, float*, int)");  // demangled
        EXPECT_EQ(a.at("mangled_name"), "_Z10vector_addPfS_S_i");
        // The streamscope importer does not fill kernel shapes (yet); the
        // next test covers them.
        EXPECT_EQ(a.contains("grid"), model_.kernel_shapes.size() == model_.ops.size());
        EXPECT_GT(a.at("correlation_id").get<int64_t>(), 0);
        EXPECT_EQ(a.at("queue_delay_ns"), 13'000);  // launch ends t-3us, kernel starts t+10us
      }
      if (s->at("cat") == "H2D" && a.value("source_id", 0) == 1) {
        saw_h2d = true;
        EXPECT_EQ(s->at("name"), "memcpy H2D");
        EXPECT_EQ(a.at("table"), "memcpy");
        EXPECT_EQ(a.at("bytes"), 4 << 20);
        EXPECT_EQ(a.at("src_kind"), "pinned");
        EXPECT_EQ(a.at("dst_kind"), "device");
        EXPECT_EQ(a.at("async"), true);
      }
    }
  }
  EXPECT_TRUE(saw_kernel);
  EXPECT_TRUE(saw_h2d);
}

TEST_F(PerfettoJson, KernelShapesOfTheModelAppearInArgs) {
  model_.kernel_shapes.assign(model_.ops.size(), KernelShape{});
  for (size_t i = 0; i < model_.ops.size(); ++i) {
    if (model_.ops.category[i] != OpCategory::kKernel) continue;
    KernelShape& k = model_.kernel_shapes[i];
    k.grid[0] = static_cast<int32_t>(model_.ops.source_id[i]);
    k.grid[1] = 2;
    k.grid[2] = 3;
    k.block[0] = 256;
    k.block[1] = k.block[2] = 1;
    k.registers = 32;
    k.shared_bytes = 1024;
  }
  Exported e = Export(dir_, model_, whole_);
  int kernels = 0;
  for (const auto& [key, track] : e.trace.tracks) {
    for (const nlohmann::json* s : track.slices) {
      if (s->at("cat") != "compute") continue;
      const nlohmann::json& a = s->at("args");
      ++kernels;
      EXPECT_EQ(a.at("grid"), nlohmann::json({a.at("source_id").get<int64_t>(), 2, 3}));
      EXPECT_EQ(a.at("block"), nlohmann::json({256, 1, 1}));
      EXPECT_EQ(a.at("registers"), 32);
      EXPECT_EQ(a.at("shared_bytes"), 1024);
    }
  }
  EXPECT_EQ(kernels, 9);
}

TEST_F(PerfettoJson, HostileKernelNameSurvivesEscaping) {
  Exported e = Export(dir_, model_, whole_);
  std::string expected = nlohmann::json::parse(JsonString(testing::kHostileKernelName)).get<std::string>();
  int found = 0;
  for (const auto& [key, track] : e.trace.tracks) {
    for (const nlohmann::json* s : track.slices) found += s->at("name") == expected ? 1 : 0;
  }
  EXPECT_EQ(found, 1);
  EXPECT_NE(expected.find("\"quoted\" \\back\\slash\\"), std::string::npos);
  EXPECT_NE(expected.find("\xEF\xBF\xBD"), std::string::npos);  // invalid bytes replaced
}

TEST_F(PerfettoJson, EveryFlowStartHasOneMatchingFinishOnTheOpItSubmitted) {
  Exported e = Export(dir_, model_, whole_);
  std::map<int64_t, const nlohmann::json*> starts, ends;
  for (const nlohmann::json* s : e.trace.flow_starts) {
    EXPECT_TRUE(starts.emplace(s->at("id").get<int64_t>(), s).second) << "duplicate flow start " << *s;
  }
  for (const nlohmann::json* f : e.trace.flow_ends) {
    EXPECT_TRUE(ends.emplace(f->at("id").get<int64_t>(), f).second) << "duplicate flow end " << *f;
    EXPECT_EQ(f->at("bp"), "e");
  }
  ASSERT_EQ(starts.size(), ends.size());
  EXPECT_EQ(static_cast<int64_t>(starts.size()), 33);  // every op has its call
  EXPECT_EQ(e.stats.flows, 33);
  for (auto& [id, s] : starts) {
    ASSERT_TRUE(ends.count(id)) << "flow " << id << " never finishes";
    const nlohmann::json* f = ends[id];
    EXPECT_EQ(s->at("cat"), f->at("cat"));
    EXPECT_EQ(s->at("name"), f->at("name"));
    // Each end lies 1 ns inside the start of its slice: the API call on the
    // host track, the op on the stream track.
    auto bound = [&](const nlohmann::json* ev, const std::string& cat_prefix) {
      const testing::Track& t = e.trace.tracks.at({ev->at("pid"), ev->at("tid")});
      int64_t ts = Ns(ev->at("ts"));
      for (const nlohmann::json* x : t.slices) {
        int64_t xs = Ns(x->at("ts")), xe = xs + Ns(x->at("dur"));
        if (ts == xs + 1 && ts < xe && x->at("cat").get<std::string>().rfind(cat_prefix, 0) == 0) return true;
      }
      return false;
    };
    EXPECT_TRUE(bound(s, "cuda_runtime")) << *s;
    EXPECT_TRUE(bound(f, "")) << *f;
    EXPECT_LT(Ns(s->at("ts")), Ns(f->at("ts")));
  }
}

TEST_F(PerfettoJson, ApiCallsNestAndNvtxRangesSitOnTheirOwnTrack) {
  Exported e = Export(dir_, model_, whole_);
  EXPECT_EQ(e.stats.api_calls, 8 * 5 + 1 + 1);
  EXPECT_EQ(e.stats.nvtx_ranges, 1 + 8);
  EXPECT_EQ(e.stats.nvtx_marks, 2);
  EXPECT_EQ(e.stats.host_slices_clipped, 0);
  auto nvtx = e.trace.TracksNamed("thread 1 (main) NVTX");
  ASSERT_EQ(nvtx.size(), 1u);
  EXPECT_EQ(nvtx[0]->slices.size(), 9u);
  int marks = 0;
  for (const nlohmann::json* i : e.trace.instants) {
    if (i->at("cat") == "nvtx_mark") {
      ++marks;
      EXPECT_EQ(i->at("args").at("domain"), "streamscope");
    }
  }
  EXPECT_EQ(marks, 2);
}

TEST_F(PerfettoJson, AnalysisTracksShowOverlapAndGapsByCause) {
  Exported e = Export(dir_, model_, whole_);
  auto overlap = e.trace.TracksNamed("overlap compute|H2D");
  ASSERT_EQ(overlap.size(), 1u);
  ASSERT_EQ(overlap[0]->slices.size(), 8u);  // one 10 us interval per iteration
  for (const nlohmann::json* s : overlap[0]->slices) {
    EXPECT_EQ(Ns(s->at("dur")), 10'000);
    EXPECT_EQ(s->at("args").at("ops_total"), 2);
  }
  auto gaps = e.trace.TracksNamed("idle gaps (by cause)");
  ASSERT_EQ(gaps.size(), 1u);
  int top_level = 0;
  for (const nlohmann::json* s : gaps[0]->slices) {
    if (s->at("name").get<std::string>().rfind("gap: ", 0) == 0) {
      ++top_level;
      EXPECT_TRUE(s->at("args").contains("cause"));
      EXPECT_TRUE(s->contains("cname"));
    }
  }
  EXPECT_GE(top_level, 7);  // at least the 28 us gap after each iteration's memset
  EXPECT_GT(e.stats.analysis_slices, 8);
}

TEST_F(PerfettoJson, WithoutAnalysesOnlyTheTraceIsExported) {
  Exported e = Export(dir_, model_, whole_, false);
  EXPECT_TRUE(e.trace.TracksNamed("overlap").empty());
  EXPECT_EQ(e.stats.analysis_slices, 0);
  EXPECT_EQ(e.stats.ops, 33);
}

TEST_F(PerfettoJson, NvtxWindowExportsOnlyItsOps) {
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "iteration";
  spec.nvtx_instance = 2;
  auto w = ResolveExportWindow(model_, spec);
  ASSERT_TRUE(w.ok()) << w.status();
  Exported e = Export(dir_, model_, *w);
  EXPECT_EQ(e.stats.ops, 4);
  EXPECT_EQ(e.stats.flows, 4);
  ExpectWellFormedTracks(e.trace);
}

TEST_F(PerfettoJson, AllInstancesOfAnNvtxRangeGiveTheirSpan) {
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "iteration";
  auto w = ResolveExportWindow(model_, spec);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->start_ns, testing::kFixtureStartNs - 8'000);
  EXPECT_EQ(w->end_ns, testing::kFixtureStartNs + 7 * testing::kFixtureIterationNs + 90'000);
}

TEST_F(PerfettoJson, MaxOpsCutsTheWindowAfterTheFirstOps) {
  Window cut = CapWindowToOps(model_, whole_, 10);
  EXPECT_LT(cut.end_ns, whole_.end_ns);
  Exported e = Export(dir_, model_, cut);
  EXPECT_EQ(e.stats.ops, 10);
  EXPECT_EQ(CapWindowToOps(model_, whole_, -1).end_ns, whole_.end_ns);
  EXPECT_EQ(CapWindowToOps(model_, whole_, 1000).end_ns, whole_.end_ns);
}

TEST_F(PerfettoJson, UnknownNvtxRangeIsAnOutOfRangeError) {
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "nope";
  EXPECT_EQ(ResolveExportWindow(model_, spec).status().code(), absl::StatusCode::kOutOfRange);
}

TEST(PerfettoJsonHiddenSync, MarkersCarryTheirExplanation) {
  TempDir dir;
  TraceModel model = LoadFixture(dir, {.iterations = 2, .jitter = false, .legacy_tail = true});
  Window w = ExtendToHostItems(model, WholeTraceWindow(model));
  Exported e = Export(dir, model, w);
  ExpectWellFormedTracks(e.trace);
  int serialization = 0, implicit = 0;
  for (const nlohmann::json* i : e.trace.instants) {
    if (i->at("cat") != "sync") continue;
    std::string explanation = i->at("args").at("explanation");
    if (i->at("args").contains("direction")) {
      ++serialization;
      EXPECT_EQ(i->at("args").at("direction"), "blocking_waited_for_legacy");
      EXPECT_NE(explanation.find("was ready"), std::string::npos) << explanation;
      EXPECT_EQ(e.trace.tracks.at({i->at("pid"), i->at("tid")}).name, "hidden syncs");
    } else {
      ++implicit;
      EXPECT_EQ(i->at("name"), "implicit sync: cudaMemcpy");
      EXPECT_NE(explanation.find("held the host thread"), std::string::npos) << explanation;
      EXPECT_EQ(i->at("tid"), 1);  // on the calling thread's track
    }
  }
  EXPECT_EQ(serialization, 1);
  EXPECT_EQ(implicit, 1);
  EXPECT_EQ(e.stats.ops, 8 + 3);
}

TEST(PerfettoJsonMulti, SeveralTracesGetTheirOwnProcesses) {
  TempDir dir;
  TraceModel a = LoadFixture(dir, {}, "a.sqlite");
  TraceModel b = LoadFixture(dir, {.iterations = 2, .jitter = false}, "b.sqlite");
  PerfettoTraceInput inputs[] = {{&a, WholeTraceWindow(a), nullptr, "control"},
                                 {&b, WholeTraceWindow(b), nullptr, "variant"}};
  auto file = OutputFile::Create(dir / "multi.json", false);
  ASSERT_TRUE(file.ok());
  PerfettoExportStats stats;
  ASSERT_TRUE(WritePerfettoJson(inputs, {}, file->get(), &stats).ok());
  ParsedTrace t = ParseTraceEvents(ReadFile(dir / "multi.json"));
  EXPECT_EQ(stats.ops, 33 + 8);
  std::set<std::string> names;
  for (auto& [pid, n] : t.process_names) names.insert(n);
  EXPECT_TRUE(names.count("control: GPU 0: NVIDIA H200 (synthetic)"));
  EXPECT_TRUE(names.count("variant: GPU 0: NVIDIA H200 (synthetic)"));
  EXPECT_EQ(t.process_names.size(), 4u);
  ExpectWellFormedTracks(t);
}

}  // namespace
}  // namespace streamscope

namespace streamscope {
namespace {

// The recorded reference workloads (tests/data, recorded on an H200).
class PerfettoJsonRecorded : public ::testing::TestWithParam<const char*> {};

TEST_P(PerfettoJsonRecorded, ExportMatchesTheTraceAndIsWellFormed) {
  std::string path = std::string("tests/data/") + GetParam() + ".sqlite";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present";
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& model = models->front();
  TempDir dir;
  Window w = ExtendToHostItems(model, WholeTraceWindow(model));
  Exported e = Export(dir, model, w);
  ExpectWellFormedTracks(e.trace);
  std::map<std::string, int64_t> model_by_cat, json_by_cat;
  for (size_t i = 0; i < model.ops.size(); ++i) ++model_by_cat[std::string(OpCategoryName(model.ops.category[i]))];
  for (const auto& [key, track] : e.trace.tracks) {
    if (track.name.rfind("stream ", 0) != 0) continue;
    for (const nlohmann::json* s : track.slices) ++json_by_cat[s->at("cat").get<std::string>()];
  }
  EXPECT_EQ(json_by_cat, model_by_cat);
  EXPECT_EQ(e.stats.ops, static_cast<int64_t>(model.ops.size()));
  EXPECT_EQ(e.trace.flow_starts.size(), e.trace.flow_ends.size());
  int64_t with_call = 0;
  for (size_t i = 0; i < model.ops.size(); ++i) with_call += model.ApiForOp(i) >= 0 ? 1 : 0;
  EXPECT_EQ(e.stats.flows, with_call);
  if (std::string(GetParam()) == "overlapped") {
    EXPECT_FALSE(e.trace.TracksNamed("overlap compute|H2D").empty());
  }
  if (std::string(GetParam()) == "sequential") {
    EXPECT_TRUE(e.trace.TracksNamed("overlap compute|H2D").empty());
  }
}

// Tracks that make their slices while written (the Perfetto-only export)
// make the slices the held tracks hold, in the same order, and hold none.
TEST_P(PerfettoJsonRecorded, ProducedTracksMakeTheHeldSlices) {
  std::string path = std::string("tests/data/") + GetParam() + ".sqlite";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present";
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& model = models->front();
  const Window w = WholeTraceWindow(model);
  const AnalysisTracks held = AnalyzeForTimeline(model, w).value();
  const AnalysisTracks produced = AnalyzeForTimeline(model, w, 200'000, nullptr, true).value();
  ASSERT_EQ(held.tracks.size(), produced.tracks.size());
  EXPECT_EQ(held.findings.size(), produced.findings.size());
  EXPECT_EQ(held.gap_lengths_ns, produced.gap_lengths_ns);
  int lazy = 0;
  for (size_t k = 0; k < held.tracks.size(); ++k) {
    const AnalysisTrack &a = held.tracks[k], &b = produced.tracks[k];
    EXPECT_EQ(a.name, b.name);
    if (b.produce) {
      ++lazy;
      EXPECT_TRUE(b.slices.empty()) << b.name;
    }
    std::vector<AnalysisSlice> copies;
    copies.reserve(a.slices.size() + 16);
    b.ForEachSlice([&](const AnalysisSlice& s) { copies.push_back(s); });
    ASSERT_EQ(copies.size(), a.slices.size()) << a.name;
    for (size_t i = 0; i < copies.size(); ++i) {
      EXPECT_EQ(copies[i].name, a.slices[i].name) << a.name << " " << i;
      EXPECT_EQ(copies[i].start_ns, a.slices[i].start_ns);
      EXPECT_EQ(copies[i].end_ns, a.slices[i].end_ns);
      EXPECT_EQ(copies[i].depth, a.slices[i].depth);
      EXPECT_EQ(copies[i].cause, a.slices[i].cause);
      // Produced slices hold their args typed; worded, the held ones' JSON.
      EXPECT_TRUE(a.slices[i].typed_args.empty());
      EXPECT_EQ(SliceArgsJson(model, copies[i]), a.slices[i].args) << a.name << " " << i;
    }
  }
  EXPECT_GT(lazy, 0) << "expected the critical path (and gaps) to be produced";
}

INSTANTIATE_TEST_SUITE_P(Workloads, PerfettoJsonRecorded,
                         ::testing::Values("overlapped", "sequential", "legacy_default", "implicit_sync",
                                           "concurrent_kernels", "launch_graph"));

}  // namespace
}  // namespace streamscope
