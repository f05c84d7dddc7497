// The flight recorder's slow-step trigger: an instance longer than K times
// the running median of those before it.
#include "collector/slow_step_trigger.h"

#include <gtest/gtest.h>

namespace streamscope::collector {
namespace {

TEST(TriggerSpec, ReadsNameAndFactor) {
  auto t = TriggerSpec::Parse("nvtx:step>2x");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->nvtx_name, "step");
  EXPECT_EQ(t->factor, 2.0);
  EXPECT_EQ(TriggerSpec::Parse("nvtx:train step>1.5x")->ToString(), "nvtx:train step>1.5x");
  for (std::string_view bad :
       {"nvtx:step>2", "nvtx:>2x", "step>2x", "nvtx:step>1x", "nvtx:step>0.5x", "nvtx:step>ax"}) {
    EXPECT_FALSE(TriggerSpec::Parse(bad).ok()) << bad;
  }
}

// Runs instances of `durations` back to back on one thread; returns the
// (1-based) indices that fired.
std::vector<uint64_t> Fired(SlowStepTrigger& trigger, const std::vector<uint64_t>& durations) {
  std::vector<uint64_t> fired;
  uint64_t t = 1000;
  for (uint64_t d : durations) {
    trigger.NvtxPush(1, "step", t);
    trigger.NvtxPush(1, "forward", t + 1);
    trigger.NvtxPop(1, t + 2);
    if (auto s = trigger.NvtxPop(1, t + d)) fired.push_back(s->index);
    t += d + 10;
  }
  return fired;
}

TEST(SlowStepTrigger, OneSlowStepAmongSteadyOnesFires) {
  SlowStepTrigger trigger(*TriggerSpec::Parse("nvtx:step>2x"));
  std::vector<uint64_t> d(200, 100);
  d[150] = 250;
  EXPECT_EQ(Fired(trigger, d), (std::vector<uint64_t>{151}));
}

TEST(SlowStepTrigger, NothingFiresDuringWarmUpOrAtExactlyTheFactor) {
  SlowStepTrigger trigger(*TriggerSpec::Parse("nvtx:step>2x"));
  // A slow first step (compilation) and a step of exactly twice the median.
  EXPECT_TRUE(Fired(trigger, {5000, 100, 100, 100, 100, 100, 200, 100}).empty());
}

TEST(SlowStepTrigger, TheMedianFollowsAChangeOfPace) {
  SlowStepTrigger trigger(*TriggerSpec::Parse("nvtx:step>2x"));
  std::vector<uint64_t> d(300, 100);
  for (size_t i = 100; i < 300; ++i) d[i] = 300;  // the job slows down for good
  std::vector<uint64_t> fired = Fired(trigger, d);
  ASSERT_FALSE(fired.empty());
  EXPECT_LT(fired.back(), 160u) << "once the median has moved, the new pace is normal";
}

TEST(SlowStepTrigger, StartEndInstancesCountToo) {
  SlowStepTrigger trigger(*TriggerSpec::Parse("nvtx:step>3x"));
  for (uint64_t i = 0; i < 10; ++i) {
    trigger.NvtxStart(i, "step", i * 1000);
    EXPECT_FALSE(trigger.NvtxEnd(i, i * 1000 + 100).has_value());
  }
  trigger.NvtxStart(99, "step", 20'000);
  auto s = trigger.NvtxEnd(99, 20'400);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->index, 11u);
  EXPECT_EQ(s->median_ns, 100u);
  EXPECT_EQ(s->start_ns, 20'000u);
}

}  // namespace
}  // namespace streamscope::collector
