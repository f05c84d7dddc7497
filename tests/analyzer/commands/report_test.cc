// `streamscope report` end to end through RunReport: findings in text,
// the JSON structure, CSV tables, --save, and one clear line with a
// distinct exit code for every kind of bad input.
#include "analyzer/commands/report_runner.h"

#include <dirent.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "analyzer/base/units.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/diagnose_runner.h"
#include "analyzer/convert/trace_table_writer.h"
#include "analyzer/pipeline/analysis_plan.h"
#include "analyzer/render/diagnose_render.h"
#include "analyzer/storage/analysis_saver.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/importers/bundled_traces.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::BundledTraces;

using testing::ExecSql;
using testing::SyntheticTrace;
using testing::TempTracePath;

struct Outcome {
  int code;
  std::string out, err;
};

Outcome RunIt(ReportOptions options) {
  std::ostringstream out, err;
  int code = ExitWith(RunReport(options, out, err), err);
  return {code, out.str(), err.str()};
}

ReportOptions For(const std::string& path) {
  ReportOptions o;
  o.traces = {path};
  return o;
}

SyntheticTrace OverlappedTrace(int64_t pid = 4242) {
  SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2).Stream(3);
  t.Meta("pid", std::to_string(pid));
  t.Kernel(1, 100, 300, "k");
  t.Copy(OpCategory::kHtoD, 2, 200, 400);
  t.Copy(OpCategory::kDtoH, 3, 350, 500);
  t.Kernel(1, 600, 700, "k");
  t.Nvtx("measured", 90, 510);
  t.Mark("streamscope", "workload=overlap_pinned", 10);
  t.Mark("streamscope", "param:chunks=4", 11);
  t.Mark("streamscope", "validation=passed", 800);
  return t;
}

std::string Overlapped(int64_t pid = 4242) {
  std::string path = TempTracePath("report");
  EXPECT_TRUE(OverlappedTrace(pid).WriteFile(path).ok());
  return path;
}

int64_t CountRows(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  int64_t n = -1;
  if (sqlite3_prepare_v2(db, ("SELECT count(*) FROM " + table).c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    n = sqlite3_column_int64(stmt, 0);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return n;
}

// One line, "streamscope: <file>: ...".
void ExpectOneLineAbout(const Outcome& o, const std::string& path, const std::string& what) {
  EXPECT_EQ(o.err.rfind("streamscope: " + path + ": ", 0), 0u) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_NE(o.err.find(what), std::string::npos) << o.err;
  EXPECT_TRUE(o.out.empty());
}

TEST(Report, TextStatesTheOverlapAsASentenceWithTheOpsBehindIt) {
  ReportOptions opt = For(Overlapped());
  opt.gap_threshold_ns = 0;
  Outcome o = RunIt(opt);
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_NE(o.out.find("H2D copies overlapped compute for 100 ns of 200 ns possible (50%)"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("D2H copies never overlapped compute"), std::string::npos);
  EXPECT_NE(o.out.find("kernel 1 'k' (stream 1); copy 1 H2D"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("Workload: overlap_pinned (chunks=4); validation passed."), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("2 copy engines"), std::string::npos);
  EXPECT_NE(o.out.find("100 ns at +400 ns [500, 600) ns: after copy 2 D2H"), std::string::npos) << o.out;
}

TEST(Report, JsonHasTheDocumentedStructure) {
  ReportOptions opt = For(Overlapped());
  opt.format = ReportOptions::Format::kJson;
  opt.window.kind = WindowSpec::Kind::kNvtxRange;
  opt.window.nvtx_name = "measured";
  Outcome o = RunIt(opt);
  ASSERT_EQ(o.code, kExitOk) << o.err;
  nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["schema_version"], 3);
  EXPECT_EQ(j["window_spec"]["kind"], "nvtx");
  ASSERT_EQ(j["traces"].size(), 1u);
  const nlohmann::json& t = j["traces"][0];
  EXPECT_EQ(t["pid"], 4242);
  EXPECT_EQ(t["summary"]["workload"]["variant"], "overlap_pinned");
  EXPECT_EQ(t["summary"]["workload"]["validation"], "passed");
  EXPECT_EQ(t["summary"]["records_dropped"], 0);
  ASSERT_EQ(t["windows"].size(), 1u);
  const nlohmann::json& w = t["windows"][0];
  EXPECT_EQ(w["start_ns"], 90);
  EXPECT_EQ(w["end_ns"], 510);
  const nlohmann::json& dev = w["overlap"]["devices"][0];
  EXPECT_EQ(dev["device_id"], 0);
  EXPECT_EQ(dev["exposed_copy_ns"], 200);
  bool found = false;
  for (const auto& p : dev["pairs"]) {
    if (p["pair"] != "compute|H2D") continue;
    found = true;
    EXPECT_EQ(p["overlapped_ns"], 100);
    EXPECT_EQ(p["possible_ns"], 200);
    EXPECT_DOUBLE_EQ(p["hidden_share"].get<double>(), 0.5);
    ASSERT_EQ(p["longest_intervals"].size(), 1u);
    EXPECT_EQ(p["longest_intervals"][0]["ops"][0]["table"], "kernel");
    EXPECT_EQ(p["longest_intervals"][0]["ops"][0]["id"], 1);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(w["idle_gaps"]["devices"][0]["idle_ns"], 420 - 400);
  EXPECT_TRUE(j["combined"]["total"].contains("busy_ns"));
}

// 12 instances of 'step', each a kernel then a copy; instance 7 is the
// longest (a 500 ns host gap before its copy).
std::string TwelveSteps(int copy_engines = 2) {
  SyntheticTrace t;
  t.Device(0, copy_engines).Stream(1).Stream(2);
  for (int i = 0; i < 12; ++i) {
    int64_t base = 1000 + 2000 * i, extra = i == 6 ? 500 : 0;
    t.Kernel(1, base + 10, base + 400, "k");
    t.Copy(OpCategory::kHtoD, 2, base + 200 + extra, base + 600 + extra);
    t.Nvtx("step", base, base + 700 + extra);
  }
  std::string path = TempTracePath("steps");
  EXPECT_TRUE(t.WriteFile(path).ok());
  return path;
}

TEST(Report, ManyInstancesAreSummarizedInTextAndKeptInFullInJson) {
  ReportOptions opt = For(TwelveSteps());
  opt.window.kind = WindowSpec::Kind::kNvtxRange;
  opt.window.nvtx_name = "step";
  opt.top = 3;
  Outcome o = RunIt(opt);
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_NE(
      o.out.find("Instances of NVTX 'step': 12, 8.90 us in all; each one median 700 ns, p90 700 ns, max 1.20 us.\n"
                 "  Slow (> 1.5x the median duration): 1.\n"),
      std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("The 3 longest:\n    #7 1.20 us (slow) at +12.0 us: GPU busy 66%, copies hidden 0%"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("The longest instance in full:\n\nWindow NVTX 'step' #7: 1.20 us"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("Window NVTX 'step' #1:"), std::string::npos) << "only the longest in full";

  opt.format = ReportOptions::Format::kJson;
  Outcome j = RunIt(opt);
  ASSERT_EQ(j.code, kExitOk) << j.err;
  nlohmann::json doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["traces"][0]["windows"].size(), 12u);
  EXPECT_EQ(doc["traces"][0]["windows"][6]["label"], "NVTX 'step' #7");
  EXPECT_EQ(doc["traces"][0]["windows"][6]["length_ns"], 1200);
  // Written window by window, in the layout of one dump of the whole.
  EXPECT_EQ(j.out, doc.dump(2) + "\n");
}

// The interval tables are generated while written (tens of millions of
// rows at 10M ops): in CSV and in --save they must come out complete, with
// the window index first, in window order.
TEST(Report, GeneratedIntervalTablesComeOutCompleteInWindowOrder) {
  std::string path = TwelveSteps();
  ReportOptions opt = For(path);
  opt.window.kind = WindowSpec::Kind::kNvtxRange;
  opt.window.nvtx_name = "step";
  opt.format = ReportOptions::Format::kCsv;
  Outcome o = RunIt(opt);
  ASSERT_EQ(o.code, kExitOk) << o.err;
  size_t at = o.out.find("# table: analysis_overlap_interval_op\n");
  ASSERT_NE(at, std::string::npos);
  std::istringstream lines(o.out.substr(at));
  std::string line;
  std::getline(lines, line);  // "# table"
  std::getline(lines, line);
  EXPECT_EQ(line, "window_index,device_id,interval_id,op_table,op_id");
  std::vector<int> windows;
  while (std::getline(lines, line) && !line.empty()) windows.push_back(std::stoi(line.substr(0, line.find(','))));
  // One compute|H2D interval with its kernel and its copy in every step but
  // #7 (index 6), whose copy starts after the kernel ended.
  std::vector<int> expected;
  for (int w = 0; w < 12; ++w) {
    if (w != 6) expected.insert(expected.end(), {w, w});
  }
  EXPECT_EQ(windows, expected);

  opt.format = ReportOptions::Format::kText;
  opt.save = true;
  ASSERT_EQ(RunIt(opt).code, kExitOk);
  EXPECT_EQ(CountRows(path, "analysis_overlap_interval_op"), 22);
  EXPECT_EQ(CountRows(path, "analysis_overlap_interval"), 11);
}

// `diagnose` over many instances: causes across them, then the worst one in
// full. On a GPU without copy engines every step's copy waits for compute:
// the hardware is the primary cause in all 12, each time for the 390 ns of
// its kernel; among equals the earliest is the worst (#1).
TEST(Report, DiagnoseOverManyInstancesCountsThePrimaryCauses) {
  DiagnoseCommandOptions opt;
  opt.traces = {TwelveSteps(/*copy_engines=*/0)};
  opt.diagnose.min_impact_ns = 0;  // the synthetic steps last nanoseconds
  opt.diagnose.min_impact_share = 0;
  opt.window_given = true;
  opt.window.kind = WindowSpec::Kind::kNvtxRange;
  opt.window.nvtx_name = "step";
  std::ostringstream out, err;
  ASSERT_EQ(ExitWith(RunDiagnose(opt, out, err), err), kExitOk) << err.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("Diagnosis of 12 windows (NVTX 'step'). The primary cause of each:"), std::string::npos) << text;
  EXPECT_NE(text.find("  copy_engines: primary in 12 (100%), worst NVTX 'step' #1 (390 ns); found in 12 windows, "
                      "4.68 us in all\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("One window in full: --nvtx-instance K"), std::string::npos) << text;
  EXPECT_NE(text.find("in full:\nDiagnosis (NVTX 'step' #1, 700 ns"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n') < 40, true) << "a summary, not 12 diagnoses:\n" << text;
  opt.format = DiagnoseCommandOptions::Format::kJson;
  std::ostringstream jout, jerr;
  ASSERT_EQ(ExitWith(RunDiagnose(opt, jout, jerr), jerr), kExitOk) << jerr.str();
  EXPECT_EQ(nlohmann::json::parse(jout.str())["traces"][0]["windows"].size(), 12u);
}

TEST(Report, SeveralTracesAreAnalyzedPerProcessWithACombinedSummary) {
  ReportOptions opt = For(Overlapped(1));
  opt.traces.push_back(Overlapped(2));
  opt.format = ReportOptions::Format::kJson;
  Outcome o = RunIt(opt);
  ASSERT_EQ(o.code, kExitOk) << o.err;
  nlohmann::json j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["traces"].size(), 2u);
  ASSERT_EQ(j["combined"]["devices"].size(), 2u);
  EXPECT_EQ(j["combined"]["devices"][1]["pid"], 2);
  EXPECT_EQ(j["combined"]["total"]["busy_ns"], 2 * 500);
  opt.format = ReportOptions::Format::kText;
  Outcome text = RunIt(opt);
  EXPECT_NE(text.out.find("Combined over 2 processes"), std::string::npos);
}

TEST(Report, CsvPrintsEveryAnalysisTable) {
  ReportOptions opt = For(Overlapped());
  opt.format = ReportOptions::Format::kCsv;
  Outcome o = RunIt(opt);
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_NE(
      o.out.find("# table: analysis_overlap_pair\nwindow_index,device_id,pair,category_a,category_b,"
                 "overlapped_ns,possible_ns,hidden_share,interval_count\n0,0,compute|H2D,compute,H2D,100,200,0.5,1\n"),
      std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("# table: analysis_idle_gap\n"), std::string::npos);
}

// --section restricts what is computed and written in every format: the
// overlap alone is neither diagnosed nor ranked, and its figures are the
// same as in the full report.
TEST(Report, SectionsRestrictTheAnalysesAndTheJsonToWhatWasAsked) {
  const std::string path = Overlapped();
  ReportOptions full = For(path);
  full.format = ReportOptions::Format::kJson;
  Outcome all = RunIt(full);
  ASSERT_EQ(all.code, kExitOk) << all.err;
  ReportOptions part = full;
  part.sections = {"overlap", "launch-stats"};
  Outcome some = RunIt(part);
  ASSERT_EQ(some.code, kExitOk) << some.err;
  const nlohmann::json j = nlohmann::json::parse(some.out), k = nlohmann::json::parse(all.out);
  EXPECT_EQ(j["sections"], nlohmann::json({"overlap", "launch-stats"}));
  EXPECT_FALSE(k.contains("sections"));
  EXPECT_FALSE(j.contains("combined"));  // not asked for
  const nlohmann::json& w = j["traces"][0]["windows"][0];
  std::set<std::string> keys;
  for (const auto& [key, value] : w.items()) keys.insert(key);
  EXPECT_EQ(keys,
            (std::set<std::string>{"index", "label", "start_ns", "end_ns", "length_ns", "overlap", "launch_stats"}));
  EXPECT_EQ(w["overlap"], k["traces"][0]["windows"][0]["overlap"]);
  EXPECT_EQ(w["launch_stats"], k["traces"][0]["windows"][0]["launch_stats"]);

  AnalysisPlan plan = ReportPlan(false, 5, 0, {"overlap"});
  EXPECT_TRUE(plan.overlap);
  EXPECT_FALSE(plan.diagnose || plan.critical_path || plan.idle_gaps || plan.gap_causes || plan.hazards ||
               plan.op_attribution || NeedsHazards(plan));
  plan = ReportPlan(false, 5, 0, {"summary"});  // its leading findings come from the ranked diagnosis
  EXPECT_TRUE(plan.diagnose && plan.overlap && plan.idle_gaps && plan.gap_causes);
  EXPECT_FALSE(plan.critical_path || NeedsHazards(plan));
  plan = ReportPlan(false, 5, 0, {});
  EXPECT_TRUE(plan.diagnose && plan.critical_path && plan.hazards && plan.timing_audit && plan.op_attribution);
}

// Each section a window has prints on its own (critical-path once did not:
// it was missing from the sections that open a window's block).
TEST(Report, EveryWindowSectionPrintsOnItsOwn) {
  const std::string path = Overlapped();
  // (communication prints only for traces with collectives)
  for (const char* name : {"overlap", "idle-gaps", "gap-causes", "hidden-sync", "launch-stats", "diagnose",
                           "critical-path", "hazards", "timing-audit"}) {
    ReportOptions opt = For(path);
    opt.sections = {name};
    Outcome o = RunIt(opt);
    ASSERT_EQ(o.code, kExitOk) << name << ": " << o.err;
    EXPECT_NE(o.out.find("Window "), std::string::npos) << name << " printed: " << o.out;
    EXPECT_GT(o.out.size(), 150u) << name << " printed: " << o.out;
  }
}

// The conclusion, not only the figures: on recorded workloads whose cause
// is planted, a report of the diagnose section alone names the same primary
// cause as the full report, and it is the planted one.
TEST(Report, TheDiagnoseSectionAloneNamesThePlantedCauseOfRecordedWorkloads) {
  const std::vector<std::pair<std::string, std::string>> planted = {{"pageable", "pageable_copies"},
                                                                    {"sequential", "same_stream"},
                                                                    {"legacy_default", "legacy_default_stream"},
                                                                    {"tiny_sync", "round_trip"},
                                                                    {"implicit_sync", "implicit_sync_call"}};
  auto primary = [](const std::string& json) {
    std::string cause;
    const nlohmann::json report = nlohmann::json::parse(json);
    for (const auto& f : report["traces"][0]["windows"][0]["diagnose"]["findings"]) {
      if (f.value("primary", false)) cause = f["cause"].get<std::string>();
    }
    return cause;
  };
  for (const auto& [name, cause] : planted) {
    ReportOptions full = For("tests/data/" + name + ".sqlite");
    full.format = ReportOptions::Format::kJson;
    ReportOptions part = full;
    part.sections = {"diagnose"};
    Outcome a = RunIt(full), b = RunIt(part);
    ASSERT_EQ(a.code, kExitOk) << name << ": " << a.err;
    ASSERT_EQ(b.code, kExitOk) << name << ": " << b.err;
    EXPECT_EQ(primary(b.out), cause) << name;
    EXPECT_EQ(primary(b.out), primary(a.out)) << name;
  }
}

// The lines of `text` from the first that starts with `head` to the next
// empty line.
std::string Block(const std::string& text, const std::string& head) {
  size_t from = 0;
  if (!text.starts_with(head)) {
    from = text.find("\n" + head);
    if (from == std::string::npos) return "";
    ++from;
  }
  const size_t to = text.find("\n\n", from);
  return text.substr(from, to == std::string::npos ? std::string::npos : to + 1 - from);
}

// `--summary` ranks without the what-if replays when none of the findings
// it shows has a what-if cause, and with them otherwise: on every bundled
// trace it prints what the full report's summary prints (the same findings,
// order and estimates), in text and in JSON.
TEST(Report, TheSummaryAloneIsTheFullReportsSummaryOnEveryBundledTrace) {
  const std::vector<std::string> traces = BundledTraces();
  ASSERT_GE(traces.size(), 20u);
  int ranked_findings = 0;
  for (const std::string& path : traces) {
    SCOPED_TRACE(path);
    ReportOptions full = For(path);
    ReportOptions summary = full;
    summary.sections = {"summary"};
    Outcome a = RunIt(full), b = RunIt(summary);
    ASSERT_EQ(a.code, kExitOk) << a.err;
    ASSERT_EQ(b.code, kExitOk) << b.err;
    const std::string shown = Block(b.out, "Summary of window");
    ASSERT_FALSE(shown.empty()) << b.out;
    EXPECT_EQ(shown, Block(a.out, "Summary of window"));
    EXPECT_EQ(b.out, shown);  // nothing else
    if (shown.find("(estimate)") != std::string::npos) ++ranked_findings;
    full.format = summary.format = ReportOptions::Format::kJson;
    a = RunIt(full);
    b = RunIt(summary);
    ASSERT_EQ(a.code, kExitOk) << a.err;
    ASSERT_EQ(b.code, kExitOk) << b.err;
    const nlohmann::json x = nlohmann::json::parse(a.out), y = nlohmann::json::parse(b.out);
    EXPECT_EQ(y["traces"][0]["windows"][0]["summary"], x["traces"][0]["windows"][0]["summary"]);
  }
  EXPECT_GT(ranked_findings, 10);  // most summaries show an estimate: the replays still run for those
}

// The summary leads with what the diagnosis leads with, on programs nobody
// here wrote. NVIDIA's jacobiCudaGraphs launched op by op (H100): the round
// trip per iteration first, then the pageable 8-byte read-back, whose
// measured cost is 0 ns (it idles the GPU no time of its own) but whose
// replay ends the window 10.2 ms sooner (the summary once left it out),
// then the host work between iterations. A
// vecAdd on managed memory (A100, Nsight export): its unified-memory
// migrations ran on no stream, so they are no same_stream finding (which
// once led, telling the user to split work over streams); what the summary
// leads with is its one kernel's grid of one block (small_grid).
TEST(Report, TheSummaryShowsTheDiagnosisLeadingFindingsOnRealTraces) {
  ReportOptions jacobi = For("tests/data/samples/jacobiCudaGraphs_nograph.sqlite");
  jacobi.format = ReportOptions::Format::kJson;
  Outcome a = RunIt(jacobi);
  ASSERT_EQ(a.code, kExitOk) << a.err;
  const nlohmann::json w = nlohmann::json::parse(a.out)["traces"][0]["windows"][0];
  const nlohmann::json& top = w["summary"]["top_findings"];
  ASSERT_EQ(top.size(), 3u) << top.dump();  // the text shows the first two within its 15 lines
  EXPECT_EQ(top[0]["cause"], "round_trip");
  EXPECT_EQ(top[1]["cause"], "pageable_copies");
  EXPECT_EQ(top[1]["impact_ns"], 0);
  EXPECT_GT(top[1]["estimated_saving_ns"].get<int64_t>(), 10'000'000);
  EXPECT_EQ(top[2]["cause"], "cpu_starvation");  // the host work alone: 2.04 ms

  ReportOptions um = For("tests/data/nsys/vecadd-um-a100.sqlite");
  um.format = ReportOptions::Format::kJson;
  Outcome b = RunIt(um);
  ASSERT_EQ(b.code, kExitOk) << b.err;
  const nlohmann::json v = nlohmann::json::parse(b.out)["traces"][0]["windows"][0];
  for (const nlohmann::json& f : v["diagnose"]["findings"]) EXPECT_NE(f["cause"], "same_stream") << f.dump();
  // Its one kernel ran add<<<1, 1>>> for 6.30 s: 107 of the 108 SMs empty.
  const nlohmann::json& um_top = v["summary"]["top_findings"];
  ASSERT_EQ(um_top.size(), 1u) << v["summary"].dump();
  EXPECT_EQ(um_top[0]["cause"], "small_grid");
}

// A summary runs the replays when a finding has a what-if cause, minor or
// not: its estimate can make it lead (a sync of small measured cost whose
// removal ends the window much sooner); without such a finding it runs none.
TEST(Report, ASummaryRunsTheReplaysOnlyWhenAFindingHasAWhatIfCause) {
  const AnalysisPlan summary = ReportPlan(false, 10, 10'000, {"summary"});
  EXPECT_TRUE(summary.ranking_shown.leading);
  EXPECT_FALSE(summary.ranking_shown.every_finding || summary.ranking_shown.primary);
  EXPECT_TRUE(ReportPlan(false, 10, 10'000, {}).ranking_shown.every_finding);
  EXPECT_TRUE(ReportPlan(false, 10, 10'000, {"summary", "diagnose"}).ranking_shown.every_finding);
  EXPECT_TRUE(ReportPlan(false, 10, 10'000, {"instances"}).ranking_shown.primary);
  DiagnoseResult r;
  DiagnoseFinding minor_sync;
  minor_sync.cause = DiagnoseCause::kSyncBetween;
  minor_sync.significant = false;
  DiagnoseFinding significant_event_wait;
  significant_event_wait.cause = DiagnoseCause::kEventWait;
  significant_event_wait.significant = true;
  r.findings = {significant_event_wait};
  EXPECT_FALSE(RankingNeedsWhatIf(r, summary.ranking_shown));  // event_wait has no what-if
  EXPECT_FALSE(RankingNeedsWhatIf(r, RankingShown{}));
  r.findings.push_back(minor_sync);
  EXPECT_TRUE(RankingNeedsWhatIf(r, summary.ranking_shown));  // the minor sync may save enough to lead
  EXPECT_TRUE(RankingNeedsWhatIf(r, RankingShown{}));
  RankingShown primary{false, false, true};
  EXPECT_TRUE(RankingNeedsWhatIf(r, primary));
  EXPECT_FALSE(RankingNeedsWhatIf(r, RankingShown{false, false, false}));  // nothing of the ranking shown
}

// `--section instances` over many NVTX instances prints each instance's main
// finding as the full report does (the replays run per instance when a
// finding may become primary through its estimate).
TEST(Report, TheInstancesAloneAreTheFullReportsInstances) {
  int with_findings = 0;
  for (const auto& [name, range] : std::vector<std::pair<std::string, std::string>>{
           {"library_gemm", "step"}, {"long_startup", "step"}, {"cpu_starved", "host_prepare"}}) {
    SCOPED_TRACE(name);
    ReportOptions full = For("tests/data/" + name + ".sqlite");
    full.window.kind = WindowSpec::Kind::kNvtxRange;
    full.window.nvtx_name = range;
    ReportOptions part = full;
    part.sections = {"instances"};
    Outcome a = RunIt(full), b = RunIt(part);
    ASSERT_EQ(a.code, kExitOk) << a.err;
    ASSERT_EQ(b.code, kExitOk) << b.err;
    const std::string shown = Block(b.out, "Instances of");
    ASSERT_FALSE(shown.empty()) << b.out;
    EXPECT_EQ(shown, Block(a.out, "Instances of"));
    if (shown.find("main finding") != std::string::npos) ++with_findings;
  }
  EXPECT_EQ(with_findings, 3);  // long_startup's steps: small_grid (a 2-block kernel on 132 SMs)
}

TEST(Report, SectionsPickTheCsvTablesAndAreRefusedWithSave) {
  const std::string path = Overlapped();
  ReportOptions opt = For(path);
  opt.format = ReportOptions::Format::kCsv;
  opt.sections = {"idle-gaps"};
  Outcome o = RunIt(opt);
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_NE(o.out.find("# table: analysis_idle_gap\n"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("# table: analysis_overlap_pair\n"), std::string::npos) << o.out;
  ReportOptions save = For(path);
  save.save = true;
  save.sections = {"overlap"};
  Outcome refused = RunIt(save);
  EXPECT_EQ(refused.code, kExitUsage);
  EXPECT_NE(refused.err.find("--save writes every analysis table"), std::string::npos) << refused.err;
  EXPECT_EQ(CountRows(path, "analysis_window"), -1);  // nothing written
}

TEST(Report, SaveWritesAnalysisTablesAndReplacesEarlierOnes) {
  std::string path = Overlapped();
  ReportOptions opt = For(path);
  opt.save = true;
  opt.gap_threshold_ns = 0;
  ASSERT_EQ(RunIt(opt).code, kExitOk);
  EXPECT_EQ(CountRows(path, "analysis_window"), 1);
  EXPECT_EQ(CountRows(path, "analysis_overlap_interval"), 2);
  EXPECT_EQ(CountRows(path, "analysis_overlap_interval_op"), 4);
  int64_t gaps = CountRows(path, "analysis_idle_gap");
  EXPECT_GT(gaps, 0);
  ASSERT_TRUE(ExecSql(path, "CREATE TABLE analysis_stale (x INTEGER);").ok());
  ASSERT_EQ(RunIt(opt).code, kExitOk);
  EXPECT_EQ(CountRows(path, "analysis_overlap_interval"), 2);
  EXPECT_EQ(CountRows(path, "analysis_idle_gap"), gaps);
  EXPECT_EQ(CountRows(path, "analysis_stale"), -1);  // gone
  EXPECT_EQ(RunIt(For(path)).code, kExitOk);         // still a readable trace
}

TEST(Report, OutputFileIsWrittenButNeverOverAnInputTrace) {
  std::string path = Overlapped();
  ReportOptions opt = For(path);
  opt.output_path = TempTracePath("out") + ".txt";
  Outcome o = RunIt(opt);
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_TRUE(o.out.empty());
  std::ifstream written(opt.output_path);
  std::string first;
  std::getline(written, first);
  EXPECT_EQ(first.rfind("Summary of window ", 0), 0u);  // every report opens with its summary
  opt.output_path = path;
  EXPECT_EQ(RunIt(opt).code, kExitOutputError);
  std::string link = TempTracePath("link");
  ASSERT_EQ(symlink("/tmp/streamscope-should-not-exist", link.c_str()), 0);
  opt.output_path = link;
  EXPECT_EQ(RunIt(opt).code, kExitOutputError);
}

TEST(Report, ANonexistentFileIsFileNotFound) {
  std::string path = TempTracePath("absent");
  Outcome o = RunIt(For(path));
  EXPECT_EQ(o.code, kExitFileNotFound);
  ExpectOneLineAbout(o, path, "No such file");
}

TEST(Report, AFileThatIsNotSqliteIsNotATrace) {
  std::string path = TempTracePath("text");
  std::ofstream(path) << "hello, this is a plain text file and not a trace at all\n";
  Outcome o = RunIt(For(path));
  EXPECT_EQ(o.code, kExitNotATrace);
  ExpectOneLineAbout(o, path, "not an SQLite database");
}

TEST(Report, AnEmptyFileIsNotATrace) {
  std::string path = TempTracePath("empty");
  std::ofstream(path).close();
  Outcome o = RunIt(For(path));
  EXPECT_EQ(o.code, kExitNotATrace);
  ExpectOneLineAbout(o, path, "empty file");
}

TEST(Report, ATruncatedTraceIsNotATrace) {
  std::string path = Overlapped();
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  ASSERT_EQ(truncate(path.c_str(), st.st_size - 4096), 0);
  Outcome o = RunIt(For(path));
  EXPECT_EQ(o.code, kExitNotATrace);
  // SQLite notices the missing pages itself ("damaged") or the importer's
  // size check does ("truncated").
  ExpectOneLineAbout(o, path, "");
  EXPECT_TRUE(o.err.find("damaged") != std::string::npos || o.err.find("truncated") != std::string::npos) << o.err;
}

TEST(Report, OlderAndNewerSchemaVersionsHaveTheirOwnExitCode) {
  std::string older = Overlapped();
  ASSERT_TRUE(
      ExecSql(older, "UPDATE metadata SET value = '0' WHERE key = 'schema_version'; PRAGMA user_version = 0;").ok());
  Outcome o = RunIt(For(older));
  EXPECT_EQ(o.code, kExitSchemaVersion);
  ExpectOneLineAbout(o, older, "older");
  std::string newer = Overlapped();
  ASSERT_TRUE(
      ExecSql(newer, "UPDATE metadata SET value = '99' WHERE key = 'schema_version'; PRAGMA user_version = 99;").ok());
  Outcome n = RunIt(For(newer));
  EXPECT_EQ(n.code, kExitSchemaVersion);
  ExpectOneLineAbout(n, newer, "newer");
}

TEST(Report, MissingTablesHaveTheirOwnExitCode) {
  std::string path = Overlapped();
  ASSERT_TRUE(ExecSql(path, "DROP TABLE nvtx_mark;").ok());
  Outcome o = RunIt(For(path));
  EXPECT_EQ(o.code, kExitMissingTables);
  ExpectOneLineAbout(o, path, "missing table nvtx_mark");
}

TEST(Report, AnNvtxRangeThatDoesNotExistHasItsOwnExitCode) {
  std::string path = Overlapped();
  ReportOptions opt = For(path);
  opt.window.kind = WindowSpec::Kind::kNvtxRange;
  opt.window.nvtx_name = "training_step";
  Outcome o = RunIt(opt);
  EXPECT_EQ(o.code, kExitWindowNotFound);
  ExpectOneLineAbout(o, path, "no NVTX range named 'training_step'");
}

TEST(Report, RecordsWithBadTimesAreCountedAndReportedNotFatal) {
  SyntheticTrace t = OverlappedTrace();
  t.Meta("capture_end", "running");
  std::string path = TempTracePath("report");
  // Kernels 50 (ends before it starts) and 51 (at time 0), named 'k' (string 1).
  ASSERT_TRUE(t.WriteFile(path, [](TraceTableWriter& w) {
                 for (auto [id, start, end] : {std::tuple{50, 450, 420}, std::tuple{51, 0, 0}}) {
                   KernelRow k;
                   k.id = id;
                   k.start_ns = start;
                   k.end_ns = end;
                   k.stream_id = 1;
                   k.name_id = 1;
                   if (absl::Status s = w.Kernel(k); !s.ok()) return s;
                 }
                 return absl::OkStatus();
               }).ok());
  ReportOptions opt = For(path);
  Outcome o = RunIt(opt);
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_NE(o.err.find("warning: 2 records could not be placed on the timeline"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("WARNING: capture did not finish"), std::string::npos) << o.out;
  opt.format = ReportOptions::Format::kJson;
  nlohmann::json j = nlohmann::json::parse(RunIt(opt).out);
  EXPECT_EQ(j["traces"][0]["summary"]["records_dropped"], 2);
  EXPECT_EQ(j["traces"][0]["summary"]["import_stats"]["op_end_before_start"], 1);
  EXPECT_EQ(j["traces"][0]["summary"]["import_stats"]["op_zero_timestamp"], 1);
  EXPECT_EQ(j["traces"][0]["summary"]["capture_abnormal"], true);
}

TEST(Units, DurationsAndSharesReadLikeAHumanWroteThem) {
  EXPECT_EQ(FormatDuration(850), "850 ns");
  EXPECT_EQ(FormatDuration(12'345), "12.3 us");
  EXPECT_EQ(FormatDuration(2'410'000), "2.41 ms");
  EXPECT_EQ(FormatDuration(999'999), "1.00 ms");
  EXPECT_EQ(FormatDuration(1'250'000'000), "1.25 s");
  EXPECT_EQ(FormatShare(78, 100), "78%");
  EXPECT_EQ(FormatShare(1, 300), "0.33%");
  EXPECT_EQ(FormatShare(5, 0), "-");
}

TEST(AnalysisSaver, RefusesNamesOutsideTheAnalysisTablesAndWritesNothing) {
  std::string path = Overlapped();
  ResultTable bad{"kernel", {"x"}, {{int64_t{1}}}};
  EXPECT_EQ(SaveAnalysisTables(path, {bad}).code(), absl::StatusCode::kInvalidArgument);
  ResultTable injected{"analysis_x; DROP TABLE kernel", {"x"}, {}};
  EXPECT_EQ(SaveAnalysisTables(path, {injected}).code(), absl::StatusCode::kInvalidArgument);
  ResultTable bad_column{"analysis_ok", {"x y"}, {}};
  EXPECT_EQ(SaveAnalysisTables(path, {bad_column}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CountRows(path, "kernel"), 2);
  EXPECT_EQ(CountRows(path, "analysis_ok"), -1);
  EXPECT_EQ(SaveAnalysisTables(TempTracePath("absent"), {}).code(), absl::StatusCode::kPermissionDenied);
}

TEST(Report, EveryBadInputGetsADistinctExitCode) {
  std::set<int> codes = {kExitFileNotFound, kExitNotATrace, kExitSchemaVersion, kExitMissingTables,
                         kExitWindowNotFound};
  EXPECT_EQ(codes.size(), 5u);
  EXPECT_EQ(codes.count(kExitOk), 0u);
}

}  // namespace
}  // namespace streamscope
