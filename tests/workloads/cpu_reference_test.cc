#include "workloads/harness/cpu_reference.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "workloads/harness/workload_math.h"

namespace streamscope::workloads {
namespace {

// What the kernels do: the step applied n times, one by one.
std::uint32_t Iterate(std::uint32_t x, std::uint32_t n) {
  for (std::uint32_t k = 0; k < n; ++k) x = x * kStepMul + kStepAdd;
  return x;
}

TEST(CpuReference, ClosedFormEqualsStepByStepIteration) {
  for (std::uint32_t n : {0u, 1u, 2u, 3u, 7u, 1024u, 4096u, 100000u}) {
    const Affine f = AffinePower(Affine{kStepMul, kStepAdd}, n);
    for (std::uint32_t x : {0u, 1u, 0xdeadbeefu, 0xffffffffu}) {
      EXPECT_EQ(Apply(f, x), Iterate(x, n)) << "n=" << n << " x=" << x;
    }
  }
}

TEST(CpuReference, ChunkTransformIsMixOfIteratedInput) {
  const ChunkTransformReference reference(1024);
  for (std::uint64_t i = 0; i < 64; ++i) {
    const std::uint32_t in = ChunkInputWord(3, i);
    EXPECT_EQ(reference(in), Mix(Iterate(in, 1024)));
  }
}

TEST(CpuReference, ChunkInputsDifferAcrossChunksAndWords) {
  EXPECT_NE(ChunkInputWord(0, 0), ChunkInputWord(1, 0));
  EXPECT_NE(ChunkInputWord(0, 0), ChunkInputWord(0, 1));
  std::vector<std::uint32_t> words(1 << 18);
  FillChunkInput(5, words.data(), words.size());
  for (std::uint64_t i : {0ull, 1ull, 77777ull, (1ull << 18) - 1}) {
    EXPECT_EQ(words[i], ChunkInputWord(5, i));
  }
}

TEST(CpuReference, SpinAndPersistentReferencesMatchIteration) {
  EXPECT_EQ(SpinComputeExpected(3, 17, 500), Mix(Iterate(SpinSeed(3, 17), 500)));
  EXPECT_EQ(PersistentExpected(9, 5, 300), Mix(Iterate(Hash2(PersistentItemSeed(9), 5), 300)));
  EXPECT_NE(PersistentItemSeed(1), PersistentItemSeed(2));
}

TEST(CpuReference, TinySequenceIsOrderSensitive) {
  // Two kernels in order 0,1 by hand.
  std::uint32_t lane3 = TinyInitial(3);
  lane3 = TinyStepValue(lane3, 0, 3);
  lane3 = TinyStepValue(lane3, 1, 3);
  EXPECT_EQ(TinySequenceReference(2, 1)[3], lane3);
  // Swapped order gives a different state; one kernel fewer too.
  std::uint32_t swapped = TinyStepValue(TinyStepValue(TinyInitial(3), 1, 3), 0, 3);
  EXPECT_NE(swapped, lane3);
  EXPECT_NE(TinySequenceReference(1999, 1)[0], TinySequenceReference(2000, 1)[0]);
  EXPECT_NE(TinySequenceReference(2000, 2)[0], TinySequenceReference(2000, 1)[0]);
}

}  // namespace
}  // namespace streamscope::workloads
