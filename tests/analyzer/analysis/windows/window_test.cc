// Window selection: whole trace, NVTX ranges by name and instance, explicit
// times.
#include "analyzer/analysis/windows/window.h"
#include "analyzer/render/window_label.h"

#include <sstream>

#include "gtest/gtest.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::SyntheticTrace;

TraceModel WithRanges() {
  SyntheticTrace t;
  t.Device(0).Stream(1);
  t.Kernel(1, 100, 900);
  t.Api("cudaLaunchKernel", 1, 50, 60);
  t.Nvtx("measured", 300, 400);
  t.Nvtx("other", 60, 80);
  t.Nvtx("measured", 100, 200);
  t.Nvtx("measured", 700, std::nullopt);  // open at capture end
  return t.ToModel();
}

TEST(Window, WholeTraceSpansFirstToLastOpOrApiCall) {
  TraceModel m = WithRanges();
  WindowSpec whole;
  whole.kind = WindowSpec::Kind::kWholeTrace;
  auto w = ResolveWindows(m, whole);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->size(), 1u);
  EXPECT_EQ((*w)[0].start_ns, 50);
  EXPECT_EQ((*w)[0].end_ns, 900);
}

TEST(Window, NvtxNameSelectsEveryInstanceInStartOrder) {
  TraceModel m = WithRanges();
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "measured";
  auto w = ResolveWindows(m, spec);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->size(), 3u);
  EXPECT_EQ((*w)[0].start_ns, 100);
  EXPECT_EQ((*w)[1].start_ns, 300);
  EXPECT_EQ((*w)[2].end_ns, 900);  // open range runs to the trace end
  spec.nvtx_instance = 2;
  auto second = ResolveWindows(m, spec);
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((*second)[0].start_ns, 300);
  EXPECT_EQ((*second)[0].end_ns, 400);
  EXPECT_EQ(WindowLabel((*second)[0]), "NVTX 'measured' #2");
}

TEST(Window, AMissingNvtxInstanceIsOutOfRange) {
  TraceModel m = WithRanges();
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "measured";
  spec.nvtx_instance = 4;
  auto w = ResolveWindows(m, spec);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(w.status().message().find("has 3 instances"), std::string::npos) << w.status();
}

TEST(Window, AnUnknownNvtxNameListsTheNamesThatExist) {
  TraceModel m = WithRanges();
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "nope";
  auto w = ResolveWindows(m, spec);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(w.status().message().find("no NVTX range named 'nope'"), std::string::npos);
  EXPECT_NE(w.status().message().find("measured, other"), std::string::npos) << w.status();
}

TEST(Window, ExplicitTimesAreAbsoluteOrRelativeToTheTraceStart) {
  TraceModel m = WithRanges();
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kExplicit;
  spec.start_ns = 150;
  spec.end_ns = 250;
  auto abs = ResolveWindows(m, spec);
  ASSERT_TRUE(abs.ok());
  EXPECT_EQ((*abs)[0].start_ns, 150);
  spec.relative_to_trace_start = true;
  auto rel = ResolveWindows(m, spec);
  ASSERT_TRUE(rel.ok());
  EXPECT_EQ((*rel)[0].start_ns, 200);
  EXPECT_EQ((*rel)[0].end_ns, 300);
}

TEST(Window, ExplicitTimesOutsideTheTraceAreOutOfRange) {
  TraceModel m = WithRanges();
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kExplicit;
  spec.start_ns = 5000;
  spec.end_ns = 6000;
  EXPECT_EQ(ResolveWindows(m, spec).status().code(), absl::StatusCode::kOutOfRange);
  spec.start_ns = 300;
  spec.end_ns = 300;
  EXPECT_EQ(ResolveWindows(m, spec).status().code(), absl::StatusCode::kOutOfRange);
}

TEST(Window, AWindowReachingOutsideTheTraceIsRefusedWithTheTracesBounds) {
  TraceModel m = WithRanges();  // the whole trace: [50, 900)
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kExplicit;
  spec.relative_to_trace_start = true;
  spec.start_ns = 0;
  spec.end_ns = 999'999'999'999'999;
  auto w = ResolveWindows(m, spec);
  ASSERT_EQ(w.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(w.status().message().find("reaches outside the trace, which spans [+0 ns, +850 ns) from its start "
                                      "([50 ns, 900 ns) on the trace clock); --clip cuts it to them"),
            std::string::npos)
      << w.status();
  spec.relative_to_trace_start = false;  // absolute [0, 100) starts before the trace
  spec.end_ns = 100;
  EXPECT_EQ(ResolveWindows(m, spec).status().code(), absl::StatusCode::kOutOfRange);
}

TEST(Window, ClipCutsAWindowToTheTraceAndSaysSo) {
  TraceModel m = WithRanges();
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kExplicit;
  spec.relative_to_trace_start = true;
  spec.start_ns = 800;
  spec.end_ns = 5000;
  spec.clip = true;
  auto w = ResolveWindows(m, spec);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ((*w)[0].start_ns, 850);
  EXPECT_EQ((*w)[0].end_ns, 900);
  EXPECT_TRUE((*w)[0].origin.clipped);
  EXPECT_EQ(WindowLabel((*w)[0]), "explicit [+800 ns, +5000 ns) clipped to the trace");
  std::ostringstream err;
  NoteClippedWindows(m, *w, err);
  EXPECT_NE(err.str().find("note: the window explicit [+800 ns, +5000 ns) reached outside the trace; --clip cut it "
                           "to [+800 ns, +850 ns) ([850 ns, 900 ns) on the trace clock)"),
            std::string::npos)
      << err.str();
}

TEST(Window, ClipDoesNotMakeAWindowWhollyOutsideTheTraceValid) {
  TraceModel m = WithRanges();
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kExplicit;
  spec.start_ns = 5000;
  spec.end_ns = 6000;
  spec.clip = true;
  auto w = ResolveWindows(m, spec);
  ASSERT_EQ(w.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(w.status().message().find("lies outside the trace, which spans [+0 ns, +850 ns)"), std::string::npos)
      << w.status();
}

TEST(Window, AWindowInsideTheTraceIsNotMarkedClipped) {
  TraceModel m = WithRanges();
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kExplicit;
  spec.start_ns = 50;
  spec.end_ns = 900;
  spec.clip = true;
  auto w = ResolveWindows(m, spec);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_FALSE((*w)[0].origin.clipped);
  EXPECT_EQ(WindowLabel((*w)[0]), "explicit [50 ns, 900 ns)");
}

}  // namespace
}  // namespace streamscope
