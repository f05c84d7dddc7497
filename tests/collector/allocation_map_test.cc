// AllocationMap: pointers attributed to the live allocation containing them.
#include "collector/allocation_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace streamscope::collector {
namespace {

TEST(AllocationMap, PointerInsideAnAllocationFindsIt) {
  AllocationMap m;
  m.Insert(1, 0x1000, 0x100);
  m.Insert(2, 0x2000, 0x10);
  auto a = m.Find(0x1080);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->id, 1u);
  EXPECT_EQ(a->address, 0x1000u);
  EXPECT_EQ(a->end(), 0x1100u);
  EXPECT_EQ(m.Find(0x1000)->id, 1u);
  EXPECT_EQ(m.Find(0x200f)->id, 2u);
}

TEST(AllocationMap, EndIsExclusiveAndGapsFindNothing) {
  AllocationMap m;
  m.Insert(1, 0x1000, 0x100);
  EXPECT_FALSE(m.Find(0x1100).has_value());
  EXPECT_FALSE(m.Find(0xfff).has_value());
  EXPECT_FALSE(m.Find(0).has_value());
  EXPECT_FALSE(AllocationMap().Find(0x1000).has_value());
}

TEST(AllocationMap, RemoveNeedsTheStartAddressAndEndsAttribution) {
  AllocationMap m;
  m.Insert(1, 0x1000, 0x100);
  EXPECT_FALSE(m.Remove(0x1010).has_value());  // interior pointer: not a free
  auto r = m.Remove(0x1000);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->id, 1u);
  EXPECT_EQ(r->bytes, 0x100u);
  EXPECT_FALSE(m.Find(0x1010).has_value());
  EXPECT_FALSE(m.Remove(0x1000).has_value());
  EXPECT_EQ(m.size(), 0u);
}

TEST(AllocationMap, NewAllocationReplacesStaleOverlappingOnes) {
  AllocationMap m;
  m.Insert(1, 0x1000, 0x100);
  m.Insert(2, 0x1100, 0x100);
  m.Insert(3, 0x3000, 0x100);
  // The driver reused [0x1080, 0x1180) after frees we never saw.
  m.Insert(4, 0x1080, 0x100);
  EXPECT_EQ(m.Find(0x1000), std::nullopt);
  EXPECT_EQ(m.Find(0x1090)->id, 4u);
  EXPECT_EQ(m.Find(0x1190), std::nullopt);
  EXPECT_EQ(m.Find(0x3000)->id, 3u);
  EXPECT_EQ(m.size(), 2u);
}

TEST(AllocationMap, ZeroByteAllocationsAreIgnored) {
  AllocationMap m;
  m.Insert(1, 0x1000, 0);
  EXPECT_EQ(m.size(), 0u);
  EXPECT_FALSE(m.Find(0x1000).has_value());
}

TEST(AllocationMap, LookupsFromManyThreadsWhileAllocating) {
  AllocationMap m;
  m.Insert(1, 0x100000, 0x1000);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> misses{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        auto a = m.Find(0x100800);
        if (!a.has_value() || a->id != 1) ++misses;
      }
    });
  }
  for (uint64_t i = 0; i < 2000; ++i) {
    m.Insert(100 + i, 0x200000 + i * 0x100, 0x80);
    if (i % 2) m.Remove(0x200000 + (i - 1) * 0x100);
  }
  stop = true;
  for (auto& r : readers) r.join();
  EXPECT_EQ(misses.load(), 0);
  EXPECT_EQ(m.size(), 1u + 1000u);
}

}  // namespace
}  // namespace streamscope::collector
