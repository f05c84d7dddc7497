// Analyses 8 and 9 on the committed real traces of the reference workloads
// (tests/data/<variant>.sqlite): racy reports its hazard, every correct
// variant reports zero certain hazards, misleading_timing's events miss
// work. The fixtures hold the memory-tracking tables since 9597a9d; a trace
// recorded without them (older, or with `-memory`) has empty memory_access /
// event_op tables, and these checks then skip with a message instead of
// passing vacuously.
#include <string>

#include "analyzer/analysis/memory/hazards.h"
#include "analyzer/analysis/memory/ownership.h"
#include "analyzer/analysis/memory/timing_audit.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/render/hazards_render.h"
#include "gtest/gtest.h"

namespace streamscope {
namespace {

TraceModel Load(const std::string& variant) {
  auto models = LoadTraceFile("tests/data/" + variant + ".sqlite");
  EXPECT_TRUE(models.ok()) << models.status();
  if (!models.ok() || models->size() != 1) return {};
  return std::move(models->front());
}

#define SKIP_WITHOUT_ACCESSES(model, variant)                                                           \
  if ((model).memory_accesses.empty())                                                                  \
  GTEST_SKIP() << "tests/data/" << (variant)                                                            \
               << ".sqlite has no memory_access rows (recorded before memory tracking); re-record the " \
                  "fixtures with tools/record_fixtures.sh to run this check"

TEST(HazardTraces, RacyReportsItsHazardNamingTheBufferAndBothOps) {
  TraceModel m = Load("racy");
  SKIP_WITHOUT_ACCESSES(m, "racy");
  HazardsResult r = AnalyzeHazards(m, WholeTraceWindow(m));
  ASSERT_GT(r.certain_count + r.possible_count, 0) << "racy drops the wait before refilling an input slot";
  const Hazard& h = r.certain_count > 0 ? r.certain.front() : r.possible.front();
  ASSERT_GE(h.allocation, 0) << "the hazard must name the buffer";
  EXPECT_NE(m.ops.stream[h.op_a], m.ops.stream[h.op_b]);
  // The refill (an H2D write) against the kernel still reading the slot.
  bool copy_and_kernel =
      (m.ops.category[h.op_a] == OpCategory::kHtoD && m.ops.category[h.op_b] == OpCategory::kKernel) ||
      (m.ops.category[h.op_b] == OpCategory::kHtoD && m.ops.category[h.op_a] == OpCategory::kKernel);
  bool any_copy_kernel = copy_and_kernel;
  for (const std::vector<Hazard>* list : {&r.certain, &r.possible}) {
    for (const Hazard& x : *list) {
      any_copy_kernel |=
          (m.ops.category[x.op_a] == OpCategory::kHtoD && m.ops.category[x.op_b] == OpCategory::kKernel) ||
          (m.ops.category[x.op_b] == OpCategory::kHtoD && m.ops.category[x.op_a] == OpCategory::kKernel);
    }
  }
  EXPECT_TRUE(any_copy_kernel);
  std::string sentence = HazardSentence(m, h);
  EXPECT_NE(sentence.find("allocation "), std::string::npos) << sentence;
  EXPECT_NE(sentence.find("kernel "), std::string::npos) << sentence;
  EXPECT_NE(sentence.find("copy "), std::string::npos) << sentence;
}

class CorrectVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(CorrectVariant, ReportsZeroCertainHazards) {
  TraceModel m = Load(GetParam());
  SKIP_WITHOUT_ACCESSES(m, GetParam());
  HazardsResult r = AnalyzeHazards(m, WholeTraceWindow(m));
  EXPECT_EQ(r.certain_count, 0) << (r.certain.empty() ? std::string() : HazardSentence(m, r.certain.front()));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CorrectVariant,
                         ::testing::Values("overlapped", "sequential", "event_pipeline", "concurrent_kernels",
                                           "launch_individual", "launch_graph", "pageable", "legacy_default",
                                           "implicit_sync", "cpu_starved", "persistent_kernel"));

TEST(HazardTraces, MisleadingTimingEventsMissTheWorkOnOtherStreams) {
  TraceModel m = Load("misleading_timing");
  bool has_elapsed = false;
  for (const EventOp& e : m.event_ops) has_elapsed |= e.op == EventOp::Op::kElapsed;
  if (!has_elapsed) {
    GTEST_SKIP() << "tests/data/misleading_timing.sqlite has no event_op 'elapsed' rows (recorded before "
                    "memory tracking); re-record the fixtures to run this check";
  }
  HappensBefore order(m);
  TimingAuditResult r = AnalyzeTimingAudit(m, &order, WholeTraceWindow(m));
  ASSERT_GT(r.elapsed_count, 0);
  EXPECT_EQ(r.elapsed_undetermined, 0);
  EXPECT_GT(r.elapsed_missing_work, 0);
  ASSERT_FALSE(r.elapsed.empty());
  const ElapsedAudit& a = r.elapsed.front();
  EXPECT_GT(a.scope_outside_ns + a.inside_other_streams_ns, 0);
  EXPECT_GT(a.scope_other_stream_ops, 0);
}

}  // namespace
}  // namespace streamscope

namespace streamscope {
namespace {

// Windows that split a real trace into consecutive slices see every access
// and every hazard exactly once: what one window finds by binary search
// adds up to what the whole-trace window finds.
TEST(HazardTraces, SlicesOfTheTraceAddUpToTheWholeTrace) {
  for (const char* variant : {"racy", "event_pipeline", "overlapped"}) {
    TraceModel m = Load(variant);
    SKIP_WITHOUT_ACCESSES(m, variant);
    TraceHazards prepared = PrepareHazards(m);
    Window whole = WholeTraceWindow(m);
    OwnershipResult own_whole = AnalyzeOwnership(m, prepared.accesses, whole);
    HazardsResult haz_whole = SummarizeHazards(m, prepared.all, whole, {}, prepared.stats);
    ASSERT_GT(own_whole.accesses_in_window, 0) << variant;
    for (int slices : {2, 7, 50}) {
      int64_t accesses = 0, reads = 0, hazards = 0, observed = 0;
      for (int k = 0; k < slices; ++k) {
        Window w = whole;
        w.start_ns = whole.start_ns + (whole.end_ns - whole.start_ns) * k / slices;
        w.end_ns = k + 1 == slices ? whole.end_ns : whole.start_ns + (whole.end_ns - whole.start_ns) * (k + 1) / slices;
        OwnershipResult o = AnalyzeOwnership(m, prepared.accesses, w);
        accesses += o.accesses_in_window;
        for (const AllocationOwnership& a : o.allocations) reads += a.reads;
        HazardsResult h = SummarizeHazards(m, prepared.all, w, {}, prepared.stats);
        hazards += h.certain_count + h.possible_count;
        observed += h.certain_observed + h.possible_observed;
      }
      int64_t whole_reads = 0;
      for (const AllocationOwnership& a : own_whole.allocations) whole_reads += a.reads;
      EXPECT_EQ(accesses, own_whole.accesses_in_window) << variant << " in " << slices << " slices";
      EXPECT_EQ(reads, whole_reads) << variant << " in " << slices << " slices";
      EXPECT_EQ(hazards, haz_whole.certain_count + haz_whole.possible_count) << variant;
      EXPECT_EQ(observed, haz_whole.certain_observed + haz_whole.possible_observed) << variant;
    }
  }
}

}  // namespace
}  // namespace streamscope
