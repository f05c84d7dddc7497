// Capture ranges: which edges open and close windows, and which times the
// windows keep.
#include "collector/capture_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "collector/capture_switch.h"

namespace streamscope::collector {
namespace {

using Edge = CaptureGate::Edge;

CaptureRange Range(std::string_view spec) {
  StatusOr<CaptureRange> r = ParseCaptureRange(spec);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : CaptureRange{};
}

TEST(CaptureRangeSpec, ReadsEachFormAndWritesItBack) {
  EXPECT_EQ(Range("").kind, CaptureRange::Kind::kWhole);
  EXPECT_EQ(Range("cudaProfilerApi").kind, CaptureRange::Kind::kProfilerApi);
  CaptureRange r = Range("nvtx:step@100-110");
  EXPECT_EQ(r.nvtx_name, "step");
  EXPECT_EQ(r.first, 100u);
  EXPECT_EQ(r.last, 110u);
  for (std::string_view s : {"whole", "cudaProfilerApi", "nvtx:step", "nvtx:train step@3", "nvtx:a@b@2-5"}) {
    EXPECT_EQ(Range(s).ToString(), s);
  }
}

TEST(CaptureRangeSpec, RefusesWhatItCannotRead) {
  for (std::string_view s : {"nvtx:", "nvtx:step@", "nvtx:step@0-3", "nvtx:step@5-3", "nvtx:step@x", "profiler"}) {
    EXPECT_FALSE(ParseCaptureRange(s).ok()) << s;
  }
}

TEST(CaptureGate, WholeCaptureKeepsEverythingUntilStoppedFromOutside) {
  CaptureGate g(Range("whole"), 100);
  EXPECT_TRUE(g.on());
  EXPECT_TRUE(g.Keeps(5)) << "before the first switch every record is kept";
  EXPECT_EQ(g.ExternalStop(500), Edge::kOff);
  EXPECT_EQ(g.ExternalStop(550), Edge::kNone);
  EXPECT_TRUE(g.Keeps(499));
  EXPECT_FALSE(g.Keeps(500));
  EXPECT_EQ(g.ExternalStart(700), Edge::kOn);
  EXPECT_TRUE(g.Keeps(800));
  EXPECT_EQ(g.WindowsJson(), "[[100,500],[700,null]]");
}

TEST(CaptureGate, StartedPausedKeepsNothingUntilStarted) {
  CaptureRange r;
  r.start_paused = true;
  CaptureGate g(r, 100);
  EXPECT_FALSE(g.on());
  EXPECT_FALSE(g.Keeps(150));
  EXPECT_EQ(g.ExternalStart(200), Edge::kOn);
  EXPECT_EQ(g.ExternalStop(300), Edge::kOff);
  EXPECT_FALSE(g.Keeps(199));
  EXPECT_TRUE(g.Keeps(250));
  EXPECT_FALSE(g.Keeps(300));
}

TEST(CaptureGate, ProfilerApiRangeIsBetweenStartAndStop) {
  CaptureGate g(Range("cudaProfilerApi"), 0);
  EXPECT_FALSE(g.on()) << "nothing before cudaProfilerStart";
  EXPECT_EQ(g.ProfilerStop(10), Edge::kNone);
  EXPECT_EQ(g.ProfilerStart(100), Edge::kOn);
  EXPECT_EQ(g.ProfilerStart(120), Edge::kNone) << "a second start has no effect, as in CUDA";
  EXPECT_EQ(g.ProfilerStop(200), Edge::kOff);
  EXPECT_EQ(g.ProfilerStart(300), Edge::kOn);
  EXPECT_EQ(g.ProfilerStop(400), Edge::kOff);
  EXPECT_EQ(g.WindowsJson(), "[[100,200],[300,400]]");
  EXPECT_FALSE(g.Keeps(250));
  EXPECT_EQ(g.NvtxPush(1, "step", 500), Edge::kNone) << "NVTX does not move a profiler-API range";
}

TEST(CaptureGate, NvtxInstancesFirstToLastAreOneWindow) {
  CaptureGate g(Range("nvtx:step@3-4"), 0);
  uint64_t t = 0;
  std::vector<Edge> edges;
  for (int i = 1; i <= 6; ++i) {
    edges.push_back(g.NvtxPush(7, "step", t += 10));
    edges.push_back(g.NvtxPush(7, "forward", t += 1));  // other ranges inside do not count
    edges.push_back(g.NvtxPop(7, t += 1));
    edges.push_back(g.NvtxPop(7, t += 8));
  }
  // Instance i is pushed at 20i - 10 and popped at 20i: 3 starts at 50, 4 ends at 80.
  EXPECT_EQ(g.WindowsJson(), "[[50,80]]");
  EXPECT_EQ(std::count(edges.begin(), edges.end(), Edge::kOn), 1);
  EXPECT_EQ(std::count(edges.begin(), edges.end(), Edge::kOff), 1);
  EXPECT_EQ(g.instances(), 6u);
  EXPECT_FALSE(g.Keeps(49));
  EXPECT_TRUE(g.Keeps(75)) << "the gap between instances 3 and 4 is inside the window";
}

TEST(CaptureGate, EveryInstanceIsAWindowAndNestedInstancesArePartOfTheirParent) {
  CaptureGate g(Range("nvtx:step"), 0);
  EXPECT_EQ(g.NvtxPush(1, "step", 10), Edge::kOn);
  EXPECT_EQ(g.NvtxPush(1, "step", 12), Edge::kNone);
  EXPECT_EQ(g.NvtxPop(1, 14), Edge::kNone);
  EXPECT_EQ(g.NvtxPop(1, 20), Edge::kOff);
  EXPECT_EQ(g.NvtxPop(1, 25), Edge::kNone) << "a pop of a push made before recording";
  EXPECT_EQ(g.NvtxStart(99, "step", 30), Edge::kOn) << "start/end ranges count too";
  EXPECT_EQ(g.NvtxEnd(99, 40), Edge::kOff);
  EXPECT_EQ(g.WindowsJson(), "[[10,20],[30,40]]");
  EXPECT_EQ(g.instances(), 2u);
}

TEST(CaptureGate, InstancesOnTwoThreadsKeepTheWindowOpenUntilBothEnd) {
  CaptureGate g(Range("nvtx:step"), 0);
  EXPECT_EQ(g.NvtxPush(1, "step", 10), Edge::kOn);
  EXPECT_EQ(g.NvtxPush(2, "step", 15), Edge::kNone);
  EXPECT_EQ(g.NvtxPop(1, 20), Edge::kNone);
  EXPECT_EQ(g.NvtxPop(2, 30), Edge::kOff);
  EXPECT_EQ(g.WindowsJson(), "[[10,30]]");
}

TEST(CaptureGate, WindowOpensInFindsAWindowStartingJustAfterATime) {
  std::vector<CaptureWindow> w = {{100, 200}, {500, 600}};
  EXPECT_TRUE(CaptureGate::WindowOpensIn(w, 95, 100));
  EXPECT_TRUE(CaptureGate::WindowOpensIn(w, 450, 550));
  EXPECT_FALSE(CaptureGate::WindowOpensIn(w, 101, 499));
  EXPECT_FALSE(CaptureGate::WindowOpensIn(w, 601, 10000));
}

TEST(CaptureGate, OverlapsIsAnyTimeInCommonWithAWindow) {
  std::vector<CaptureWindow> w = {{100, 200}, {500, 600}};
  EXPECT_TRUE(CaptureGate::Overlaps(w, 90, 100)) << "ends as a window opens";
  EXPECT_TRUE(CaptureGate::Overlaps(w, 150, 160));
  EXPECT_TRUE(CaptureGate::Overlaps(w, 0, 10000));
  EXPECT_FALSE(CaptureGate::Overlaps(w, 90, 99));
  EXPECT_FALSE(CaptureGate::Overlaps(w, 200, 499)) << "windows are [on, off)";
}

TEST(CaptureGate, WindowsBeyondTheLimitAreCounted) {
  CaptureGate g(Range("cudaProfilerApi"), 0);
  for (uint64_t i = 0; i < 5; ++i) {
    g.ProfilerStart(i * 10);
    g.ProfilerStop(i * 10 + 5);
  }
  EXPECT_EQ(g.WindowsJson(2), "[[0,5],[10,15],{\"more\":3}]");
}

TEST(CaptureSwitch, OpeningWaitsForTheKindsAndClosingDoesNot) {
  std::atomic<int> applied_on{0}, applied_off{0};
  CaptureSwitch sw(false, [&](bool on) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // CUPTI taking its time
    (on ? applied_on : applied_off)++;
  });
  sw.Request(true, std::chrono::milliseconds(5000));
  EXPECT_EQ(applied_on.load(), 1) << "the opening thread waited for the kinds";
  EXPECT_TRUE(sw.on());
  sw.Request(true, std::chrono::milliseconds(5000));
  EXPECT_EQ(applied_on.load(), 1) << "already on: nothing to apply";
  sw.Request(false, std::chrono::milliseconds(0));
  sw.Stop();  // applies what was asked before it
  EXPECT_EQ(applied_off.load(), 1);
  EXPECT_FALSE(sw.on());
  EXPECT_EQ(sw.switches(), 2);
}

}  // namespace
}  // namespace streamscope::collector
