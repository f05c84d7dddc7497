#include "analyzer/intervals/interval_set.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

TEST(IntervalSet, NormalizeMergesOverlappingAndTouchingAndDropsEmpty) {
  IntervalList got = Normalize({{30, 40}, {0, 10}, {10, 20}, {5, 7}, {50, 50}, {35, 45}});
  IntervalList want = {{0, 20}, {30, 45}};
  EXPECT_EQ(got, want);
}

TEST(IntervalSet, NormalizeKeepsNoRoomForIntervalsMergedAway) {
  IntervalList many;
  for (int64_t i = 0; i < 1000; ++i) many.push_back({i, i + 2});
  IntervalList got = Normalize(std::move(many));
  EXPECT_EQ(got, (IntervalList{{0, 1001}}));
  EXPECT_LT(got.capacity(), 1000u);
}

TEST(IntervalSet, SortedUnionOfIntervalsInStartOrder) {
  SortedUnion u;
  for (Interval x : {Interval{0, 10}, {5, 7}, {10, 20}, {20, 20}, {30, 40}, {35, 45}, {45, 46}}) u.Add(x);
  EXPECT_EQ(u.Take(), (IntervalList{{0, 20}, {30, 46}}));
  EXPECT_TRUE(u.Take().empty()) << "empty after Take";
  u.Add({3, 4});
  EXPECT_EQ(u.Take(), (IntervalList{{3, 4}})) << "used again";
}

TEST(IntervalSet, SortedUnionTakesIntervalsOutOfOrderToo) {
  SortedUnion u;
  for (Interval x : {Interval{30, 40}, {0, 10}, {10, 20}, {5, 7}, {50, 50}, {35, 45}, {60, 70}}) u.Add(x);
  EXPECT_EQ(u.Take(), (IntervalList{{0, 20}, {30, 45}, {60, 70}}));
}

// Random lists, in start order or shuffled (in part or in all), with
// overlapping, touching, nested and empty intervals: the same as Normalize.
TEST(IntervalSet, SortedUnionMatchesNormalizeOnRandomLists) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    IntervalList list;
    const size_t n = rng() % 60;
    for (size_t i = 0; i < n; ++i) {
      const auto start = static_cast<int64_t>(rng() % 100);
      list.push_back({start, start + static_cast<int64_t>(rng() % 12) - 2});
    }
    std::sort(list.begin(), list.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    if (round % 3 == 1 && n > 1) std::swap(list[rng() % n], list[rng() % n]);
    if (round % 3 == 2) std::shuffle(list.begin(), list.end(), rng);
    SortedUnion u;
    for (const Interval& x : list) u.Add(x);
    ASSERT_EQ(u.Take(), Normalize(list)) << "round " << round;
  }
}

TEST(IntervalSet, IntersectKeepsOnlySharedTime) {
  IntervalList a = {{0, 10}, {20, 30}};
  IntervalList b = {{5, 25}};
  IntervalList want = {{5, 10}, {20, 25}};
  EXPECT_EQ(Intersect(a, b), want);
  IntervalList touching = {{10, 20}};
  EXPECT_TRUE(Intersect(IntervalList{{0, 10}}, touching).empty());
}

TEST(IntervalSet, SubtractAndComplementLeaveTheGaps) {
  IntervalList busy = {{10, 20}, {30, 40}};
  IntervalList want = {{0, 10}, {20, 30}, {40, 50}};
  EXPECT_EQ(Complement(busy, {0, 50}), want);
  IntervalList want2 = {{20, 25}};
  EXPECT_EQ(Complement(busy, {15, 25}), want2);
  EXPECT_TRUE(Complement(busy, {12, 18}).empty());
  IntervalList a = {{0, 100}};
  IntervalList b = {{0, 10}, {90, 100}};
  IntervalList want3 = {{10, 90}};
  EXPECT_EQ(Subtract(a, b), want3);
}

TEST(IntervalSet, ClipCutsOpsCrossingTheWindowBorder) {
  IntervalList want = {{5, 10}, {20, 25}};
  EXPECT_EQ(Clip(IntervalList{{0, 10}, {20, 30}, {40, 50}}, {5, 25}), want);
  EXPECT_EQ(ClippedLength({0, 10}, {5, 25}), 5);
  EXPECT_EQ(ClippedLength({30, 40}, {5, 25}), 0);
}

TEST(IntervalSet, SweepReportsMaximalConstantSegments) {
  // a=[0,10) b=[5,15) c=[15,20) (touches b) d=[7,7) (zero length)
  std::vector<Interval> items = {{0, 10}, {5, 15}, {15, 20}, {7, 7}};
  std::vector<std::tuple<int64_t, int64_t, std::set<int32_t>>> segs;
  SweepSegments(items, [&](int64_t s, int64_t e, std::span<const int32_t> act) {
    segs.emplace_back(s, e, std::set<int32_t>(act.begin(), act.end()));
  });
  ASSERT_EQ(segs.size(), 4u);
  EXPECT_EQ(segs[0], std::make_tuple(int64_t{0}, int64_t{5}, std::set<int32_t>{0}));
  EXPECT_EQ(segs[1], std::make_tuple(int64_t{5}, int64_t{10}, std::set<int32_t>{0, 1}));
  EXPECT_EQ(segs[2], std::make_tuple(int64_t{10}, int64_t{15}, std::set<int32_t>{1}));
  EXPECT_EQ(segs[3], std::make_tuple(int64_t{15}, int64_t{20}, std::set<int32_t>{2}));
}

TEST(IntervalSet, SweepSkipsIdleTimeBetweenItems) {
  std::vector<Interval> items = {{0, 10}, {20, 30}};
  int64_t covered = 0;
  int calls = 0;
  SweepSegments(items, [&](int64_t s, int64_t e, std::span<const int32_t>) {
    covered += e - s;
    ++calls;
  });
  EXPECT_EQ(covered, 20);
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace streamscope
