// The idle-gaps-by-cause track (analyzer/export/gap_cause_tracks.cc): gap
// slices cite their submitting call as every other track cites calls, and
// what the host thread was doing is a nested slice named after it.
#include <string>

#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/export/analysis_adapters.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::us;

// Two kernels launched from thread 7; the host was inside NVTX range
// 'host_prepare' for most of the 90 us gap between them.
TraceModel StarvedModel() {
  testing::ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("k1", 13, us(5), us(15), testing::ApiTimes{us(0), us(2), 7});
  b.Kernel("k2", 13, us(105), us(115), testing::ApiTimes{us(100), us(102), 7});
  b.Nvtx("host_prepare", 7, us(20), us(90), 0);
  return b.Build();
}

const AnalysisTrack& GapTrack(const AnalysisTracks& t) {
  for (const AnalysisTrack& track : t.tracks) {
    if (track.name == "idle gaps (by cause)") return track;
  }
  ADD_FAILURE() << "no gap track";
  return t.tracks.at(0);
}

TEST(GapCauseTracks, AGapCitesItsSubmittingCallLikeTheCriticalPath) {
  TraceModel m = StarvedModel();
  GapCausesResult r = AnalyzeGapCauses(m, Window{0, us(115), {}});
  AnalysisTracks tracks;
  AddGapCauseTracks(m, r, &tracks);
  int cited = 0;
  for (const AnalysisSlice& s : GapTrack(tracks).slices) {
    if (s.depth != 0) continue;
    EXPECT_FALSE(s.args.contains("submitting_call")) << s.args.dump();
    EXPECT_FALSE(s.args.contains("host_tid")) << s.args.dump();
    if (!s.args.contains("call")) continue;
    ++cited;
    std::string call = s.args["call"];
    EXPECT_EQ(call.rfind("call ", 0), 0u) << call;
    EXPECT_NE(call.find(" (thread 7)"), std::string::npos) << call;
  }
  EXPECT_EQ(cited, 1);  // the gap before k2; the one before k1 starts the window
}

TEST(GapCauseTracks, AGapOfOneNamedPartShowsItAsANestedSlice) {
  TraceModel m = StarvedModel();
  GapCausesResult r = AnalyzeGapCauses(m, Window{0, us(115), {}});
  // Keep only the gap's NVTX part, stretched over the whole gap.
  GapFinding* gap = nullptr;
  for (GapFinding& g : r.worst_gaps) {
    if (g.parts.size() > 1) gap = &g;
  }
  ASSERT_NE(gap, nullptr);
  GapPart named;
  for (const GapPart& p : gap->parts) {
    if (p.cause == GapCause::kHostNvtxRange) named = p;
  }
  ASSERT_EQ(named.cause, GapCause::kHostNvtxRange);
  named.start_ns = gap->start_ns;
  named.end_ns = gap->end_ns;
  gap->parts = {named};
  gap->primary = GapCause::kHostNvtxRange;
  AnalysisTracks tracks;
  AddGapCauseTracks(m, r, &tracks);
  int nested = 0;
  for (const AnalysisSlice& s : GapTrack(tracks).slices) {
    EXPECT_FALSE(s.args.contains("detail") || s.args.contains("api_name") || s.args.contains("nvtx_name"))
        << s.args.dump();
    if (s.depth == 1) {
      ++nested;
      EXPECT_EQ(s.name, "host_nvtx_range: host_prepare");
    }
  }
  EXPECT_EQ(nested, 1);
}

}  // namespace
}  // namespace streamscope
