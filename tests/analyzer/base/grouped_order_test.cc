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
