// Finalize puts the GPU ops in stable (start, end) order, whichever way it
// finds it: one or a few runs merged, each stream's runs merged, or a sort.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::ModelBuilder;

struct Planned {
  int64_t start, end;
};

// Adds the kernels in the order given (source ids 1, 2, ... in that order),
// kernel k on stream streams[k], and checks the model's order against a
// stable sort of them by (start, end).
void ExpectStableOrder(const std::vector<Planned>& kernels, const std::vector<int64_t>& streams) {
  ModelBuilder b;
  std::vector<int64_t> declared;
  for (int64_t s : streams) {
    if (std::find(declared.begin(), declared.end(), s) != declared.end()) continue;
    b.Stream(s, StreamKind::kNonBlocking);
    declared.push_back(s);
  }
  for (size_t k = 0; k < kernels.size(); ++k) b.Kernel("k", streams[k], kernels[k].start, kernels[k].end);
  TraceModel m = b.Build();
  std::vector<size_t> want(kernels.size());
  std::iota(want.begin(), want.end(), size_t{0});
  std::stable_sort(want.begin(), want.end(), [&](size_t a, size_t b) {
    return kernels[a].start != kernels[b].start ? kernels[a].start < kernels[b].start : kernels[a].end < kernels[b].end;
  });
  ASSERT_EQ(m.ops.size(), kernels.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(m.ops.source_id[i], static_cast<int64_t>(want[i]) + 1) << "position " << i;
  }
}

// 40 streams, each recorded in time order, their ops added stream after
// stream: 40 runs, more than are merged directly, so each stream's run is
// merged with the others'. Equal starts across streams keep the order they
// were added in.
TEST(OpOrder, StreamsInOrderAddedOneAfterAnotherMergeStably) {
  std::vector<Planned> kernels;
  std::vector<int64_t> streams;
  for (int64_t s = 0; s < 40; ++s) {
    for (int64_t k = 0; k < 25; ++k) {
      kernels.push_back({100 + k * 10 + s % 3, 100 + k * 10 + s % 3 + 5 + s % 2});
      streams.push_back(s + 1);
    }
  }
  ExpectStableOrder(kernels, streams);
}

// Ops added in random order (far more runs than are merged): sorted, the
// same stable order.
TEST(OpOrder, OpsInNoOrderAreSortedStably) {
  std::mt19937_64 rng(3);
  std::vector<Planned> kernels;
  std::vector<int64_t> streams;
  for (int k = 0; k < 2000; ++k) {
    const auto start = static_cast<int64_t>(1 + rng() % 500);
    kernels.push_back({start, start + static_cast<int64_t>(rng() % 4)});
    streams.push_back(1 + static_cast<int64_t>(rng() % 5));
  }
  ExpectStableOrder(kernels, streams);
}

}  // namespace
}  // namespace streamscope
