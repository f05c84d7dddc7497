// ForEachSlice cuts [0, n) into contiguous slices that cover it once, runs
// all but the last on threads of their own, and is done when it returns;
// SliceCount gives one slice under STREAMSCOPE_THREADS=1, for a small n,
// and never more than 8. ForEachTask runs every task once, each worker on
// its own state, and none beyond the core count or under
// STREAMSCOPE_THREADS=1.
#include "analyzer/base/threads.h"

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

TEST(ForEachSlice, SlicesCoverTheRangeOnceInOrder) {
  constexpr size_t kN = 1003;
  for (size_t slices : {size_t{1}, size_t{2}, size_t{3}, size_t{8}}) {
    std::vector<int> hits(kN, 0);
    std::vector<std::pair<size_t, size_t>> bounds(slices);
    const int64_t before = TaskThreads::Started();
    ForEachSlice(kN, slices, [&](size_t slice, size_t begin, size_t end) {
      bounds[slice] = {begin, end};
      for (size_t i = begin; i < end; ++i) ++hits[i];  // each slot is one slice's
    });
    if (ThreadsAllowed()) {
      EXPECT_EQ(TaskThreads::Started() - before, static_cast<int64_t>(slices) - 1);
    }
    EXPECT_EQ(hits, std::vector<int>(kN, 1)) << slices << " slices";
    EXPECT_EQ(bounds.front().first, 0u);
    EXPECT_EQ(bounds.back().second, kN);
    for (size_t s = 0; s + 1 < slices; ++s) EXPECT_EQ(bounds[s].second, bounds[s + 1].first);
  }
}

TEST(ForEachSlice, AllSlicesAreDoneWhenItReturns) {
  std::atomic<int> done{0};
  ForEachSlice(4, 4, [&](size_t, size_t, size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ++done;
  });
  EXPECT_EQ(done.load(), 4);
}

TEST(SliceCount, OneSliceWhenSmallOrWithoutThreads) {
  unsetenv("STREAMSCOPE_THREADS");
  EXPECT_EQ(SliceCount(10, 100), 1u);
  EXPECT_EQ(SliceCount(0, 100), 1u);
  EXPECT_LE(SliceCount(size_t{1} << 40, 1), 8u);
  const size_t cores = std::max(std::thread::hardware_concurrency(), 1u);
  EXPECT_EQ(SliceCount(size_t{1} << 40, 1), std::min<size_t>(8, cores));
  EXPECT_EQ(SliceCount(250, 100), std::min<size_t>(2, cores));  // two whole slices of 100
  setenv("STREAMSCOPE_THREADS", "1", 1);
  EXPECT_EQ(SliceCount(size_t{1} << 40, 1), 1u);
  const int64_t before = TaskThreads::Started();
  ForEachSlice(100, 1, [](size_t, size_t, size_t) {});
  EXPECT_EQ(TaskThreads::Started(), before);
  unsetenv("STREAMSCOPE_THREADS");
}

TEST(ForEachTask, EveryTaskRunsOnceOnAtMostTheWorkersAsked) {
  unsetenv("STREAMSCOPE_THREADS");
  constexpr size_t kTasks = 37;
  const size_t cores = std::max(std::thread::hardware_concurrency(), 1u);
  for (size_t workers : {size_t{1}, size_t{2}, size_t{5}}) {
    std::vector<int> hits(kTasks, 0);
    std::vector<std::vector<size_t>> by_worker(workers);  // each worker's own state
    const int64_t before = TaskThreads::Started();
    ForEachTask(kTasks, workers, [&](size_t worker, size_t task) {
      ASSERT_LT(worker, workers);
      ++hits[task];
      by_worker[worker].push_back(task);
    });
    EXPECT_EQ(TaskThreads::Started() - before, static_cast<int64_t>(std::min(workers, cores)) - 1);
    EXPECT_EQ(hits, std::vector<int>(kTasks, 1)) << workers << " workers";
    for (const std::vector<size_t>& tasks : by_worker) {
      EXPECT_TRUE(std::is_sorted(tasks.begin(), tasks.end())) << "each worker takes the next task not taken";
    }
  }
  // No more workers than tasks; none without tasks.
  const int64_t before = TaskThreads::Started();
  int ran = 0;
  ForEachTask(1, 4, [&](size_t worker, size_t) { ran += worker == 0; });
  ForEachTask(0, 4, [&](size_t, size_t) { ++ran; });
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(TaskThreads::Started(), before);
  setenv("STREAMSCOPE_THREADS", "1", 1);
  ForEachTask(kTasks, 4, [](size_t worker, size_t) { EXPECT_EQ(worker, 0u); });
  EXPECT_EQ(TaskThreads::Started(), before);
  unsetenv("STREAMSCOPE_THREADS");
}

}  // namespace
}  // namespace streamscope
