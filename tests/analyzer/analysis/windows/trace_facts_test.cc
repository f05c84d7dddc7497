// The whole-trace facts and the walkers that let a window's analysis start
// at its first op: each must see exactly what a walk from op 0 sees.
#include "analyzer/analysis/windows/trace_facts.h"

#include <atomic>
#include <limits>
#include <random>
#include <thread>

#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/causes/launch_stats.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::ApiTimes;
using testing::ModelBuilder;

TraceModel RandomModel(std::mt19937& rng, int streams, int ops) {
  ModelBuilder b;
  for (int s = 0; s < streams; ++s) b.Stream(s + 1, StreamKind::kNonBlocking, s % 2);
  for (int i = 0; i < ops; ++i) {
    int64_t start = static_cast<int64_t>(rng() % 1000), len = static_cast<int64_t>(rng() % 80);
    int s = static_cast<int>(rng() % static_cast<unsigned>(streams));
    if (rng() % 3 == 0) {
      b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, s + 1, start + 1, start + 1 + len);
    } else {
      b.Kernel("k", s + 1, start + 1, start + 1 + len);
    }
  }
  return b.Build();
}

TEST(TraceFacts, WalksFromAnyOpSeeWhatAWalkFromTheFirstOpSees) {
  std::mt19937 rng(11);
  for (int round = 0; round < 30; ++round) {
    TraceModel m = RandomModel(rng, 1 + static_cast<int>(rng() % 4), 1 + static_cast<int>(rng() % 60));
    const size_t n = m.ops.size();
    // Reference: one walk from op 0.
    std::vector<int32_t> prev(n, -1);
    std::vector<int64_t> end_before(n, std::numeric_limits<int64_t>::min());
    {
      std::vector<int32_t> last(m.streams.size(), -1);
      std::vector<int64_t> end(m.streams.size(), std::numeric_limits<int64_t>::min());
      for (size_t i = 0; i < n; ++i) {
        size_t s = static_cast<size_t>(m.ops.stream[i]);
        prev[i] = last[s];
        end_before[i] = end[s];
        last[s] = static_cast<int32_t>(i);
        end[s] = std::max(end[s], m.ops.end_ns[i]);
      }
    }
    for (size_t from = 0; from < n; ++from) {
      StreamPredecessorWalk predecessors(m, from);
      StreamEndWalk ends(m, from);
      for (size_t i = from; i < n; ++i) {
        ASSERT_EQ(predecessors.Next(i), prev[i]) << "round " << round << " from " << from << " op " << i;
        ASSERT_EQ(ends.Next(i), end_before[i]) << "round " << round << " from " << from << " op " << i;
      }
    }
  }
}

TEST(TraceFacts, OpEndsAreInEndThenOpOrder) {
  std::mt19937 rng(3);
  TraceModel m = RandomModel(rng, 3, 50);
  const std::vector<OpEnd>& ends = m.Derived<OpEndsInOrder>().ends;
  ASSERT_EQ(ends.size(), m.ops.size());
  for (size_t k = 0; k < ends.size(); ++k) {
    EXPECT_EQ(ends[k].end, m.ops.end_ns[static_cast<size_t>(ends[k].op)]);
    if (k > 0) {
      EXPECT_TRUE(ends[k - 1] < ends[k]);
    }
  }
}

TEST(TraceFacts, ApiAndOpRangesByStart) {
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking);
  b.Kernel("a", 1, 100, 200, ApiTimes{10, 20, 1});
  b.Kernel("b", 1, 300, 400, ApiTimes{30, 40, 1});
  b.Kernel("c", 1, 300, 500, ApiTimes{50, 60, 1});
  TraceModel m = b.Build();
  EXPECT_EQ(FirstOpStartingAt(m, 0), 0u);
  EXPECT_EQ(FirstOpStartingAt(m, 101), 1u);
  EXPECT_EQ(FirstOpStartingAt(m, 300), 1u);
  EXPECT_EQ(FirstOpStartingAt(m, 301), 3u);
  EXPECT_EQ(ApiStartingIn(m, 30, 50), (std::pair<size_t, size_t>{1, 2}));
  EXPECT_EQ(ApiStartingIn(m, 60, 30), (std::pair<size_t, size_t>{3, 3}));  // empty, never reversed
}

// Counts its constructions; the cache must build it once however many
// threads ask, and again only after Finalize().
std::atomic<int> g_builds{0};
struct CountedFact {
  explicit CountedFact(const TraceModel& m) : ops(m.ops.size()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let the other threads pile up
    ++g_builds;
  }
  size_t ops;
};

TraceModel OneKernelModel() {
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking);
  b.Kernel("a", 1, 100, 200);
  return b.Build();
}

TEST(TraceFacts, CacheBuildsEachFactOnceAcrossThreadsAndAgainAfterFinalize) {
  TraceModel m = OneKernelModel();
  g_builds = 0;
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      if (m.Derived<CountedFact>().ops != 1) ++wrong;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(g_builds.load(), 1);
  EXPECT_EQ(wrong.load(), 0);
  m.ops.start_ns.push_back(300);  // a changed model ...
  m.ops.end_ns.push_back(400);
  m.ops.category.push_back(OpCategory::kKernel);
  m.ops.device_id.push_back(0);
  m.ops.stream.push_back(0);
  m.ops.correlation_id.push_back(-1);
  m.ops.name.push_back(m.ops.name[0]);
  m.ops.bytes.push_back(0);
  m.ops.src_kind.push_back(MemoryKind::kUnknown);
  m.ops.dst_kind.push_back(MemoryKind::kUnknown);
  m.ops.is_async.push_back(1);
  m.ops.peer_device.push_back(-1);
  m.ops.graph_id.push_back(-1);
  m.ops.source_id.push_back(9);
  m.Finalize();  // ... gets fresh facts
  EXPECT_EQ(m.Derived<CountedFact>().ops, 2u);
  EXPECT_EQ(g_builds.load(), 2);
}

TEST(TraceFacts, AForgottenFactIsBuiltAgainOnItsNextUse) {
  TraceModel m = OneKernelModel();
  g_builds = 0;
  m.derived->Forget<CountedFact>();  // never built: nothing to drop
  EXPECT_EQ(m.Derived<CountedFact>().ops, 1u);
  EXPECT_EQ(m.Derived<CountedFact>().ops, 1u);
  EXPECT_EQ(g_builds.load(), 1);
  m.derived->Forget<CountedFact>();
  EXPECT_EQ(m.Derived<CountedFact>().ops, 1u);
  EXPECT_EQ(g_builds.load(), 2);
}

// A window that opens inside a gap: the gap's start and the op that began
// it come from before the window (the earlier of two ops ending together),
// and a device whose ops all come later has no gap before its first op
// except from the window start.
TEST(TraceFacts, GapCausesInALaterWindowKnowTheBusyTimeBeforeIt) {
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking, 0);
  b.Stream(2, StreamKind::kNonBlocking, 0);
  b.Stream(3, StreamKind::kNonBlocking, 1);
  b.Kernel("long", 1, 0, 1000, ApiTimes{0, 5, 1});       // op 0: sets the busy end ...
  b.Kernel("tie", 2, 500, 1000, ApiTimes{6, 8, 1});      // op 1: ... ties it later
  b.Kernel("short", 1, 1000, 1000, ApiTimes{9, 10, 1});  // zero-length: never busy
  b.Kernel("next", 1, 5000, 6000, ApiTimes{4000, 4100, 1});
  b.Kernel("other", 3, 7000, 8000, ApiTimes{6500, 6600, 1});
  TraceModel m = b.Build();
  Window w;
  w.start_ns = 2000;
  w.end_ns = 9000;
  GapCausesOptions o;
  o.max_listed_gaps = 10;
  GapCausesResult r = AnalyzeGapCauses(m, w, o);
  bool found_dev0 = false, found_dev1 = false;
  for (const GapFinding& g : r.worst_gaps) {
    if (g.device_id == 0 && g.next_op >= 0 && m.ops.start_ns[g.next_op] == 5000) {
      found_dev0 = true;
      EXPECT_EQ(g.start_ns, 2000);
      EXPECT_EQ(g.end_ns, 5000);
      EXPECT_EQ(g.prev_op, 0);  // 'long', not 'tie' which ends at the same time
    }
    if (g.device_id == 1 && g.next_op >= 0) {
      found_dev1 = true;
      EXPECT_EQ(g.start_ns, 2000);
      EXPECT_EQ(g.end_ns, 7000);
      EXPECT_EQ(g.prev_op, -1);  // nothing ran on device 1 before
    }
  }
  EXPECT_TRUE(found_dev0);
  EXPECT_TRUE(found_dev1);
  for (const DeviceGapSummary& d : r.devices) {
    if (d.device_id == 0) {
      EXPECT_EQ(d.idle_ns, 3000 + 3000);  // [2000,5000) and [6000,9000)
    }
    if (d.device_id == 1) {
      EXPECT_EQ(d.idle_ns, 5000 + 1000);  // [2000,7000) and [8000,9000)
    }
  }
}

// Launch statistics in a later window still see each kernel's predecessor
// on its stream from before the window (here a copy, which ends the run).
TEST(TraceFacts, LaunchStatsInALaterWindowKnowThePredecessors) {
  ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  b.Kernel("k", 1, 100, 200, ApiTimes{10, 20, 1});
  b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 2, 150, 250, ApiTimes{21, 22, 1});
  b.Kernel("k", 2, 1000, 1100, ApiTimes{30, 40, 1});  // after a copy on its stream: no kernel gap
  b.Kernel("k", 1, 1050, 1150, ApiTimes{50, 60, 1});  // after 'k' at 100-200 on its stream
  TraceModel m = b.Build();
  Window w;
  w.start_ns = 500;
  w.end_ns = 2000;
  LaunchStatsResult r = AnalyzeLaunchStats(m, w, {});
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].count, 2);
  EXPECT_EQ(r.kernels[0].idle_before_count, 1);
  // The GPU idled from the end of the copy (250) to the first start in the
  // window (1000), clipped to the window: 500 ns.
  EXPECT_EQ(r.kernels[0].idle_before_ns, 500);
}

}  // namespace
}  // namespace streamscope
