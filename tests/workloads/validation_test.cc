#include "workloads/harness/validation.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace streamscope::workloads {
namespace {

TEST(Validation, EqualWordsPass) {
  std::vector<std::uint32_t> words = {1, 2, 3};
  const ValidationResult r =
      CompareWords("w", words.data(), words.size(), [](std::uint64_t i) { return std::uint32_t(i + 1); });
  EXPECT_TRUE(r.passed);
  EXPECT_TRUE(r.detail.empty());
}

TEST(Validation, MismatchesAreCountedAndTheFirstIsNamed) {
  std::vector<std::uint32_t> words(1 << 20, 7);
  words[300000] = 8;
  words[900000] = 9;
  const ValidationResult r =
      CompareWords("chunk outputs", words.data(), words.size(), [](std::uint64_t) { return std::uint32_t(7); });
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.detail,
            "chunk outputs: 2 of 1048576 words differ; first at word 300000 (got 0x00000008, "
            "want 0x00000007)");
}

TEST(Validation, MergeKeepsTheFirstFailure) {
  ValidationResult a;
  ValidationResult b{false, "b failed"};
  ValidationResult c{false, "c failed"};
  a.Merge(b);
  a.Merge(c);
  EXPECT_FALSE(a.passed);
  EXPECT_EQ(a.detail, "b failed");
}

TEST(Validation, ParallelForCoversEveryIndexOnce) {
  std::vector<int> hits(1 << 20, 0);
  ParallelFor(hits.size(), [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; ++i) ++hits[i];
  });
  for (int h : hits) ASSERT_EQ(h, 1);
}

}  // namespace
}  // namespace streamscope::workloads
