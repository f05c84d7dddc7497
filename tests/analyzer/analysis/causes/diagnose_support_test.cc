// SharedTime (the contention step's per-op overlapped time) against a
// brute-force count on random ops, windows and devices; and the diagnosis
// reports the contention finding it is given.
#include "analyzer/analysis/causes/diagnose_support.h"

#include <optional>
#include <random>
#include <vector>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/causes/window_detections.h"
#include "analyzer/analysis/overlap_gaps/contention.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::ModelBuilder;

// Time of [s, e) (clipped to the window) during which another op of `op`'s
// device among `ops` (those starting in the window) ran, at unit steps.
int64_t BruteShared(const TraceModel& m, const Window& w, OpIndexRange ops, int32_t op) {
  int64_t s = std::max(m.ops.start_ns[op], w.start_ns), e = std::min(m.ops.end_ns[op], w.end_ns);
  int64_t shared = 0;
  for (int64_t t = s; t < e; ++t) {
    for (int32_t o : ops) {
      if (o == op || m.ops.device_id[o] != m.ops.device_id[op]) continue;
      if (m.ops.start_ns[o] <= t && t < m.ops.end_ns[o]) {
        ++shared;
        break;
      }
    }
  }
  return shared;
}

TEST(DiagnoseSupport, SharedTimeMatchesBruteForceOnRandomOps) {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    ModelBuilder b;
    for (int d = 0; d < 2; ++d) {
      for (int s = 0; s < 3; ++s) b.Stream(10 * d + s + 1, StreamKind::kNonBlocking, d);
    }
    const int n = 5 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      int d = static_cast<int>(rng() % 2), s = static_cast<int>(rng() % 3);
      int64_t start = static_cast<int64_t>(rng() % 200), len = static_cast<int64_t>(rng() % 40);  // zero-length too
      b.Kernel("k", 10 * d + s + 1, start, start + len);
    }
    TraceModel m = b.Build();
    Window w;
    w.start_ns = static_cast<int64_t>(rng() % 60);
    w.end_ns = w.start_ns + 40 + static_cast<int64_t>(rng() % 200);
    const OpIndexRange ops = diagnose_support::OpsStartingIn(m, w);
    std::vector<int64_t> shared = diagnose_support::SharedTime(m, w, ops);
    ASSERT_EQ(shared.size(), ops.size());
    for (size_t k = 0; k < ops.size(); ++k) {
      EXPECT_EQ(shared[k], BruteShared(m, w, ops, ops[k])) << "round " << round << " op " << ops[k];
    }
  }
}

// The ops that start in a window are one run of op indices: the same as
// every op whose start lies in [start, end), on random traces and windows
// (empty, ending before they start, with ops starting at either end).
TEST(DiagnoseSupport, OpsStartingInAWindowAreTheOpsWhoseStartIsInIt) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 200; ++round) {
    ModelBuilder b;
    b.Stream(1, StreamKind::kNonBlocking);
    b.Stream(2, StreamKind::kNonBlocking);
    const int n = static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      const auto start = static_cast<int64_t>(rng() % 100);
      b.Kernel("k", 1 + static_cast<int64_t>(rng() % 2), start, start + static_cast<int64_t>(rng() % 20));
    }
    TraceModel m = b.Build();
    Window w;
    w.start_ns = static_cast<int64_t>(rng() % 110);
    w.end_ns = static_cast<int64_t>(rng() % 110);
    std::vector<int32_t> want;
    for (size_t i = 0; i < m.ops.size(); ++i) {
      if (m.ops.start_ns[i] >= w.start_ns && m.ops.start_ns[i] < w.end_ns) want.push_back(static_cast<int32_t>(i));
    }
    const OpIndexRange got = diagnose_support::OpsStartingIn(m, w);
    std::vector<int32_t> walked;
    for (int32_t op : got) walked.push_back(op);
    ASSERT_EQ(walked, want) << "round " << round;
    ASSERT_EQ(got.size(), want.size());
    ASSERT_EQ(got.empty(), want.empty());
    for (size_t k = 0; k < want.size(); ++k) ASSERT_EQ(got[k], want[k]);
    if (!want.empty()) {
      ASSERT_EQ(got.front(), want.front());
    }
  }
}

TEST(DiagnoseSupport, MedianOfEvenCountIsTheMidpoint) {
  std::vector<int64_t> v = {9, 1, 5, 3};
  EXPECT_EQ(diagnose_support::MedianInPlace(v), 4);
  std::vector<int64_t> empty;
  EXPECT_EQ(diagnose_support::MedianInPlace(empty), 0);
}

TEST(DiagnoseSupport, TheContentionFindingIsTheOneGiven) {
  constexpr int64_t kUs = 1000;
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  // Alone: 300 us; overlapped with a kernel: 900 us.
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, 0, 300 * kUs, ApiTimes{0, 500, 1});
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 1, 400 * kUs, 1300 * kUs,
         ApiTimes{kUs, kUs + 500, 1});
  b.Kernel("k", 2, 400 * kUs, 1300 * kUs, ApiTimes{2 * kUs, 2 * kUs + 500, 1});
  TraceModel m = b.Build();
  Window w;
  w.start_ns = 0;
  w.end_ns = 1300 * kUs;
  std::optional<DiagnoseFinding> contention = AnalyzeContention(m, w, {});
  ASSERT_TRUE(contention.has_value());
  EXPECT_EQ(contention->impact_ns, 600 * kUs);
  const OverlapResult overlap = AnalyzeOverlap(m, w, {});
  const GapCausesResult gaps = AnalyzeGapCauses(m, w, {});
  const HiddenSyncResult hidden = AnalyzeHiddenSync(m, w, {});
  const LaunchStatsResult launch = AnalyzeLaunchStats(m, w, {});
  const WindowDetections detections = FindWindowDetections(m, w);
  auto contention_findings = [&](const std::optional<DiagnoseFinding>& given) {
    std::vector<int64_t> impacts;
    for (const DiagnoseFinding& f :
         AnalyzeDiagnose(m, w, {}, {overlap, gaps, hidden, launch, given, detections}).findings) {
      if (f.cause == DiagnoseCause::kContention) impacts.push_back(f.impact_ns);
    }
    return impacts;
  };
  EXPECT_EQ(contention_findings(contention), std::vector<int64_t>{600 * kUs});
  // The diagnosis does not look for contention itself: none given, none found.
  EXPECT_TRUE(contention_findings(std::nullopt).empty());
}

}  // namespace
}  // namespace streamscope
