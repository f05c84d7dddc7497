#include "analyzer/base/first_indices.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

// What a full stable sort by value, largest first, puts first.
std::vector<size_t> BySort(const std::vector<int64_t>& v, size_t count) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] > v[b]; });
  idx.resize(std::min(count, idx.size()));
  return idx;
}

std::vector<size_t> Largest(const std::vector<int64_t>& v, size_t count) {
  return FirstIndices(v.size(), count, [&](size_t a, size_t b) { return v[a] != v[b] ? v[a] > v[b] : a < b; });
}

TEST(FirstIndices, KnownAnswerWithTiesByIndex) {
  const std::vector<int64_t> v = {5, 9, 1, 9, 7, 5, 0};
  EXPECT_EQ(Largest(v, 3), (std::vector<size_t>{1, 3, 4}));
  EXPECT_EQ(Largest(v, 5), (std::vector<size_t>{1, 3, 4, 0, 5}));
}

TEST(FirstIndices, NoneAndMoreThanThereAre) {
  const std::vector<int64_t> v = {3, 1, 2};
  EXPECT_TRUE(Largest(v, 0).empty());
  EXPECT_TRUE(Largest({}, 4).empty());
  EXPECT_EQ(Largest(v, 10), (std::vector<size_t>{0, 2, 1}));
}

TEST(FirstIndices, AgreesWithAStableSortOnRandomValuesWithManyTies) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<int64_t> v(rng() % 300);
    const int64_t range = 1 + static_cast<int64_t>(rng() % 20);  // few distinct values: many ties
    for (int64_t& x : v) x = static_cast<int64_t>(rng() % static_cast<uint64_t>(range));
    const size_t count = rng() % 40;
    EXPECT_EQ(Largest(v, count), BySort(v, count)) << "round " << round;
  }
}

}  // namespace
}  // namespace streamscope
