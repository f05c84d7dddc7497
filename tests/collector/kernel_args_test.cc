// Kernel pointer arguments attributed to live allocations, through a fake
// parameter layout (what cuFuncGetParamInfo would report).
#include "collector/kernel_args.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace streamscope::collector {
namespace {

// void k(float* a, int n, float* b, Pair p, float* c) where Pair is 16 bytes.
const ParamLayout kLayout = {{0, 8}, {8, 4}, {16, 8}, {24, 16}, {40, 8}};

std::vector<MemoryAccessRecord> Attribute(const ParamLayout& layout, void* const* params, void* const* extra,
                                          const AllocationMap& live) {
  std::vector<MemoryAccessRecord> out;
  AttributeKernelArgs(layout, params, extra, live, 77, [&](MemoryAccessRecord r) { out.push_back(r); });
  return out;
}

TEST(KernelArgs, PointerArgumentsInsideLiveAllocationsBecomeUnknownAccesses) {
  AllocationMap live;
  live.Insert(5, 0x10000, 0x1000);
  live.Insert(6, 0x20000, 0x400);
  uint64_t a = 0x10000, b = 0x20100, c = 0x90000;  // c: not allocated
  int n = 0x10000;                                 // an int that looks like an address
  unsigned char pair[16] = {};
  uint64_t hidden = 0x10000;  // inside a struct, but already reported as arg 0
  std::memcpy(pair, &hidden, 8);
  void* params[] = {&a, &n, &b, pair, &c};
  auto rows = Attribute(kLayout, params, nullptr, live);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].arg_index, 0u);
  EXPECT_EQ(rows[0].address, 0x10000u);
  EXPECT_EQ(rows[0].bytes, 0x1000u);
  EXPECT_EQ(rows[0].allocation_id, 5u);
  EXPECT_EQ(rows[0].access, Access::kUnknown);
  EXPECT_EQ(rows[0].correlation_id, 77u);
  EXPECT_EQ(rows[1].arg_index, 2u);
  EXPECT_EQ(rows[1].address, 0x20100u);
  EXPECT_EQ(rows[1].bytes, 0x300u);  // allocation end - pointer
  EXPECT_EQ(rows[1].allocation_id, 6u);
}

TEST(KernelArgs, StructArgumentsAreScannedWordByWord) {
  // void k(int n, std::array<char*, 2> data, struct { long tag; float* p; float* q; } s)
  const ParamLayout layout = {{0, 4}, {8, 16}, {24, 24}};
  AllocationMap live;
  live.Insert(1, 0x10000, 0x100);
  live.Insert(2, 0x20000, 0x100);
  int n = 3;
  uint64_t data[2] = {0x20010, 0x20010};  // in-place op: the same pointer twice
  uint64_t s[3] = {0x5, 0x10020, 0x99999};
  void* params[] = {&n, data, s};
  auto rows = Attribute(layout, params, nullptr, live);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].arg_index, 1u);
  EXPECT_EQ(rows[0].address, 0x20010u);
  EXPECT_EQ(rows[0].bytes, 0xf0u);
  EXPECT_EQ(rows[0].allocation_id, 2u);
  EXPECT_EQ(rows[1].arg_index, 2u);
  EXPECT_EQ(rows[1].address, 0x10020u);
  EXPECT_EQ(rows[1].allocation_id, 1u);
  // A struct at an offset that is not 8-byte aligned holds no pointers.
  const ParamLayout odd = {{4, 16}};
  void* odd_params[] = {data};
  EXPECT_TRUE(Attribute(odd, odd_params, nullptr, live).empty());
}

TEST(KernelArgs, PackedExtraBufferIsReadAtTheLayoutOffsets) {
  AllocationMap live;
  live.Insert(9, 0x5000, 0x100);
  unsigned char buffer[48] = {};
  uint64_t p0 = 0x5010, p2 = 0x5000;
  std::memcpy(buffer + 0, &p0, 8);
  std::memcpy(buffer + 16, &p2, 8);
  size_t size = sizeof(buffer);
  void* extra[] = {reinterpret_cast<void*>(0x01), buffer, reinterpret_cast<void*>(0x02), &size,
                   reinterpret_cast<void*>(0x00)};
  auto rows = Attribute(kLayout, nullptr, extra, live);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].arg_index, 0u);
  EXPECT_EQ(rows[0].bytes, 0xf0u);
  EXPECT_EQ(rows[1].arg_index, 2u);
  // Parameter 4 lies beyond the 48-byte buffer's end (offset 40 + 8 = 48 fits;
  // a 40-byte buffer would not).
  size = 40;
  EXPECT_EQ(Attribute(kLayout, nullptr, extra, live).size(), 2u);
}

TEST(KernelArgs, NoArgumentsOrNoLayoutGiveNoRows) {
  AllocationMap live;
  live.Insert(1, 0x1000, 0x10);
  EXPECT_TRUE(Attribute({}, nullptr, nullptr, live).empty());
  uint64_t a = 0x1000;
  void* params[] = {&a};
  EXPECT_TRUE(Attribute({}, params, nullptr, live).empty());
  EXPECT_EQ(Attribute({{0, 8}}, params, nullptr, live).size(), 1u);
  uint64_t null_ptr = 0;
  void* null_params[] = {&null_ptr};
  EXPECT_TRUE(Attribute({{0, 8}}, null_params, nullptr, live).empty());
}

TEST(ParamLayoutCache, LoadsEachFunctionOnceAndRemembersUnknownOnes) {
  int loads = 0;
  ParamLayoutCache cache([&](const void* f, ParamLayout* layout) {
    ++loads;
    if (f == reinterpret_cast<const void*>(0x2)) return false;
    layout->push_back({0, 8});
    return true;
  });
  const void* f1 = reinterpret_cast<const void*>(0x1);
  const void* f2 = reinterpret_cast<const void*>(0x2);
  const ParamLayout* l = cache.Get(f1);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->size(), 1u);
  EXPECT_EQ(cache.Get(f1), l);
  EXPECT_EQ(cache.Get(f2), nullptr);
  EXPECT_EQ(cache.Get(f2), nullptr);
  EXPECT_EQ(loads, 2);
}

}  // namespace
}  // namespace streamscope::collector
