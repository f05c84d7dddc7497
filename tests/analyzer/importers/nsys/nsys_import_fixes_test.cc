// Nsight Systems import: the synchronizing call's name decides a sync's
// kind; unified-memory migrations are copy-engine work; records whose times
// are out of range are counted as dropped; unknown copy kinds are counted
// and named. Synthetic exports written with the raw sqlite3 API, and the
// real unified-memory export of tests/data/nsys.
#include <string>
#include <vector>

#include "analyzer/analysis/overlap_gaps/overlap.h"
#include "analyzer/analysis/windows/trace_summary.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/convert/converted_trace_writer.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/render/op_ref.h"
#include "analyzer/render/trace_summary_render.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/analyzer/importers/nsys/nsys_test_util.h"

namespace streamscope {
namespace {

using nsys_test::CreateExport;
using nsys_test::ExecSql;
using nsys_test::ExportLayout;
using nsys_test::GlobalPid;
using nsys_test::GlobalTid;
using nsys_test::SqlInt;
using nsys_test::TempDir;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kPid = 4242;
constexpr int64_t kTid = 4243;

std::string S(int64_t v) { return std::to_string(v); }
std::string Gpid() { return S(GlobalPid(kPid)); }
std::string Gtid() { return S(GlobalTid(kPid, kTid)); }

TraceModel LoadOne(const std::string& path) {
  auto models = LoadTraceFile(path);
  EXPECT_TRUE(models.ok()) << models.status();
  if (!models.ok() || models->size() != 1) {
    ADD_FAILURE() << "expected one model";
    return TraceModel();
  }
  return std::move((*models)[0]);
}

// A kernel on stream 7 so that the export has a process.
void AddKernel(const std::string& path, int64_t start, int64_t end) {
  ExecSql(path,
          "INSERT OR IGNORE INTO StringIds VALUES (1, 'k');"
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
          "correlationId, globalPid, demangledName, shortName, mangledName, "
          "registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
          "staticSharedMemory, dynamicSharedMemory) VALUES (" +
              S(start) + ", " + S(end) + ", 0, 1, 7, 100, " + Gpid() + ", 1, 1, 1, 32, 1, 1, 1, 32, 1, 1, 0, 0);");
}

void AddCopy(const std::string& path, int64_t start, int64_t end, const std::string& copy_kind, int64_t bytes,
             int64_t stream = 13, int64_t correlation = 0) {
  ExecSql(path,
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, "
          "streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind) VALUES (" +
              S(start) + ", " + S(end) + ", 0, 1, " + S(stream) + ", " + S(correlation) + ", " + Gpid() + ", " +
              S(bytes) + ", " + copy_kind + ", 7, 7);");
}

// --- sync kinds ---------------------------------------------------------

TEST(NsysSyncKinds, TheCallsNameWinsOverAnEnumThatDisagreesAndIsCounted) {
  TempDir dir;
  const std::string path = dir.Path("e.sqlite");
  CreateExport(path, ExportLayout{});  // 3.x: ENUM_CUPTI_SYNC_TYPE names 1 an event sync
  AddKernel(path, 100, 200);
  // syncType 1 with cudaDeviceSynchronize (the old numbering's context
  // sync); syncType 3 with cudaStreamSynchronize (agrees).
  ExecSql(path,
          "INSERT INTO StringIds VALUES (30, 'cudaDeviceSynchronize_v3020'),"
          "(31, 'cudaStreamSynchronize_v3020');"
          "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, "
          "correlationId, nameId, returnValue) VALUES (1000, 2000, 0, " +
              Gtid() + ", 12, 30, 0), (3000, 4000, 0, " + Gtid() +
              ", 13, 31, 0);"
              "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, "
              "contextId, streamId, correlationId, globalPid, syncType, eventId) VALUES "
              "(1001, 1999, 0, 1, 4294967295, 12, " +
              Gpid() +
              ", 1, 4294967295),"
              "(3001, 3999, 0, 1, 13, 13, " +
              Gpid() + ", 3, 4294967295);");
  const TraceModel m = LoadOne(path);
  ASSERT_EQ(m.syncs.size(), 2u);
  EXPECT_EQ(m.syncs[0].kind, SyncKind::kContextSynchronize);
  EXPECT_EQ(m.syncs[1].kind, SyncKind::kStreamSynchronize);
  ASSERT_TRUE(m.import_stats.contains("sync_kind_differs_from_call"));
  EXPECT_EQ(m.import_stats.at("sync_kind_differs_from_call"), 1);
}

TEST(NsysSyncKinds, ASyncWithoutACallKeepsTheExportsKindUncounted) {
  TempDir dir;
  const std::string path = dir.Path("e.sqlite");
  CreateExport(path, ExportLayout{});
  AddKernel(path, 100, 200);
  ExecSql(path,
          "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, "
          "contextId, streamId, correlationId, globalPid, syncType, eventId) VALUES "
          "(1001, 1999, 0, 1, 13, 77, " +
              Gpid() + ", 1, 5);");
  const TraceModel m = LoadOne(path);
  ASSERT_EQ(m.syncs.size(), 1u);
  EXPECT_EQ(m.syncs[0].kind, SyncKind::kEventSynchronize);
  EXPECT_FALSE(m.import_stats.contains("sync_kind_differs_from_call"));
}

// --- unified-memory migrations ------------------------------------------

TEST(NsysMigrations, MigrationsAreCopiesBetweenManagedMemoryThatOverlapKernels) {
  TempDir dir;
  const std::string path = dir.Path("e.sqlite");
  CreateExport(path, ExportLayout{});
  AddKernel(path, 1000, 2000);
  AddCopy(path, 1500, 2500, "11", 4096, /*stream=*/0);  // page faults during the kernel
  AddCopy(path, 3000, 3400, "12", 8192, /*stream=*/0);  // back to the host afterwards
  TraceModel m = LoadOne(path);
  ASSERT_EQ(m.ops.size(), 3u);
  EXPECT_EQ(m.ops.category[1], OpCategory::kHtoD);
  EXPECT_EQ(m.ops.category[2], OpCategory::kDtoH);
  for (int op : {1, 2}) {
    EXPECT_EQ(m.ops.src_kind[op], MemoryKind::kManaged);
    EXPECT_EQ(m.ops.dst_kind[op], MemoryKind::kManaged);
    EXPECT_EQ(m.ops.correlation_id[op], -1);
    EXPECT_EQ(m.streams[m.ops.stream[op]].id, -1);  // no stream
    EXPECT_THAT(OpLabel(m, op), HasSubstr("unified-memory migration"));
  }
  EXPECT_EQ(m.ops.bytes[1], 4096);

  OverlapResult overlap = AnalyzeOverlap(m, WholeTraceWindow(m), OverlapOptions{});
  ASSERT_EQ(overlap.devices.size(), 1u);
  const DeviceOverlap& d = overlap.devices[0];
  EXPECT_EQ(d.busy_ns, 1500 + 400);  // [1000, 2500) and [3000, 3400)
  EXPECT_EQ(d.copy_ns, 1000 + 400);
  const PairOverlap* pair = overlap.Find(0, OverlapPairIndex(OpCategory::kKernel, OpCategory::kHtoD));
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->overlapped_ns, 500);
  EXPECT_THAT(m.notes, Contains(AllOf(HasSubstr("2 unified-memory migrations"), HasSubstr("4096 bytes to device"),
                                      HasSubstr("8192 bytes to host"), HasSubstr("busy time"))));
}

TEST(NsysMigrations, AConvertedTraceKeepsThemAsMigrationCopyKinds) {
  TempDir dir;
  const std::string path = dir.Path("e.sqlite");
  CreateExport(path, ExportLayout{});
  AddKernel(path, 1000, 2000);
  AddCopy(path, 1500, 2500, "11", 4096, /*stream=*/0);
  AddCopy(path, 2600, 2700, "1", 64);  // a plain copy stays H2D
  const TraceModel m = LoadOne(path);
  const std::string out = dir.Path("converted.sqlite");
  TraceWriteOptions options;
  ASSERT_TRUE(WriteStreamscopeTrace(m, out, options).ok());
  EXPECT_EQ(SqlInt(out, "SELECT count(*) FROM memcpy WHERE copy_kind = 11"), 1);
  EXPECT_EQ(SqlInt(out, "SELECT count(*) FROM memcpy WHERE copy_kind = 1"), 1);
  EXPECT_EQ(SqlInt(out,
                   "SELECT count(*) FROM memcpy m JOIN enum_copy_kind k ON k.value = "
                   "m.copy_kind WHERE k.name = 'uvm_H2D'"),
            1);
  TraceModel back = LoadOne(out);
  ASSERT_EQ(back.ops.size(), 3u);
  EXPECT_EQ(back.ops.category[1], OpCategory::kHtoD);
  EXPECT_THAT(OpLabel(back, 1), HasSubstr("unified-memory migration"));
  EXPECT_THAT(OpLabel(back, 2), Not(HasSubstr("migration")));
  EXPECT_FALSE(back.import_stats.contains("op_without_stream"));  // stream -1 has its row
}

TEST(NsysMigrations, TheRealUnifiedMemoryExportKeepsItsGpuBusyWhileItMigrates) {
  const std::string path = nsys_test::RealExportPath("vecadd-um-a100.sqlite");
  TraceModel m = LoadOne(path);
  const int64_t htod = SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 11");
  const int64_t dtoh = SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 12");
  ASSERT_EQ(htod + dtoh, 4608);  // what the data README states
  int64_t seen_htod = 0, seen_dtoh = 0, bytes_htod = 0;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.category[i] == OpCategory::kHtoD) {
      ++seen_htod;
      bytes_htod += m.ops.bytes[i];
    }
    if (m.ops.category[i] == OpCategory::kDtoH) ++seen_dtoh;
  }
  EXPECT_EQ(seen_htod, htod);
  EXPECT_EQ(seen_dtoh, dtoh);
  EXPECT_EQ(bytes_htod, 512 << 20);  // the 512 MiB the GPU was said to idle through
  OverlapResult overlap = AnalyzeOverlap(m, WholeTraceWindow(m), OverlapOptions{});
  ASSERT_EQ(overlap.devices.size(), 1u);
  // The D2H migrations come after the kernel: busy time now includes them.
  const int64_t kernel_ns = SqlInt(path, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  EXPECT_GT(overlap.devices[0].busy_ns, kernel_ns);
  EXPECT_GT(overlap.devices[0].copy_ns, 0);
}

// --- out-of-range times -------------------------------------------------

TEST(NsysOutOfRangeTimes, AreCountedAsDroppedNotAsKeptInconsistencies) {
  TempDir dir;
  const std::string path = dir.Path("e.sqlite");
  CreateExport(path, ExportLayout{});
  AddKernel(path, 1000, 2000);
  AddCopy(path, -(int64_t{1} << 61), 500, "1", 64);   // starts before -2^60 ns
  AddCopy(path, 600, int64_t{1} << 62 | 1, "1", 64);  // ends after 2^62 ns
  const TraceModel m = LoadOne(path);
  EXPECT_EQ(m.ops.size(), 1u);
  ASSERT_TRUE(m.import_stats.contains("op_time_out_of_range"));
  EXPECT_EQ(m.import_stats.at("op_time_out_of_range"), 2);
  const TraceSummary s = SummarizeTrace(m);
  EXPECT_EQ(s.records_dropped, 2);
  EXPECT_EQ(s.records_inconsistent, 0);
  EXPECT_THAT(TraceSummaryWarnings(s), Contains(AllOf(HasSubstr("left out"), HasSubstr("op_time_out_of_range=2"))));
  EXPECT_THAT(TraceSummaryWarnings(s), Not(Contains(HasSubstr("were kept"))));
}

// --- unknown copy kinds -------------------------------------------------

TEST(NsysCopyKinds, UnknownTextAndNumberKindsAreCountedAndNamed) {
  for (bool v3 : {true, false}) {
    TempDir dir;
    const std::string path = dir.Path("e.sqlite");
    ExportLayout l;
    l.v3 = v3;
    CreateExport(path, l);
    AddKernel(path, 1000, 2000);
    AddCopy(path, 2100, 2200, "'HtoD'", 64);  // a text value
    AddCopy(path, 2300, 2400, "99", 64);      // a number no numbering defines
    AddCopy(path, 2500, 2600, "1", 64);       // a plain H2D copy
    AddCopy(path, 2700, 2800, "0", 64);       // CUPTI's own "unknown": not counted
    const TraceModel m = LoadOne(path);
    ASSERT_EQ(m.ops.size(), 5u);
    int64_t other = 0;
    for (size_t i = 0; i < m.ops.size(); ++i) other += m.ops.category[i] == OpCategory::kOtherCopy;
    EXPECT_EQ(other, 3);
    ASSERT_TRUE(m.import_stats.contains("copy_kind_unknown")) << (v3 ? "3.x" : "2.x");
    EXPECT_EQ(m.import_stats.at("copy_kind_unknown"), 2);
    EXPECT_THAT(m.notes, Contains(AllOf(HasSubstr("2 copies have a copy kind"), HasSubstr("'HtoD' (1)"),
                                        HasSubstr("'99' (1)"))));
    const TraceSummary s = SummarizeTrace(m);
    EXPECT_THAT(TraceSummaryWarnings(s), Contains(HasSubstr("copy_kind_unknown=2")));
  }
}

}  // namespace
}  // namespace streamscope
