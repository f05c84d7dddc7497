#include "analyzer/model/narrow_column.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

std::vector<int64_t> Values(const NarrowInt64Column& c) { return {c.begin(), c.end()}; }

TEST(NarrowInt64Column, KeepsValuesWithin32BitsOfTheFirstNarrow) {
  NarrowInt64Column c;
  const int64_t first = int64_t{1} << 40;  // far from 0: the first value is the base
  for (int64_t d : {int64_t{0}, int64_t{-1}, int64_t{5}, int64_t{INT32_MAX}, int64_t{INT32_MIN}})
    c.push_back(first + d);
  EXPECT_FALSE(c.wide());
  EXPECT_EQ(Values(c), (std::vector<int64_t>{first, first - 1, first + 5, first + INT32_MAX, first + INT32_MIN}));
}

TEST(NarrowInt64Column, AValueBeyondTurnsTheColumnWideAndKeepsEveryValue) {
  NarrowInt64Column c;
  c.push_back(-1);
  c.push_back(7);
  c.push_back(std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(c.wide());
  c.push_back(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Values(c),
            (std::vector<int64_t>{-1, 7, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}));
}

TEST(NarrowInt64Column, SetWidensWhenNeeded) {
  NarrowInt64Column c;
  for (int64_t v = 0; v < 5; ++v) c.push_back(v);
  c.Set(1, -3);
  EXPECT_FALSE(c.wide());
  c.Set(3, int64_t{1} << 33);
  EXPECT_TRUE(c.wide());
  EXPECT_EQ(Values(c), (std::vector<int64_t>{0, -3, 2, int64_t{1} << 33, 4}));
}

TEST(NarrowInt64Column, PermutesAndComparesByValue) {
  for (bool wide : {false, true}) {
    NarrowInt64Column c, d;
    for (int64_t v : {10, 20, 30}) c.push_back(v);
    for (int64_t v : {30, 10, 20}) d.push_back(v);
    if (wide) {
      c.push_back(int64_t{1} << 50);
      d.push_back(int64_t{1} << 50);
    }
    EXPECT_EQ(c.wide(), wide);
    c.Permute(wide ? std::vector<uint32_t>{2, 0, 1, 3} : std::vector<uint32_t>{2, 0, 1});  // row order[k] -> k
    EXPECT_EQ(c, d) << wide;
    d.Set(0, 31);
    EXPECT_FALSE(c == d) << wide;
  }
}

TEST(NarrowInt64Column, ClearStartsNarrowWithANewBase) {
  NarrowInt64Column c;
  c.push_back(0);
  c.push_back(int64_t{1} << 40);
  EXPECT_TRUE(c.wide());
  c.clear();
  EXPECT_TRUE(c.empty());
  c.push_back(int64_t{1} << 40);
  c.push_back((int64_t{1} << 40) + 1);
  EXPECT_FALSE(c.wide());
  EXPECT_EQ(Values(c), (std::vector<int64_t>{int64_t{1} << 40, (int64_t{1} << 40) + 1}));
}

template <typename Column>
std::vector<int32_t> Values32(const Column& c) {
  return {c.begin(), c.end()};
}

TEST(Int32In8Column, KeepsValuesWithin8BitsOfTheFirstNarrow) {
  Int32In8Column c;
  for (int32_t v : {-1, -1 + 127, -1 - 128, 0, 5}) c.push_back(v);
  EXPECT_FALSE(c.wide());
  EXPECT_EQ(Values32(c), (std::vector<int32_t>{-1, 126, -129, 0, 5}));
  EXPECT_EQ(c.back(), 5);
}

TEST(Int32In8Column, AValueBeyondTurnsTheColumnWideWithTheSameValues) {
  Int32In8Column c;
  std::vector<int32_t> written;
  for (int32_t v : {3, 3 + 127, 3 - 128, 3 + 128, INT32_MIN, INT32_MAX, 7}) {
    c.push_back(v);
    written.push_back(v);
    EXPECT_EQ(c.wide(), written.size() >= 4) << v;
  }
  EXPECT_EQ(Values32(c), written);
}

TEST(Int32In8Column, OffsetsThatOverflowInt32Widen) {
  Int32In8Column c;
  c.push_back(INT32_MAX);
  c.push_back(INT32_MAX - 128);
  EXPECT_FALSE(c.wide());
  c.push_back(INT32_MIN);  // INT32_MIN - INT32_MAX overflows int32
  EXPECT_TRUE(c.wide());
  EXPECT_EQ(Values32(c), (std::vector<int32_t>{INT32_MAX, INT32_MAX - 128, INT32_MIN}));
}

TEST(Int32In16Column, SetAndPermuteAtTheLimits) {
  for (bool wide : {false, true}) {
    Int32In16Column c, d;
    for (int32_t v : {-1, -1, -1}) c.push_back(v);
    c.Set(0, -1 + 32767);
    c.Set(1, -1 - 32768);
    EXPECT_FALSE(c.wide());
    if (wide) c.Set(2, -1 + 32768);
    EXPECT_EQ(c.wide(), wide);
    const int32_t third = wide ? 32767 : -1;
    EXPECT_EQ(Values32(c), (std::vector<int32_t>{32766, -32769, third}));
    c.Permute({2, 0, 1});
    for (int32_t v : {third, 32766, -32769}) d.push_back(v);
    EXPECT_EQ(c, d) << wide;
  }
}

TEST(Int64In16Column, GraphIdsNarrowUntilOneIsFarFromTheFirst) {
  Int64In16Column c;
  for (int64_t v : {int64_t{-1}, int64_t{1}, int64_t{-1}, int64_t{32766}}) c.push_back(v);
  EXPECT_FALSE(c.wide());
  c.push_back(int64_t{1} << 40);
  EXPECT_TRUE(c.wide());
  std::vector<int64_t> values(c.begin(), c.end());
  EXPECT_EQ(values, (std::vector<int64_t>{-1, 1, -1, 32766, int64_t{1} << 40}));
}

}  // namespace
}  // namespace streamscope
