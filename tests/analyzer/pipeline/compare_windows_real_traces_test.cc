// Compare's window choice on recorded reference-workload traces
// (tests/data) whose 'measured' range is removed, so that compare must pick
// the windows itself: each run's steady state is then a repeating kernel
// sequence. Skips when a trace is absent.
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include <sqlite3.h>
#include "analyzer/commands/compare_runner.h"
#include "analyzer/pipeline/compare.h"
#include "analyzer/render/compare_render.h"
#include "analyzer/render/compare_windows_render.h"
#include "gtest/gtest.h"

namespace streamscope {
namespace {

// A copy of tests/data/<variant>.sqlite without its NVTX range 'measured';
// "" when the trace is absent.
std::string WithoutMeasured(const std::string& variant) {
  std::string from = "tests/data/" + variant + ".sqlite";
  struct stat st;
  if (stat(from.c_str(), &st) != 0) return "";
  std::string to = ::testing::TempDir() + "/compare_windows_" + variant + ".sqlite";
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(to.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "DELETE FROM nvtx_range WHERE name_id IN (SELECT id FROM string WHERE value = 'measured')",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  return to;
}

#define LOAD_WITHOUT_MEASURED_OR_SKIP(var, variant)                                        \
  std::string var##_path = WithoutMeasured(variant);                                       \
  if (var##_path.empty()) GTEST_SKIP() << "tests/data/" << variant << ".sqlite is absent"; \
  auto var##_loaded = LoadSingleProcessTrace(var##_path);                                  \
  ASSERT_TRUE(var##_loaded.ok()) << var##_loaded.status();                                 \
  TraceModel var = std::move(*var##_loaded)

TEST(CompareWindowsRealTraces, GraphVsIndividualLaunchesIsComparedPerKernelAndVerified) {
  LOAD_WITHOUT_MEASURED_OR_SKIP(control, "launch_individual");
  LOAD_WITHOUT_MEASURED_OR_SKIP(variant, "launch_graph");
  CompareOptions o;
  o.goal = CompareGoal::kSpeedup;
  auto r = Compare({&control}, {&variant}, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->window_rule, CompareWindowRule::kSteadyStateMatched)
      << CompareWindowNoteText(r->window_rule, r->window_note);
  EXPECT_TRUE(r->per_instance);
  EXPECT_EQ(r->control[0].window.instances, 501);  // 'TinyStep' x501, a sequence of 1 kernel
  EXPECT_EQ(r->variant[0].window.instances, 501);
  EXPECT_TRUE(r->work_same);
  // The graph's kernel sequence spans cudaGraphInstantiate (3.38 ms): a
  // one-off period, not the replay's pace. Whole GPU activity (the rule
  // before) called the graph 129% slower (NO_GAIN).
  EXPECT_EQ(r->verdict, CompareVerdict::kVerified) << CompareVerdictSentence(*r);
  EXPECT_EQ(r->control_total_ns, 6210);
  EXPECT_EQ(r->variant_total_ns, 1017);
}

TEST(CompareWindowsRealTraces, SequentialVsOverlappedIsComparedPerChunk) {
  LOAD_WITHOUT_MEASURED_OR_SKIP(control, "sequential");
  LOAD_WITHOUT_MEASURED_OR_SKIP(variant, "overlapped");
  auto r = Compare({&control}, {&variant}, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->window_rule, CompareWindowRule::kSteadyStateMatched)
      << CompareWindowNoteText(r->window_rule, r->window_note);
  EXPECT_EQ(r->control[0].window.instances, 9);  // 'ChunkTransform': a warm-up launch and 8 chunks
  EXPECT_TRUE(r->work_same);
  EXPECT_EQ(r->verdict, CompareVerdict::kVerified) << CompareVerdictSentence(*r);
  EXPECT_EQ(r->control_total_ns, 260'006);
  EXPECT_EQ(r->variant_total_ns, 100'239);
}

}  // namespace
}  // namespace streamscope
