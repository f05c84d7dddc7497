#include "analyzer/base/blocked_vector.h"

#include <cstdint>
#include <utility>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

// Blocks of 8 elements: every operation crosses block boundaries.
using Small = BlockedVector<int64_t, 3>;

TEST(BlockedVector, PushBackAcrossBlocksKeepsEveryValueInOrder) {
  Small v;
  EXPECT_TRUE(v.empty());
  for (int64_t k = 0; k < 100; ++k) v.push_back(k * k - 7);
  ASSERT_EQ(v.size(), 100u);
  for (size_t k = 0; k < 100; ++k) EXPECT_EQ(v[k], static_cast<int64_t>(k * k) - 7) << k;
}

TEST(BlockedVector, ResizeValueInitializesWhatItAddsEvenInKeptBlocks) {
  Small v;
  v.resize(20);
  for (size_t k = 0; k < 20; ++k) {
    EXPECT_EQ(v[k], 0);
    v[k] = 5;
  }
  v.resize(3);  // shrinks: the values past it must not show again
  EXPECT_EQ(v.size(), 3u);
  v.resize(30);
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(v[k], 5);
  for (size_t k = 3; k < 30; ++k) EXPECT_EQ(v[k], 0) << k;
  v.push_back(9);
  EXPECT_EQ(v.size(), 31u);
  EXPECT_EQ(v[30], 9);
}

TEST(BlockedVector, CopiesAreIndependentAndMovesLeaveTheSourceEmpty) {
  Small a;
  for (int64_t k = 0; k < 17; ++k) a.push_back(k);
  Small b = a;
  b[16] = -1;
  b.push_back(100);
  EXPECT_EQ(a.size(), 17u);
  EXPECT_EQ(a[16], 16);
  EXPECT_EQ(b.size(), 18u);
  EXPECT_EQ(b[16], -1);
  a = b;
  EXPECT_EQ(a.size(), 18u);
  EXPECT_EQ(a[17], 100);

  Small c = std::move(a);
  EXPECT_EQ(c.size(), 18u);
  EXPECT_EQ(c[17], 100);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  a.push_back(4);          // and usable
  EXPECT_EQ(a[0], 4);
}

}  // namespace
}  // namespace streamscope
