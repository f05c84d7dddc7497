// Which operator and annotation launched each GPU op, on the hand-written
// torch.profiler trace (tests/data/torch/synthetic_two_streams.json) and on a
// streamscope-style model with plain NVTX ranges.
#include "analyzer/analysis/causes/op_attribution.h"

#include <map>

#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "tests/analyzer/importers/torch/torch_test_util.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

using testing::kSyntheticTorchTrace;
using testing::ModelBuilder;

constexpr int64_t kTraceBase = 1700000000000000000;

TraceModel LoadSynthetic() {
  auto models = LoadTraceFile(kSyntheticTorchTrace);
  EXPECT_TRUE(models.ok()) << models.status();
  return models.ok() ? std::move(models->front()) : TraceModel();
}

std::string RangeName(const TraceModel& m, int32_t range) {
  return range < 0 ? "-" : std::string(m.strings.Get(m.nvtx_ranges[range].name));
}

// "kernel name or category" -> "innermost|outermost|annotation".
std::map<std::string, std::string> Launchers(const TraceModel& m, const OpAttributionResult& r) {
  std::map<std::string, std::string> out;
  for (const OpLaunchers& l : r.ops) {
    std::string op = m.ops.category[l.op] == OpCategory::kKernel ? std::string(m.strings.Get(m.ops.name[l.op]))
                                                                 : std::string(OpCategoryName(m.ops.category[l.op]));
    out[op] = RangeName(m, l.innermost_op) + "|" + RangeName(m, l.outermost_op) + "|" + RangeName(m, l.annotation);
  }
  return out;
}

std::map<std::string, int64_t> TimeByName(const TraceModel& m, const std::vector<LauncherTotal>& totals) {
  std::map<std::string, int64_t> out;
  for (const LauncherTotal& t : totals) out[t.name == kNoString ? "-" : std::string(m.strings.Get(t.name))] = t.gpu_ns;
  return out;
}

TEST(OpAttribution, EachTorchKernelIsAttributedToTheOperatorAndAnnotationAroundItsLaunch) {
  TraceModel m = LoadSynthetic();
  OpAttributionResult r = AnalyzeOpAttribution(m, WholeTraceWindow(m));
  EXPECT_TRUE(r.has_cpu_ops);
  EXPECT_TRUE(r.has_annotations);
  EXPECT_EQ(r.op_count, 6);
  EXPECT_EQ(r.without_call, 0);
  const std::map<std::string, std::string> expected = {
      {"gemm_a", "aten::addmm|aten::linear|step"},  // launched inside addmm inside linear
      {"H2D", "aten::copy_|aten::copy_|step"},
      {"relu", "-|-|step"},  // launched between operators
      {"memset", "aten::zero_|aten::zero_|step"},
      {"flow_only", "-|-|step"},  // its call known only through the ac2g flow
      {"tail", "-|-|-"},          // launched after the step ended
  };
  EXPECT_EQ(Launchers(m, r), expected);
  EXPECT_EQ(r.in_cpu_op, 3);
  EXPECT_EQ(r.in_annotation, 5);
}

// Text and JSON read the totals only: without per-op rows the totals are
// the same and no op is held.
TEST(OpAttribution, TotalsWithoutPerOpRowsAreTheSame) {
  TraceModel m = LoadSynthetic();
  OpAttributionResult all = AnalyzeOpAttribution(m, WholeTraceWindow(m));
  OpAttributionResult totals = AnalyzeOpAttribution(m, WholeTraceWindow(m), /*per_op=*/false);
  EXPECT_EQ(all.ops.size(), 6u);
  EXPECT_TRUE(totals.ops.empty());
  EXPECT_EQ(totals.op_count, 6);
  EXPECT_EQ(totals.in_cpu_op, all.in_cpu_op);
  EXPECT_EQ(TimeByName(m, totals.by_operator), TimeByName(m, all.by_operator));
  EXPECT_EQ(TimeByName(m, totals.by_top_operator), TimeByName(m, all.by_top_operator));
  EXPECT_EQ(TimeByName(m, totals.by_annotation), TimeByName(m, all.by_annotation));
}

TEST(OpAttribution, GpuTimePerOperatorAndAnnotationSumsTheOpsTheyLaunched) {
  TraceModel m = LoadSynthetic();
  OpAttributionResult r = AnalyzeOpAttribution(m, WholeTraceWindow(m));
  EXPECT_EQ(r.gpu_ns, 20'000 + 19'750 + 5'001 + 1'000 + 2'000 + 1'000);
  EXPECT_EQ(TimeByName(m, r.by_operator),
            (std::map<std::string, int64_t>{
                {"aten::addmm", 20'000}, {"aten::copy_", 19'750}, {"aten::zero_", 1'000}, {"-", 8'001}}));
  EXPECT_EQ(TimeByName(m, r.by_top_operator),
            (std::map<std::string, int64_t>{
                {"aten::linear", 20'000}, {"aten::copy_", 19'750}, {"aten::zero_", 1'000}, {"-", 8'001}}));
  EXPECT_EQ(TimeByName(m, r.by_annotation), (std::map<std::string, int64_t>{{"step", 47'751}, {"-", 1'000}}));
  // Largest first; the unattributed row is an ordinary row by time.
  ASSERT_EQ(r.by_operator.size(), 4u);
  EXPECT_EQ(m.strings.Get(r.by_operator[0].name), "aten::addmm");
  EXPECT_EQ(r.by_operator[0].op_count, 1);
  EXPECT_EQ(r.by_operator[0].kernel_count, 1);
  EXPECT_EQ(r.by_operator[0].instance_count, 1);
  EXPECT_EQ(r.by_operator[2].name, kNoString);
  EXPECT_EQ(r.by_operator[2].op_count, 3);
  const LauncherTotal& step = r.by_annotation[0];
  EXPECT_EQ(m.strings.Get(step.name), "step");
  EXPECT_EQ(step.op_count, 5);
  EXPECT_EQ(step.kernel_count, 3);
  EXPECT_EQ(step.copy_count, 1);
  EXPECT_EQ(step.memset_count, 1);
  EXPECT_EQ(step.instance_count, 1);
}

TEST(OpAttribution, GpuTimeIsClippedToTheWindow) {
  TraceModel m = LoadSynthetic();
  Window w{kTraceBase + 25'000, kTraceBase + 60'000, {}};
  OpAttributionResult r = AnalyzeOpAttribution(m, w);
  EXPECT_EQ(r.op_count, 4);  // gemm_a, H2D, relu, memset
  EXPECT_EQ(TimeByName(m, r.by_operator),
            (std::map<std::string, int64_t>{
                {"aten::addmm", 5'000}, {"aten::copy_", 15'250}, {"aten::zero_", 1'000}, {"-", 5'001}}));
}

TEST(OpAttribution, NvtxRangesOfAStreamscopeTraceAreAnnotations) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Nvtx("epoch", 1, 0, 1'000);
  b.Nvtx("forward", 1, 100, 400, 1);
  b.Nvtx("other thread", 2, 0, 1'000);
  b.Kernel("k_fwd", 13, 500, 600, testing::ApiTimes{150, 160, 1});
  b.Kernel("k_epoch", 13, 700, 750, testing::ApiTimes{450, 460, 1});
  b.Kernel("k_none", 13, 2'000, 2'100, testing::ApiTimes{1'500, 1'510, 1});
  b.Kernel("k_unknown_call", 13, 800, 900);
  TraceModel m = b.Build();
  OpAttributionResult r = AnalyzeOpAttribution(m, Window{0, 3'000, {}});
  EXPECT_FALSE(r.has_cpu_ops);
  EXPECT_TRUE(r.has_annotations);
  EXPECT_EQ(r.without_call, 1);
  const std::map<std::string, std::string> expected = {
      {"k_fwd", "-|-|forward"}, {"k_epoch", "-|-|epoch"}, {"k_none", "-|-|-"}, {"k_unknown_call", "-|-|-"}};
  EXPECT_EQ(Launchers(m, r), expected);
  EXPECT_TRUE(r.by_operator.empty());
  EXPECT_EQ(TimeByName(m, r.by_annotation),
            (std::map<std::string, int64_t>{{"forward", 100}, {"epoch", 50}, {"-", 200}}));
}

TEST(OpAttribution, ATraceWithoutRangesHasNothingToAttribute) {
  ModelBuilder b;
  b.Stream(13, StreamKind::kNonBlocking);
  b.Kernel("k", 13, 500, 600, testing::ApiTimes{150, 160, 1});
  TraceModel m = b.Build();
  OpAttributionResult r = AnalyzeOpAttribution(m, Window{0, 1'000, {}});
  EXPECT_FALSE(r.any_ranges());
  EXPECT_TRUE(r.ops.empty());
  EXPECT_TRUE(r.by_annotation.empty());
}

}  // namespace
}  // namespace streamscope
