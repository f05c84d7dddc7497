#include "analyzer/base/grouped_order.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

std::vector<uint32_t> Merged(const std::vector<size_t>& group, size_t groups, const std::vector<int64_t>& key) {
  return OrderMergingGroups(
      key.size(), groups, [&](size_t i) { return group[i]; }, [&](size_t i) { return key[i]; });
}

// The reference: every item sorted by its key, ties in index order.
std::vector<uint32_t> StableByKey(const std::vector<int64_t>& key) {
  std::vector<uint32_t> order(key.size());
  std::iota(order.begin(), order.end(), uint32_t{0});
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
  return order;
}

TEST(OrderMergingGroups, GroupsInOrderOrNotMergeByKeyThenIndex) {
  // item:                         0  1  2  3  4  5  6
  const std::vector<size_t> group = {0, 1, 2, 0, 1, 2, 1};
  const std::vector<int64_t> key = {3, 9, 3, 5, 1, 7, 5};  // group 1 out of order: 9, 1, 5
  EXPECT_EQ(Merged(group, 3, key), (std::vector<uint32_t>{4, 0, 2, 3, 6, 5, 1}));
}

TEST(OrderMergingGroups, OneGroupIsSortedWhenOutOfOrder) {
  EXPECT_EQ(Merged({0, 0, 0, 0}, 1, {4, 2, 4, 1}), (std::vector<uint32_t>{3, 1, 0, 2}));
  EXPECT_EQ(Merged({1, 1, 1}, 2, {1, 1, 2}), (std::vector<uint32_t>{0, 1, 2})) << "only the last group";
}

TEST(OrderMergingGroups, NoItems) {
  EXPECT_TRUE(Merged({}, 3, {}).empty());
  EXPECT_TRUE(Merged({}, 0, {}).empty());
}

// Random items in 1 to 6 groups (some empty), keys that rise within most
// groups, jump about in some, and tie often, across groups and within them.
TEST(OrderMergingGroups, RandomItemsMatchAStableSortByKey) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    const size_t n = rng() % 200, groups = 1 + rng() % 6;
    std::vector<size_t> group(n);
    std::vector<int64_t> key(n);
    std::vector<int64_t> last(groups, 0);
    const bool in_order = round % 4 != 0;
    for (size_t i = 0; i < n; ++i) {
      group[i] = rng() % groups;
      const auto step = static_cast<int64_t>(rng() % 3);
      key[i] = in_order ? (last[group[i]] += step) : static_cast<int64_t>(rng() % 10);
    }
    ASSERT_EQ(Merged(group, groups, key), StableByKey(key)) << "round " << round;
  }
}

}  // namespace
}  // namespace streamscope

namespace streamscope {
namespace {

// Runs cut into parts merged side by side give the one merge's order, for
// any number of parts, with many equal keys (ties broken by index across
// the parts' borders), runs of one item, empty runs' places and a few long
// runs among short ones.
TEST(MergeRunsInSlices, EveryCountOfPartsGivesTheOneMergesOrder) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const size_t n = 1 + rng() % 5000;
    std::vector<int64_t> key(n);
    for (int64_t& k : key) k = static_cast<int64_t>(rng() % (trial % 2 == 0 ? 8 : 100000));  // few keys: ties
    // Items grouped at random, each group sorted by (key, index): the runs.
    const size_t groups = 1 + rng() % 40;
    std::vector<size_t> group(n);
    for (size_t& g : group) g = trial % 5 == 0 ? 0 : rng() % groups;
    GroupedIndices grouped = GroupIndices(n, groups, [&](size_t i) { return group[i]; });
    auto before = [&](uint32_t a, uint32_t b) { return key[a] < key[b] || (key[a] == key[b] && a < b); };
    std::vector<IndexRun> runs;
    for (size_t g = 0; g < groups; ++g) {
      auto first = grouped.items.begin() + static_cast<std::ptrdiff_t>(grouped.begin[g]);
      auto last = grouped.items.begin() + static_cast<std::ptrdiff_t>(grouped.begin[g + 1]);
      std::sort(first, last, before);
      if (first != last) runs.push_back({grouped.begin[g], grouped.begin[g + 1]});
    }
    const std::vector<uint32_t> want = MergeRuns(grouped.items, runs, before);
    ASSERT_EQ(want, StableByKey(key));
    for (size_t slices : {1, 2, 3, 7, 64}) {
      EXPECT_EQ(MergeRunsInSlices(grouped.items, runs, before, slices), want) << "trial " << trial << ", " << slices;
    }
  }
}

}  // namespace
}  // namespace streamscope
