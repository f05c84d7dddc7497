// Analyses 8 and 9 end to end: a trace file holding allocation,
// memory_access and event_op rows (some NULL, one matching no op) goes
// through the importer and `streamscope report` (text, JSON, CSV, --save).
#include <sqlite3.h>

#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/report_runner.h"
#include "analyzer/convert/trace_table_writer.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::ExecSql;
using testing::SyntheticTrace;
using testing::TempTracePath;

// An H2D copy on stream 11 fills a buffer while a kernel on stream 12 may
// read it, with nothing ordering them; events around the copy on stream 11
// are read with cudaEventElapsedTime while the kernel still runs.
std::string RacyTrace() {
  SyntheticTrace t;
  t.Device(0).Stream(11).Stream(12);
  t.Copy(OpCategory::kHtoD, 11, 1000, 3000);  // memcpy#1
  t.Kernel(12, 1500, 3500, "consume");        // kernel#1
  t.Nvtx("measured", 10, 10000);
  std::string path = TempTracePath("hazards_report");
  EXPECT_TRUE(
      t.WriteFile(path, [](TraceTableWriter& w) {
         absl::Status s;
         auto keep = [&s](absl::Status next) {
           if (s.ok()) s = std::move(next);
         };
         for (auto [id, name] : {std::pair{9001, "cudaMemcpyAsync"}, std::pair{9002, "cudaLaunchKernel"},
                                 std::pair{9003, "cudaEventRecord"}, std::pair{9004, "cudaEventElapsedTime"}}) {
           keep(w.String(id, name));
         }
         // (name, start, end, correlation)
         for (auto [name, start, end, correlation] :
              {std::tuple{9003, 90, 95, 103}, std::tuple{9001, 100, 110, 101}, std::tuple{9003, 120, 125, 104},
               std::tuple{9002, 200, 210, 102}, std::tuple{9004, 5000, 5010, 105}}) {
           keep(w.ApiCall({.domain = 1,
                           .cbid = 0,
                           .name_id = name,
                           .tid = 1,
                           .start_ns = start,
                           .end_ns = end,
                           .correlation_id = correlation,
                           .return_value = 0}));
         }
         keep(w.Allocation(
             {.id = 5, .kind = "device", .address = 4096, .bytes = 1048576, .device_id = 0, .alloc_ns = 50}));
         keep(w.MemoryAccess(
             {.correlation_id = 101, .address = 4096, .bytes = 1048576, .access = "write", .allocation_id = 5}));
         keep(w.MemoryAccess({.correlation_id = 102,
                              .address = 4096,
                              .bytes = 1048576,
                              .access = "unknown",
                              .allocation_id = 5,
                              .arg_index = 0}));
         keep(w.MemoryAccess({.correlation_id = 999, .address = 4096, .bytes = 16, .access = "write"}));
         keep(w.MemoryAccess({.correlation_id = 101, .address = 0, .bytes = 64, .access = "read"}));
         keep(w.EventOp(
             {.op = "record", .event_handle = 10, .stream_id = 11, .tid = 1, .ts_ns = 90, .correlation_id = 103}));
         keep(w.EventOp(
             {.op = "record", .event_handle = 11, .stream_id = 11, .tid = 1, .ts_ns = 120, .correlation_id = 104}));
         keep(w.EventOp({.op = "elapsed",
                         .event_handle = 10,
                         .other_event = 11,
                         .tid = 1,
                         .ts_ns = 5000,
                         .correlation_id = 105,
                         .elapsed_ms = 0.0029}));
         keep(w.EventOp({.op = "bogus", .event_handle = 10, .ts_ns = 5001}));
         return s;
       }).ok());
  // The ops' correlation ids (the builder leaves them NULL).
  EXPECT_TRUE(ExecSql(path,
                      "UPDATE memcpy SET correlation_id = 101 WHERE id = 1;"
                      "UPDATE kernel SET correlation_id = 102 WHERE id = 1;")
                  .ok());
  return path;
}

struct Outcome {
  int code;
  std::string out, err;
};

Outcome Report(const std::string& path, ReportOptions::Format format, bool save = false) {
  ReportOptions o;
  o.traces = {path};
  o.format = format;
  o.save = save;
  // The whole trace: the elapsed-time read comes after the GPU work, outside
  // the default window (the span of GPU activity in these short traces).
  o.window.kind = WindowSpec::Kind::kWholeTrace;
  std::ostringstream out, err;
  int code = ExitWith(RunReport(o, out, err), err);
  return {code, out.str(), err.str()};
}

int64_t CountRows(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
      n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

TEST(HazardsReport, JsonNamesTheBufferBothOpsAndTheMissedWork) {
  Outcome r = Report(RacyTrace(), ReportOptions::Format::kJson);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& w = j["traces"][0]["windows"][0];
  const nlohmann::json& h = w["hazards"];
  EXPECT_TRUE(h["checked"].get<bool>());
  EXPECT_EQ(h["certain"]["count"], 0);
  ASSERT_EQ(h["possible"]["count"], 1);
  const nlohmann::json& x = h["possible"]["listed"][0];
  EXPECT_EQ(x["allocation"]["id"], 5);
  EXPECT_EQ(x["allocation"]["kind"], "device");
  EXPECT_EQ(x["a"]["op"]["table"], "memcpy");
  EXPECT_EQ(x["a"]["access"], "write");
  EXPECT_EQ(x["b"]["op"]["table"], "kernel");
  EXPECT_EQ(x["b"]["access"], "unknown");
  EXPECT_EQ(x["range"]["bytes"], 1048576);
  EXPECT_TRUE(x["observed_concurrent"].get<bool>());
  EXPECT_EQ(h["accesses_without_op"], 1);
  EXPECT_EQ(w["ownership"]["shared_allocations"], 1);

  const nlohmann::json& audit = w["timing_audit"];
  ASSERT_EQ(audit["elapsed"]["count"], 1);
  const nlohmann::json& read = audit["elapsed"]["reads"][0];
  EXPECT_TRUE(read["determined"].get<bool>());
  EXPECT_EQ(read["start"]["gpu_ns"], 90);   // stream 11 idle at the start record
  EXPECT_EQ(read["stop"]["gpu_ns"], 3000);  // after the copy
  EXPECT_EQ(read["running_at_stop"]["count"], 1);
  EXPECT_EQ(read["running_at_stop"]["ops"][0]["table"], "kernel");
  EXPECT_TRUE(read["misses_work"].get<bool>());
  EXPECT_EQ(j["traces"][0]["summary"]["import_stats"]["event_op_unknown_kind"], 1);
}

TEST(HazardsReport, TextSaysWhatIsUnorderedAndWhatTheEventsMissed) {
  Outcome r = Report(RacyTrace(), ReportOptions::Format::kText);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("Ownership and hazards:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 possible hazards"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("allocation 5 device"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Timing audit:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("still running at the stop event"), std::string::npos) << r.out;
}

TEST(HazardsReport, SaveWritesTheHazardAndAuditTables) {
  std::string path = RacyTrace();
  Outcome r = Report(path, ReportOptions::Format::kCsv, /*save=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("# table: analysis_hazard\n"), std::string::npos);
  EXPECT_NE(r.out.find("# table: analysis_timing_audit\n"), std::string::npos);
  EXPECT_EQ(CountRows(path,
                      "SELECT count(*) FROM analysis_hazard WHERE class = 'possible' AND allocation_id = 5 "
                      "AND op_a_table = 'memcpy' AND op_b_table = 'kernel' AND observed_concurrent = 1"),
            1);
  EXPECT_EQ(CountRows(path, "SELECT count(*) FROM analysis_hazard_summary"), 2);
  EXPECT_EQ(CountRows(path, "SELECT count(*) FROM analysis_ownership WHERE allocation_id = 5"), 2);
  EXPECT_EQ(CountRows(path, "SELECT misses_work FROM analysis_timing_audit"), 1);
}

TEST(HazardsReport, ATraceWithoutMemoryTrackingSaysNotChecked) {
  SyntheticTrace t;
  t.Device(0).Stream(11);
  t.Kernel(11, 100, 200, "k");
  std::string path = TempTracePath("hazards_report_plain");
  ASSERT_TRUE(t.WriteFile(path).ok());
  Outcome text = Report(path, ReportOptions::Format::kText);
  ASSERT_EQ(text.code, kExitOk) << text.err;
  EXPECT_NE(text.out.find("Not checked: the trace holds no memory_access records"), std::string::npos);
  Outcome json = Report(path, ReportOptions::Format::kJson);
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_FALSE(j["traces"][0]["windows"][0]["hazards"]["checked"].get<bool>());
  EXPECT_FALSE(j["traces"][0]["windows"][0]["timing_audit"]["checked_events"].get<bool>());
}

}  // namespace
}  // namespace streamscope
