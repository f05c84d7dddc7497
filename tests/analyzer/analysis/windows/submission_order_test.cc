#include "analyzer/analysis/windows/submission_order.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::kUs;
using testing::ModelBuilder;

// The reference: every op sorted through its time, ties kept in op order.
std::vector<uint32_t> SortedBySubmit(const std::vector<int64_t>& submit) {
  std::vector<uint32_t> order(submit.size());
  std::iota(order.begin(), order.end(), uint32_t{0});
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return submit[a] < submit[b]; });
  return order;
}

// Six ops in op order (by start): 0 and 3 on stream 7, 1 and 4 on stream 8,
// 2 on no stream, 5 on a stream index past the end. Stream 8's ops were
// submitted out of op order (two host threads), and ops 0, 2 and 5 at the
// same time.
TEST(SubmissionOrder, StreamsOutOfOrderAndOpsOnNoStreamAreMergedByTimeThenIndex) {
  ModelBuilder b;
  b.Stream(7, StreamKind::kNonBlocking);
  b.Stream(8, StreamKind::kNonBlocking);
  for (int64_t k = 0; k < 6; ++k) b.Kernel("k", k % 3 == 1 ? 8 : 7, k * 10 * kUs, k * 10 * kUs + 5 * kUs);
  TraceModel m = b.Build();
  ASSERT_EQ(m.ops.size(), 6u);
  m.ops.stream.Set(2, -1);
  m.ops.stream.Set(5, static_cast<int32_t>(m.streams.size()));
  //                             op:  0   1   2   3   4  5
  const std::vector<int64_t> submit = {5, 40, 5, 20, 10, 5};
  EXPECT_EQ(SubmissionOrder(m, submit), (std::vector<uint32_t>{0, 2, 5, 4, 3, 1}));
}

TEST(SubmissionOrder, NoOpsGiveAnEmptyOrder) {
  ModelBuilder b;
  b.Stream(7, StreamKind::kNonBlocking);
  TraceModel m = b.Build();
  EXPECT_TRUE(SubmissionOrder(m, {}).empty());
}

// Random traces (ops on streams of several devices, on no stream, past the
// last stream) with submit times that follow op order on most streams,
// jump about on some, and tie often: the same order as the reference.
TEST(SubmissionOrder, RandomTracesMatchASortOfEveryOp) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    TraceModel m = testing::RandomInconsistentTrace(seed, 400);
    std::mt19937_64 rng(seed);
    std::vector<int64_t> submit(m.ops.size());
    const bool in_order = seed % 3 != 0;
    for (size_t i = 0; i < submit.size(); ++i) {
      const auto jitter = static_cast<int64_t>(rng() % 8);
      submit[i] = in_order ? static_cast<int64_t>(i / 4) * 4 + jitter / 4 : jitter * 16;
    }
    ASSERT_EQ(SubmissionOrder(m, submit), SortedBySubmit(submit)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace streamscope
