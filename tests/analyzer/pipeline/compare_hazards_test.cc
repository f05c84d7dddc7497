// compare refuses to verify an overlap whose variant has certain hazards
// (hazards), and names the hazard.
#include <sstream>

#include "analyzer/pipeline/compare.h"
#include "analyzer/render/compare_render.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/memory_trace_util.h"
#include "tests/analyzer/model/model_builder.h"
#include "tests/analyzer/model/test_device.h"
#include "tests/analyzer/model/test_units.h"

namespace streamscope {
namespace {

using testing::AddAccess;
using testing::AddAllocation;
using testing::ApiTimes;
using testing::ModelBuilder;
using testing::OpIndex;
using testing::TestDevice;

using testing::us;
constexpr uint64_t kBuf = 0x7000'0000'0000;
using testing::k16MiB;

enum class Buffers { kNone, kPerStream, kShared };

// 4 chunks of H2D, kernel, D2H (100 us each) on `streams` streams with a
// list schedule, inside NVTX range "measured". Every chunk's copies and
// kernel touch the device buffer of its stream (kPerStream) or one buffer
// for all (kShared: the H2D copies of two streams write the same bytes).
TraceModel HazardPipeline(int streams, Buffers buffers) {
  ModelBuilder b;
  b.model().devices.push_back(TestDevice());
  for (int s = 0; s < streams; ++s) b.Stream(10 + s, StreamKind::kNonBlocking);
  std::vector<int64_t> stream_free(streams, us(100));
  int64_t h2d_free = us(100), d2h_free = us(100), compute_free = us(100), end = 0, call = us(1);
  struct Chunk {
    int64_t h2d, kernel, d2h;
    int stream;
  };
  std::vector<Chunk> chunks;
  auto next_call = [&]() {
    ApiTimes t{call, call + 500, 1};
    call += us(1);
    return t;
  };
  for (int c = 0; c < 4; ++c) {
    int s = c % streams;
    Chunk ch{0, 0, 0, s};
    int64_t h = std::max(stream_free[s], h2d_free);
    ch.h2d = b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 10 + s, h, h + us(100), next_call(),
                    "cudaMemcpyAsync", true, k16MiB);
    h2d_free = h + us(100);
    int64_t k = std::max(h2d_free, compute_free);
    ch.kernel = b.Kernel("chunk", 10 + s, k, k + us(100), next_call());
    compute_free = k + us(100);
    int64_t o = std::max(compute_free, d2h_free);
    ch.d2h = b.Copy(OpCategory::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, 10 + s, o, o + us(100), next_call(),
                    "cudaMemcpyAsync", true, k16MiB);
    d2h_free = o + us(100);
    stream_free[s] = d2h_free;
    end = std::max(end, d2h_free);
    chunks.push_back(ch);
  }
  b.Nvtx("measured", 1, 0, end + us(10));
  TraceModel m = b.Build();
  if (buffers == Buffers::kNone) return m;
  std::vector<int64_t> alloc;
  for (int s = 0; s < streams; ++s) alloc.push_back(AddAllocation(m, kBuf + s * 2 * k16MiB, k16MiB));
  for (const Chunk& ch : chunks) {
    int slot = buffers == Buffers::kShared ? 0 : ch.stream;
    uint64_t addr = kBuf + slot * 2 * k16MiB;
    AddAccess(m, OpIndex(m, "memcpy", ch.h2d), addr, k16MiB, MemoryAccess::Access::kWrite, alloc[slot]);
    AddAccess(m, OpIndex(m, "kernel", ch.kernel), addr, k16MiB, MemoryAccess::Access::kUnknown, alloc[slot], 0);
    AddAccess(m, OpIndex(m, "memcpy", ch.d2h), addr, k16MiB, MemoryAccess::Access::kRead, alloc[slot]);
  }
  return m;
}

CompareResult CompareOne(const TraceModel& control, const TraceModel& variant) {
  auto r = Compare({&control}, {&variant}, CompareOptions{});
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

TEST(CompareHazards, AnOverlapWithPerStreamBuffersIsVerified) {
  TraceModel control = HazardPipeline(1, Buffers::kPerStream), variant = HazardPipeline(2, Buffers::kPerStream);
  CompareResult r = CompareOne(control, variant);
  EXPECT_EQ(r.verdict, CompareVerdict::kVerified) << CompareVerdictSentence(r);
  EXPECT_TRUE(r.variant[0].hazards_checked);
  EXPECT_EQ(r.variant[0].certain_hazards, 0);
}

TEST(CompareHazards, AVariantWithCertainHazardsIsRefusedAndTheHazardNamed) {
  TraceModel control = HazardPipeline(1, Buffers::kPerStream), variant = HazardPipeline(2, Buffers::kShared);
  CompareResult r = CompareOne(control, variant);
  EXPECT_EQ(r.verdict, CompareVerdict::kHazard);
  EXPECT_EQ(CompareVerdictName(r.verdict), "HAZARD");
  EXPECT_GT(r.variant_certain_hazards, 0);
  EXPECT_NE(std::find(r.failed_conditions.begin(), r.failed_conditions.end(), "hazards"), r.failed_conditions.end());
  EXPECT_NE(CompareVerdictSentence(r).find("allocation 1 "), std::string::npos) << CompareVerdictSentence(r);
  EXPECT_NE(CompareVerdictSentence(r).find("copy "), std::string::npos) << CompareVerdictSentence(r);
  EXPECT_EQ(CompareVerdictSentence(r).rfind("Not verified", 0), 0u) << CompareVerdictSentence(r);
  nlohmann::json j = CompareToJson(r);
  EXPECT_EQ(j["verdict"]["verdict"], "HAZARD");
  EXPECT_TRUE(j["verdict"]["hazard"].is_string());
  EXPECT_GT(j["variant"][0]["hazards"]["certain"].get<int64_t>(), 0);
}

TEST(CompareHazards, ATraceWithoutAccessRecordsIsNotHeldAgainstTheVariant) {
  TraceModel control = HazardPipeline(1, Buffers::kNone), variant = HazardPipeline(2, Buffers::kNone);
  CompareResult r = CompareOne(control, variant);
  EXPECT_EQ(r.verdict, CompareVerdict::kVerified) << CompareVerdictSentence(r);
  EXPECT_FALSE(r.variant[0].hazards_checked);
}

}  // namespace
}  // namespace streamscope
