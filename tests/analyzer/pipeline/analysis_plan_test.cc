// The plan lists what each analysis reads (WithDependencies) and RunPlan
// runs every plan through it: a plan that asks for the diagnosis alone
// diagnoses as the diagnose command does, from the analyses it turned on;
// and where the diagnosis' contention step runs does not change it; a
// window whose dependency graph does not fit the memory budget is reported
// without it and says so.
#include "analyzer/pipeline/analysis_plan.h"

#include <utility>
#include <vector>

#include "analyzer/analysis/causes/graph_memory.h"
#include "analyzer/base/threads.h"
#include "analyzer/pipeline/memory_budget.h"
#include "analyzer/pipeline/prepared_trace.h"
#include "analyzer/pipeline/run_plan.h"
#include "gtest/gtest.h"
#include "tests/analyzer/analysis/causes/planted_traces.h"
#include "tests/analyzer/base/analyzer_threads_env.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope {
namespace {

TEST(AnalysisPlan, TheDiagnosisTurnsOnWhatItReads) {
  AnalysisPlan asked;
  asked.diagnose = true;
  AnalysisPlan plan = WithDependencies(asked);
  EXPECT_TRUE(plan.overlap && plan.gap_causes && plan.hidden_sync && plan.launch_stats);
  EXPECT_EQ(plan.overlap_options.max_ops_per_interval, 0);  // the diagnosis reads totals
  EXPECT_FALSE(plan.idle_gaps || plan.communication || plan.critical_path || NeedsHazards(plan));

  AnalysisPlan overlap;  // reads nothing: as asked
  overlap.overlap = true;
  overlap.overlap_options.max_ops_per_interval = 8;
  plan = WithDependencies(overlap);
  EXPECT_FALSE(plan.diagnose || plan.gap_causes || plan.hidden_sync || plan.launch_stats);
  EXPECT_EQ(plan.overlap_options.max_ops_per_interval, 8);
}

std::vector<DiagnoseCause> Ranking(const DiagnoseResult& r) {
  std::vector<DiagnoseCause> causes;
  for (int32_t i : r.RankOrder()) causes.push_back(r.findings[i].cause);
  return causes;
}

TEST(RunPlan, ADiagnosisAskedAloneIsTheDiagnoseCommands) {
  TraceModel m = testing::HostSleepTrace();
  const Window w = WholeTraceWindow(m);
  AnalysisPlan asked;
  asked.diagnose = true;
  absl::StatusOr<WindowResults> alone = RunPlan(m, w, asked);
  absl::StatusOr<WindowResults> command = RunPlan(m, w, DiagnosePlan({}));
  ASSERT_TRUE(alone.ok() && command.ok());
  ASSERT_NE(alone->diagnose.primary(), nullptr);
  EXPECT_EQ(alone->diagnose.primary()->cause, DiagnoseCause::kCpuStarvation);  // the 2 ms host sleeps
  EXPECT_EQ(Ranking(alone->diagnose), Ranking(command->diagnose));
  // What the diagnosis read is in the results too.
  EXPECT_EQ(alone->gap_causes.idle_ns, command->gap_causes.idle_ns);
  EXPECT_GT(alone->gap_causes.idle_ns, 0);
}

// The last window drops the facts only the analyses before the graph read;
// its results are the same, and so are those of a window analyzed after it
// (the facts are built again).
TEST(RunPlan, TheLastWindowForgetsFactsWithTheSameResults) {
  TraceModel m = testing::HostSleepTrace();
  const Window w = WholeTraceWindow(m);
  AnalysisPlan plan = ReportPlan(false, 5, 0);
  plan.threads = false;
  absl::StatusOr<WindowResults> kept = RunPlan(m, w, plan);
  plan.last_window = true;
  absl::StatusOr<WindowResults> forgot = RunPlan(m, w, plan);
  plan.last_window = false;
  absl::StatusOr<WindowResults> again = RunPlan(m, w, plan);
  ASSERT_TRUE(kept.ok() && forgot.ok() && again.ok());
  for (const WindowResults* r : {&*forgot, &*again}) {
    EXPECT_EQ(Ranking(r->diagnose), Ranking(kept->diagnose));
    EXPECT_EQ(r->hidden_sync.explicit_host_ns, kept->hidden_sync.explicit_host_ns);
    EXPECT_EQ(r->hidden_sync.implicit_calls.size(), kept->hidden_sync.implicit_calls.size());
    EXPECT_EQ(r->launch_stats.kernels.size(), kept->launch_stats.kernels.size());
    EXPECT_EQ(r->critical_path.segments.size(), kept->critical_path.segments.size());
    EXPECT_EQ(r->gap_causes.idle_ns, kept->gap_causes.idle_ns);
  }
  ASSERT_NE(kept->diagnose.primary(), nullptr);
  EXPECT_EQ(forgot->diagnose.primary()->impact_ns, kept->diagnose.primary()->impact_ns);
}

// 70,000 kernels, every other one slowed by a copy beside it: the
// diagnose command's plan has no threads, but a window this large gets the
// contention step on a thread of its own, a trace this large its first
// launches (found once, for the default steady state the what-ifs read) and
// a graph this large its calls' events put in order beside its ops' (none
// under STREAMSCOPE_THREADS=1), and the diagnosis is the same either way.
TEST(RunPlan, ALargeWindowsContentionRunsBesideAndFindsTheSame) {
  testing::ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking);
  b.Stream(2, StreamKind::kNonBlocking);
  constexpr int64_t kKernels = 70'000;
  for (int64_t i = 0; i < kKernels; ++i) {
    const int64_t t = i * 10'000;
    const bool slowed = i % 2 == 1;
    b.Kernel("k", 1, t, t + (slowed ? 6'000 : 3'000), testing::ApiTimes{t - 2'000, t - 1'000, 1});
    if (slowed) b.Copy(OpCategory::kHtoD, MemoryKind::kPinned, MemoryKind::kDevice, 2, t, t + 6'000);
  }
  TraceModel m = b.Build();
  const Window w = WholeTraceWindow(m);
  auto diagnose = [&](bool one_thread, int64_t* threads) {
    absl::StatusOr<WindowResults> r = testing::WithAnalyzerThreads(
        !one_thread, [&] { return RunPlan(m, w, DiagnosePlan({})); }, threads);
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->diagnose : DiagnoseResult{};
  };
  int64_t threads = 0, none = 0;
  const DiagnoseResult beside = diagnose(false, &threads);
  const DiagnoseResult alone = diagnose(true, &none);
  EXPECT_EQ(threads, 3);
  EXPECT_EQ(none, 0);
  std::vector<std::pair<DiagnoseCause, int64_t>> with_thread, without;
  for (const DiagnoseFinding& f : beside.findings) with_thread.push_back({f.cause, f.impact_ns});
  for (const DiagnoseFinding& f : alone.findings) without.push_back({f.cause, f.impact_ns});
  EXPECT_EQ(with_thread, without);
  bool contention = false;
  for (const auto& [cause, impact] : with_thread) contention |= cause == DiagnoseCause::kContention && impact > 0;
  EXPECT_TRUE(contention);  // the kernels beside copies ran twice as long
}

// 70,000 steps of a host-bound loop (each a 3 us kernel launched 2 us
// before it starts, 10 us apart): the GPU idles 7 us a step. For a window
// this large the report classifies the gaps again beside the critical path,
// on a thread of its own; the path cites the same idle time, cause for
// cause and segment kind for kind, as on one thread.
TEST(RunPlan, ALargeWindowsPathCitesTheSameIdleWhenItsGapsAreClassifiedBesideIt) {
  testing::ModelBuilder b;
  b.Stream(1, StreamKind::kNonBlocking);
  constexpr int64_t kSteps = 70'000;
  for (int64_t i = 0; i < kSteps; ++i) {
    const int64_t t = 5'000 + i * 10'000;
    b.Kernel("k", 1, t, t + 3'000, testing::ApiTimes{t - 2'000, t - 1'000, 1});
  }
  TraceModel m = b.Build();
  const Window w = WholeTraceWindow(m);
  auto path = [&](bool threads) {
    absl::StatusOr<WindowResults> r =
        testing::WithAnalyzerThreads(threads, [&] { return RunPlan(m, w, ReportPlan(false, 5, 0)); });
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->critical_path : CriticalPath{};
  };
  const CriticalPath beside = path(true), alone = path(false);
  ASSERT_TRUE(beside.idle.cited);
  ASSERT_TRUE(alone.idle.cited);
  EXPECT_EQ(beside.segments.size(), alone.segments.size());
  EXPECT_EQ(beside.idle.idle_ns, alone.idle.idle_ns);
  EXPECT_EQ(beside.idle.cause_ns, alone.idle.cause_ns);
  EXPECT_EQ(beside.idle.by_segment, alone.idle.by_segment);
  // The path crosses nearly all of the idle time: 7 us of each step.
  EXPECT_GE(alone.idle.idle_ns, (kSteps - 1) * 7'000);
}

// ThreeCausesTrace (planted_traces.h, diagnose_ranking_test.cc): the host
// work in 'prepare' would save 5000 us, the syncs 2855, the pageable copies
// 1550; by measured cost the copies (2000 us) come before the syncs. Under a
// budget of 1 MiB the graph (16 MiB and more) is not built: the findings
// are ranked by measured cost, without estimates, the critical path is not
// looked for, and both say what was needed; without a limit the same
// window is ranked by estimated saving.
TEST(RunPlan, AGraphOverTheMemoryBudgetIsSkippedAndSaysSo) {
  TraceModel m = testing::ThreeCausesTrace();
  const Window w = WholeTraceWindow(m);
  AnalysisPlan plan = ReportPlan(false, 5, 0);
  SetMemoryLimit(int64_t{1} << 20);
  absl::StatusOr<WindowResults> tight = RunPlan(m, w, plan);
  SetMemoryLimit(0);  // no limit
  absl::StatusOr<WindowResults> free = RunPlan(m, w, plan);
  SetMemoryLimit(std::nullopt);
  ASSERT_TRUE(tight.ok() && free.ok());

  ASSERT_TRUE(tight->diagnose.over_memory.has_value());
  const GraphOverMemory& over = *tight->diagnose.over_memory;
  EXPECT_TRUE(over.limit_set);
  EXPECT_EQ(over.items, static_cast<int64_t>(m.ops.size() + m.api.size()));  // every op and call starts inside
  EXPECT_EQ(over.need_bytes, EstimateGraphMemory(m, w).bytes);
  EXPECT_GE(over.need_bytes, int64_t{16} << 20);
  EXPECT_LT(over.room_bytes, over.need_bytes);
  ASSERT_TRUE(tight->critical_path.over_memory.has_value());
  EXPECT_EQ(tight->critical_path.over_memory->need_bytes, over.need_bytes);
  EXPECT_TRUE(tight->critical_path.segments.empty());
  EXPECT_EQ(tight->critical_path.window.start_ns, w.start_ns);
  auto three = [](const DiagnoseResult& r) {
    std::vector<DiagnoseCause> order;
    for (DiagnoseCause c : Ranking(r)) {
      if (c == DiagnoseCause::kCpuStarvation || c == DiagnoseCause::kPageableCopies || c == DiagnoseCause::kSyncBetween)
        order.push_back(c);
    }
    return order;
  };
  EXPECT_EQ(three(tight->diagnose),
            (std::vector<DiagnoseCause>{DiagnoseCause::kCpuStarvation, DiagnoseCause::kPageableCopies,
                                        DiagnoseCause::kSyncBetween}));
  for (const DiagnoseFinding& f : tight->diagnose.findings) EXPECT_FALSE(f.saving_estimated) << f.impact_ns;
  EXPECT_FALSE(tight->diagnose.combined.evaluated);

  EXPECT_FALSE(free->diagnose.over_memory.has_value());
  EXPECT_FALSE(free->critical_path.over_memory.has_value());
  EXPECT_FALSE(free->critical_path.segments.empty());
  EXPECT_EQ(three(free->diagnose),
            (std::vector<DiagnoseCause>{DiagnoseCause::kCpuStarvation, DiagnoseCause::kSyncBetween,
                                        DiagnoseCause::kPageableCopies}));
  ASSERT_NE(free->diagnose.primary(), nullptr);
  EXPECT_TRUE(free->diagnose.primary()->saving_estimated);
  EXPECT_GT(free->diagnose.primary()->estimated_saving_ns, 0);
  EXPECT_EQ(over.window_end_ns, w.end_ns);
  EXPECT_EQ(over.fits_from_ns, w.end_ns);  // under 1 MiB not even an empty graph (16 MiB) fits
  EXPECT_EQ(MemoryLimitFromMib(3), int64_t{3} << 20);
  EXPECT_EQ(MemoryLimitFromMib(int64_t{1} << 50), 0);  // past 64 bits of bytes: no limit
  // What else the window reports does not depend on the graph.
  EXPECT_EQ(tight->gap_causes.idle_ns, free->gap_causes.idle_ns);
  EXPECT_EQ(Ranking(tight->diagnose).size(), Ranking(free->diagnose).size());
}

// A report's plan builds the dependency graph, so its trace preparation
// builds the graph's whole-trace facts on a thread of its own; a last
// window drops the ones only the graph reads once it is built. Neither
// changes a result: the ranking and its estimates are those of a trace
// prepared without them, and a window analyzed after the facts were
// dropped builds them again and finds the same.
TEST(RunPlan, TheGraphsFactsBuiltAheadOrDroppedChangeNothing) {
  AnalysisPlan plan = ReportPlan(false, 5, 0);
  EXPECT_TRUE(NeedsDependencyGraph(plan));
  EXPECT_FALSE(NeedsDependencyGraph(ComparePlan()));
  auto savings = [](const WindowResults& r) {
    std::vector<std::pair<DiagnoseCause, int64_t>> out;
    for (int32_t i : r.diagnose.RankOrder()) {
      out.push_back({r.diagnose.findings[i].cause, r.diagnose.findings[i].estimated_saving_ns});
    }
    return out;
  };
  TraceModel ahead = testing::ThreeCausesTrace();
  TracePreparation what;
  what.dependency_graph_facts = true;
  const int64_t before = TaskThreads::Started();
  ASSERT_TRUE(PrepareTrace(ahead, what).ok());
  EXPECT_EQ(TaskThreads::Started() - before, ThreadsAllowed() ? 1 : 0);
  plan.last_window = true;
  absl::StatusOr<WindowResults> first = RunPlan(ahead, WholeTraceWindow(ahead), plan);
  absl::StatusOr<WindowResults> again = RunPlan(ahead, WholeTraceWindow(ahead), plan);  // facts dropped by the first
  TraceModel plain = testing::ThreeCausesTrace();
  plan.last_window = false;
  absl::StatusOr<WindowResults> reference = RunPlan(plain, WholeTraceWindow(plain), plan);
  ASSERT_TRUE(first.ok() && again.ok() && reference.ok());
  ASSERT_FALSE(savings(*reference).empty());
  EXPECT_EQ(savings(*first), savings(*reference));
  EXPECT_EQ(savings(*again), savings(*reference));
  EXPECT_EQ(first->critical_path.segments.size(), reference->critical_path.segments.size());
  EXPECT_EQ(again->critical_path.segments.size(), reference->critical_path.segments.size());
  ASSERT_NE(reference->diagnose.primary(), nullptr);
  EXPECT_EQ(reference->diagnose.primary()->cause, DiagnoseCause::kCpuStarvation);  // the host work in 'prepare'
  EXPECT_GT(reference->diagnose.primary()->estimated_saving_ns, 0);
}

// The part of a window whose graph fits: the earliest start from which the
// rest of the window needs at most the room, to the nanosecond.
TEST(GraphMemory, TheEarliestStartThatFitsIsExact) {
  TraceModel m = testing::ThreeCausesTrace();
  const Window w = WholeTraceWindow(m);
  const int64_t from_third_step = (1110 + 1720 * 2) * 1000;  // the third step's first call (ns)
  auto need = [&](int64_t start) {
    Window rest = w;
    rest.start_ns = start;
    return EstimateGraphMemory(m, rest).bytes;
  };
  const int64_t room = need(from_third_step);
  auto fits = [&](int64_t start) { return need(start) <= room; };
  const int64_t start = EarliestStartThatFits(m, w, room);
  EXPECT_LE(start, from_third_step);
  EXPECT_TRUE(fits(start));
  EXPECT_FALSE(fits(start - 1));
  EXPECT_GT(start, w.start_ns);
  EXPECT_EQ(EarliestStartThatFits(m, w, int64_t{1} << 40), w.start_ns);  // all of it
  EXPECT_EQ(EarliestStartThatFits(m, w, 0), w.end_ns);                   // none
}

}  // namespace
}  // namespace streamscope
