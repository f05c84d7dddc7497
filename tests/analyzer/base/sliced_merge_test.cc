#include "analyzer/base/sliced_merge.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

// Items compared by their first half only: ties tell which list an item
// came from (the second half), so a merge that takes the wrong one first fails.
using Item = std::pair<int, int>;
bool ByKey(const Item& x, const Item& y) { return x.first < y.first; }

std::vector<Item> Sliced(const std::vector<Item>& a, const std::vector<Item>& b, size_t slices) {
  std::vector<Item> out(a.size() + b.size());
  MergeInSlices<Item>(a, b, out, slices, ByKey);
  return out;
}

std::vector<Item> OneMerge(const std::vector<Item>& a, const std::vector<Item>& b) {
  std::vector<Item> out(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), ByKey);
  return out;
}

TEST(MergeSplit, CountsTheFirstListsItemsAmongTheFirstK) {
  const std::vector<Item> a = {{1, 0}, {3, 0}, {3, 0}, {7, 0}};
  const std::vector<Item> b = {{2, 1}, {3, 1}, {8, 1}};
  // The merge: 1a 2b 3a 3a 3b 7a 8b (on a tie, the first list's items go first).
  const std::vector<size_t> from_a = {0, 1, 1, 2, 3, 3, 4, 4};
  for (size_t k = 0; k < from_a.size(); ++k) {
    EXPECT_EQ(MergeSplit<Item>(a, b, k, ByKey), from_a[k]) << "k=" << k;
  }
}

TEST(MergeSplit, EmptyLists) {
  const std::vector<Item> a = {{1, 0}, {2, 0}}, none;
  EXPECT_EQ(MergeSplit<Item>(a, none, 0, ByKey), 0u);
  EXPECT_EQ(MergeSplit<Item>(a, none, 2, ByKey), 2u);
  EXPECT_EQ(MergeSplit<Item>(none, a, 2, ByKey), 0u);
  EXPECT_EQ(MergeSplit<Item>(none, none, 0, ByKey), 0u);
}

TEST(MergeInSlices, TiesAcrossASliceEdgeKeepTheFirstListFirst) {
  // Every key equal: one merge is all of `a`, then all of `b`, whatever the slices.
  const std::vector<Item> a(5, {4, 0}), b(6, {4, 1});
  for (size_t slices : {1, 2, 3, 4, 11}) EXPECT_EQ(Sliced(a, b, slices), OneMerge(a, b)) << slices << " slices";
}

TEST(MergeInSlices, RandomListsEqualOneMerge) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    auto list = [&](int tag) {
      std::vector<Item> l(rng() % 40);
      for (Item& x : l) x = {static_cast<int>(rng() % 12), tag};
      std::sort(l.begin(), l.end());
      return l;
    };
    const std::vector<Item> a = list(0), b = list(1);
    const size_t slices = 1 + rng() % 9;
    ASSERT_EQ(Sliced(a, b, slices), OneMerge(a, b)) << "round " << round << ", " << slices << " slices";
  }
}

}  // namespace
}  // namespace streamscope
