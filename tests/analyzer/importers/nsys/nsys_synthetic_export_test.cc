// The Nsight Systems importer on synthetic exports written here with the
// sqlite3 API: the differences between export eras (metadata table,
// null-stream table, enum tables), optional tables that are absent, several
// processes, NVTX nesting, and bad inputs that must give clear errors or be
// counted, never crash.
#include <string>
#include <vector>

#include "analyzer/importers/nsys/nsys_enums.h"
#include "analyzer/importers/nsys/nsys_export_importer.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/sqlite/sqlite_db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/analyzer/importers/nsys/nsys_test_util.h"

namespace streamscope {
namespace {

using nsys_test::CreateExport;
using nsys_test::ExportLayout;
using nsys_test::GlobalPid;
using nsys_test::GlobalTid;
using nsys_test::TempDir;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kPid = 4242;
constexpr int64_t kTid = 4243;

std::string S(int64_t v) { return std::to_string(v); }

// One kernel on the null stream 7, one pinned H2D copy on non-blocking
// stream 13, both with their runtime calls; a string table for the names.
void AddBasicActivity(const std::string& path, const ExportLayout& l) {
  std::string gpid = S(GlobalPid(l.pid)), gtid = S(GlobalTid(l.pid, kTid));
  std::string sql =
      "INSERT INTO StringIds VALUES (1,'_Z4stepPf'),(2,'step(float*)'),(3,'step'),"
      "(4,'cudaLaunchKernel_v7000'),(5,'cudaMemcpyAsync_v3020'),(6,'main thread');\n"
      "INSERT INTO ThreadNames VALUES (6, 0, " +
      gtid + ");\n";
  if (l.kernel) {
    sql += std::string(
               "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, "
               "streamId, correlationId, globalPid, demangledName, shortName, mangledName, "
               "registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
               "staticSharedMemory, dynamicSharedMemory) VALUES "
               "(1000, 2000, 0, 1, 7, 10, ") +
           gpid +
           ", 2, 3, 1, 32, 64, 1, 1, 128, 1, 1, "
           "1024, 512);\n";
  }
  if (l.memcpy) {
    sql +=
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, "
        "correlationId, globalPid, bytes, copyKind, srcKind, dstKind) VALUES "
        "(1500, 2500, 0, 1, 13, 11, " +
        gpid + ", 4096, 1, 1, 2);\n";
  }
  if (l.runtime) {
    sql +=
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, "
        "correlationId, nameId, returnValue) VALUES (900, 950, 0, " +
        gtid +
        ", 10, 4, 0), "
        "(960, 990, 0, " +
        gtid + ", 11, 5, 0);\n";
  }
  nsys_test::ExecSql(path, sql);
}

absl::StatusOr<std::vector<TraceModel>> Load(const std::string& path) { return LoadTraceFile(path); }

class BothEras : public ::testing::TestWithParam<bool> {};

TEST_P(BothEras, VersionComesFromTheEraMetadataTable) {
  TempDir dir;
  ExportLayout l;
  l.v3 = GetParam();
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, l);
  AddBasicActivity(path, l);
  auto models = Load(path);
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_EQ(models->size(), 1u);
  TraceModel& m = (*models)[0];
  EXPECT_EQ(m.format, l.v3 ? "nsys-export-3.24.0" : "nsys-export-2.9.1");
  EXPECT_EQ(m.metadata["export_metadata_table"], l.v3 ? "META_DATA_EXPORT" : "EXPORT_META_DATA");
  EXPECT_EQ(m.metadata["nsys_version"], "2099.1.1");
  EXPECT_EQ(m.metadata["process_name"], "./synthetic-app");
  EXPECT_EQ(m.pid, kPid);
}

TEST_P(BothEras, NullStreamIsLegacyDefaultFromEitherTable) {
  TempDir dir;
  ExportLayout l;
  l.v3 = GetParam();
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, l);
  AddBasicActivity(path, l);
  auto models = Load(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  ASSERT_EQ(m.ops.size(), 2u);
  const Stream& kernel_stream = m.streams[m.ops.stream[0]];
  EXPECT_EQ(kernel_stream.id, 7);
  EXPECT_EQ(kernel_stream.kind, StreamKind::kLegacyDefault);
  EXPECT_EQ(kernel_stream.context_id, 1);
  const Stream& copy_stream = m.streams[m.ops.stream[1]];
  EXPECT_EQ(copy_stream.id, 13);
  EXPECT_EQ(copy_stream.kind, StreamKind::kNonBlocking);
  EXPECT_EQ(copy_stream.priority, -5);
  EXPECT_EQ(m.streams[m.stream_index.at(14)].kind, StreamKind::kBlocking);
}

TEST_P(BothEras, KernelShapeNamesAndCopyFieldsAreMapped) {
  TempDir dir;
  ExportLayout l;
  l.v3 = GetParam();
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, l);
  AddBasicActivity(path, l);
  auto models = Load(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  ASSERT_EQ(m.ops.size(), 2u);
  EXPECT_EQ(m.ops.category[0], OpCategory::kKernel);
  EXPECT_EQ(m.strings.Get(m.ops.name[0]), "_Z4stepPf");
  // Shapes are left out of the import and added on request.
  EXPECT_TRUE(m.kernel_shapes.empty());
  TraceModel with_shapes = m;
  auto db = SqliteDb::OpenReadOnly(path);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(AddNsysKernelShapes(**db, &with_shapes).ok());
  ASSERT_EQ(with_shapes.kernel_shapes.size(), 2u);
  EXPECT_EQ(with_shapes.kernel_shapes[0].registers, 32);
  EXPECT_EQ(with_shapes.kernel_shapes[0].grid[0], 64);
  EXPECT_EQ(with_shapes.kernel_shapes[0].grid[1], 1);
  EXPECT_EQ(with_shapes.kernel_shapes[0].block[0], 128);
  EXPECT_EQ(with_shapes.kernel_shapes[0].shared_bytes, 1536);
  EXPECT_EQ(with_shapes.kernel_shapes[1].grid[0], 0);  // the copy
  EXPECT_EQ(m.ops.category[1], OpCategory::kHtoD);
  EXPECT_EQ(m.ops.bytes[1], 4096);
  EXPECT_EQ(m.ops.src_kind[1], MemoryKind::kPinned);
  EXPECT_EQ(m.ops.dst_kind[1], MemoryKind::kDevice);
  EXPECT_EQ(m.ops.is_async[1], 1);  // cudaMemcpyAsync
  ASSERT_EQ(m.api.size(), 2u);
  EXPECT_EQ(m.api.tid[0], kTid);
  EXPECT_EQ(m.strings.Get(m.api.name[m.ApiForOp(0)]), "cudaLaunchKernel_v7000");
  EXPECT_EQ(m.thread_names.at(kTid), "main thread");
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].name, "Synthetic GPU");
  EXPECT_EQ(m.devices[0].uuid, "GPU-01234567-89ab-cdef-0123-456789abcdef");
  EXPECT_EQ(m.devices[0].async_engine_count, 2);
}

INSTANTIATE_TEST_SUITE_P(Eras, BothEras, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "v3" : "v2"; });

TEST(NsysSyntheticExport, MissingOptionalTablesAreNotesNotErrors) {
  TempDir dir;
  ExportLayout l;
  l.nvtx = false;
  l.runtime = false;
  l.memset = false;
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, l);
  AddBasicActivity(path, l);
  auto models = Load(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  EXPECT_EQ(m.ops.size(), 2u);
  EXPECT_THAT(m.notes, Contains(HasSubstr("no NVTX_EVENTS table")));
  EXPECT_THAT(m.notes, Contains(HasSubstr("no CUPTI_ACTIVITY_KIND_RUNTIME table")));
  EXPECT_THAT(m.notes, Contains(HasSubstr("no CUPTI_ACTIVITY_KIND_MEMSET table")));
  EXPECT_EQ(m.ops.is_async[1], 0);  // no API call to say otherwise
}

TEST(NsysSyntheticExport, MissingTargetInfoLeavesStreamKindsUnknownWithNotes) {
  TempDir dir;
  ExportLayout l;
  l.target_info = false;
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, l);
  AddBasicActivity(path, l);
  auto models = Load(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  EXPECT_EQ(m.streams[m.ops.stream[0]].kind, StreamKind::kUnknown);
  EXPECT_THAT(m.notes, Contains(HasSubstr("legacy default stream is not known")));
  EXPECT_THAT(m.notes, Contains(HasSubstr("no TARGET_INFO_GPU table")));
  ASSERT_EQ(m.devices.size(), 1u);  // described from the ops
  EXPECT_EQ(m.devices[0].name, "unknown device");
}

TEST(NsysSyntheticExport, NoGpuTablesIsInvalidArgument) {
  TempDir dir;
  ExportLayout l;
  l.kernel = l.memcpy = l.memset = l.sync = l.runtime = false;
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, l);
  auto models = Load(path);
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(models.status().message()), HasSubstr("no GPU activity tables"));
}

// An export of a capture without CUDA tracing and without a metadata table
// (older nsys) is still named an Nsight Systems export, one with no CUDA
// records, not "neither a streamscope trace nor an Nsight Systems export".
TEST(NsysSyntheticExport, ExportWithoutCudaRecordsIsNamedAnExport) {
  TempDir dir;
  ExportLayout l;
  l.meta = false;
  l.kernel = l.memcpy = l.memset = l.sync = l.runtime = false;
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, l);
  auto models = Load(path);
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(models.status().message()), HasSubstr("Nsight Systems export with no GPU activity tables"));
  EXPECT_THAT(std::string(models.status().message()), Not(HasSubstr("neither")));
}

TEST(NsysSyntheticExport, GpuTablesWithoutRowsIsInvalidArgument) {
  TempDir dir;
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, ExportLayout{});
  auto models = Load(path);
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(models.status().message()), HasSubstr("no usable rows"));
}

TEST(NsysSyntheticExport, UnknownMajorVersionIsFailedPrecondition) {
  for (bool v3 : {false, true}) {
    TempDir dir;
    ExportLayout l;
    l.v3 = v3;
    l.version = "9.1.0";
    std::string path = dir.Path("e.sqlite");
    CreateExport(path, l);
    AddBasicActivity(path, l);
    auto models = Load(path);
    ASSERT_FALSE(models.ok());
    EXPECT_EQ(models.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(models.status().message()), HasSubstr("9.1.0"));
    EXPECT_THAT(std::string(models.status().message()), HasSubstr("2.x and 3.x"));
  }
}

TEST(NsysSyntheticExport, UnreadableVersionIsFailedPrecondition) {
  TempDir dir;
  ExportLayout l;
  l.meta = false;
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, l);
  AddBasicActivity(path, l);
  nsys_test::ExecSql(path,
                     "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
                     "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', 'three');");
  auto models = Load(path);
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(models.status().message()), HasSubstr("'three'"));
}

TEST(NsysSyntheticExport, NoMetadataTableIsReadByColumnPresenceWithANote) {
  TempDir dir;
  ExportLayout l;
  l.meta = false;
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, l);
  AddBasicActivity(path, l);
  auto models = Load(path);
  ASSERT_TRUE(models.ok()) << models.status();
  EXPECT_EQ((*models)[0].format, "nsys-export-unknown");
  EXPECT_THAT((*models)[0].notes, Contains(HasSubstr("schema version unknown")));
}

TEST(NsysSyntheticExport, SeveralProcessesBecomeSeveralModelsByPid) {
  TempDir dir;
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, ExportLayout{});
  AddBasicActivity(path, ExportLayout{});
  const int64_t other = 77;
  nsys_test::ExecSql(path,
                     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
                     "correlationId, globalPid, demangledName, shortName, mangledName, "
                     "registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
                     "staticSharedMemory, dynamicSharedMemory) VALUES (5000, 6000, 0, 1, 20, 10, " +
                         S(GlobalPid(other)) +
                         ", 2, 3, 1, 8, 1, 1, 1, 1, 1, 1, 0, 0);"
                         "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES "
                         "(4000, 7000, 59, 'other work', " +
                         S(GlobalTid(other, 78)) +
                         "),"
                         "(800, 3000, 59, 'main work', " +
                         S(GlobalTid(kPid, kTid)) +
                         "),"
                         "(100, 200, 59, 'launcher', " +
                         S(GlobalTid(999, 1)) + ");");
  auto models = Load(path);
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_EQ(models->size(), 2u);
  const TraceModel& a = (*models)[0];
  const TraceModel& b = (*models)[1];
  EXPECT_EQ(a.pid, other);
  EXPECT_EQ(b.pid, kPid);
  EXPECT_EQ(a.ops.size(), 1u);
  EXPECT_EQ(b.ops.size(), 2u);
  ASSERT_EQ(a.nvtx_ranges.size(), 1u);
  EXPECT_EQ(a.strings.Get(a.nvtx_ranges[0].name), "other work");
  ASSERT_EQ(b.nvtx_ranges.size(), 1u);
  EXPECT_EQ(b.strings.Get(b.nvtx_ranges[0].name), "main work");
  // Correlation ids repeat across processes; each model links its own.
  EXPECT_EQ(a.ApiForOp(0), -1);
  EXPECT_THAT(b.notes, Contains(HasSubstr("1 NVTX events of processes without CUDA activity")));
  EXPECT_THAT(b.notes, Contains(HasSubstr("holds 2 processes")));
}

TEST(NsysSyntheticExport, NvtxDepthDomainsOpenRangesAndMarks) {
  TempDir dir;
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, ExportLayout{});
  AddBasicActivity(path, ExportLayout{});
  std::string t = S(GlobalTid(kPid, kTid)), t2 = S(GlobalTid(kPid, kTid + 1));
  nsys_test::ExecSql(path,
                     "INSERT INTO StringIds VALUES (20, 'registered');"
                     "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) "
                     "VALUES (10, NULL, 75, 'Training', " +
                         t +
                         ", NULL, 5),"
                         "(100, 1000, 59, 'outer', " +
                         t +
                         ", NULL, 0),"
                         "(200, 900, 59, NULL, " +
                         t +
                         ", 20, 0),"
                         "(300, 400, 59, 'inner', " +
                         t +
                         ", NULL, 0),"
                         "(500, 600, 59, 'sibling', " +
                         t +
                         ", NULL, 0),"
                         "(250, 260, 59, 'other domain', " +
                         t +
                         ", NULL, 5),"
                         "(150, 160, 59, 'other thread', " +
                         t2 +
                         ", NULL, 0),"
                         "(700, NULL, 60, 'still open', " +
                         t +
                         ", NULL, 0),"
                         "(800, NULL, 34, 'a mark', " +
                         t + ", NULL, 5);");
  auto models = Load(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  std::map<std::string, const NvtxRange*> by_name;
  for (const NvtxRange& r : m.nvtx_ranges) by_name[std::string(m.strings.Get(r.name))] = &r;
  ASSERT_EQ(by_name.size(), 7u);
  EXPECT_EQ(by_name["outer"]->depth, 0);
  EXPECT_EQ(by_name["registered"]->depth, 1);
  EXPECT_EQ(by_name["inner"]->depth, 2);
  EXPECT_EQ(by_name["sibling"]->depth, 2);
  EXPECT_EQ(by_name["other domain"]->depth, 0);  // its own stack
  EXPECT_EQ(m.strings.Get(by_name["other domain"]->domain), "Training");
  EXPECT_EQ(by_name["other thread"]->depth, 0);
  EXPECT_EQ(by_name["other thread"]->tid, kTid + 1);
  EXPECT_FALSE(by_name["still open"]->end_ns.has_value());
  EXPECT_FALSE(by_name["still open"]->push_pop);
  EXPECT_EQ(by_name["outer"]->domain, kNoString);
  ASSERT_EQ(m.nvtx_marks.size(), 1u);
  EXPECT_EQ(m.strings.Get(m.nvtx_marks[0].name), "a mark");
  EXPECT_EQ(m.strings.Get(m.nvtx_marks[0].domain), "Training");
}

TEST(NsysSyntheticExport, SyncKindFromEnumIn3xAndFromApiNameIn2x) {
  for (bool v3 : {false, true}) {
    TempDir dir;
    ExportLayout l;
    l.v3 = v3;
    std::string path = dir.Path("e.sqlite");
    CreateExport(path, l);
    AddBasicActivity(path, l);
    // syncType 3 is a stream sync in CUPTI's numbering; in the 2.x file the
    // call's name decides (and says the same).
    nsys_test::ExecSql(path,
                       "INSERT INTO StringIds VALUES (30, 'cudaStreamSynchronize_v3020');"
                       "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, "
                       "correlationId, nameId, returnValue) VALUES (3000, 4000, 0, " +
                           S(GlobalTid(kPid, kTid)) +
                           ", 12, 30, 0);"
                           "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, "
                           "contextId, streamId, correlationId, globalPid, syncType, eventId) VALUES "
                           "(3001, 3999, 0, 1, 13, 12, " +
                           S(GlobalPid(kPid)) + ", 3, 4294967295);");
    auto models = Load(path);
    ASSERT_TRUE(models.ok()) << models.status();
    const TraceModel& m = (*models)[0];
    ASSERT_EQ(m.syncs.size(), 1u);
    EXPECT_EQ(m.syncs[0].kind, SyncKind::kStreamSynchronize) << (v3 ? "v3" : "v2");
    ASSERT_GE(m.syncs[0].stream, 0);
    EXPECT_EQ(m.streams[m.syncs[0].stream].id, 13);
    EXPECT_EQ(m.syncs[0].event_id, -1);
  }
}

TEST(NsysSyntheticExport, PeerCopiesDriverCallsMemsetsAndPerThreadStreams) {
  TempDir dir;
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, ExportLayout{});
  std::string gpid = S(GlobalPid(kPid)), gtid = S(GlobalTid(kPid, kTid));
  nsys_test::ExecSql(path,
                     "INSERT INTO StringIds VALUES (1, 'cuMemcpyPeerAsync'), "
                     "(2, 'cudaMemsetAsync_ptsz_v7000'), (3, 'cudaMemcpy_v3020');"
                     "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, "
                     "streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind, "
                     "srcDeviceId, dstDeviceId) VALUES (100, 200, 0, 1, 13, 1, " +
                         gpid + ", 64, 10, 2, 2, 0, 1), (300, 400, 0, 1, 13, 3, " + gpid +
                         ", 64, 11, 7, 7, NULL, NULL);"
                         "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, "
                         "streamId, correlationId, globalPid, value, bytes, memKind) VALUES "
                         "(500, 600, 0, 1, 15, 2, " +
                         gpid +
                         ", 0, 256, 2);"
                         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, "
                         "correlationId, nameId, returnValue) VALUES (50, 60, 1, " +
                         gtid +
                         ", 1, 1, 0),"
                         "(450, 460, 0, " +
                         gtid + ", 2, 2, 0);");
  auto models = Load(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  ASSERT_EQ(m.ops.size(), 3u);  // the migration is a copy op too
  EXPECT_EQ(m.ops.category[0], OpCategory::kPtoP);
  EXPECT_EQ(m.ops.peer_device[0], 1);
  EXPECT_EQ(m.ops.is_async[0], 1);
  EXPECT_EQ(m.api.domain[m.ApiForOp(0)], ApiDomain::kDriver);
  EXPECT_EQ(m.ops.category[1], OpCategory::kHtoD);
  EXPECT_EQ(m.ops.src_kind[1], MemoryKind::kManaged);
  EXPECT_EQ(m.ops.category[2], OpCategory::kMemset);
  EXPECT_EQ(m.ops.bytes[2], 256);
  EXPECT_EQ(m.ops.dst_kind[2], MemoryKind::kDevice);
  EXPECT_EQ(m.streams[m.ops.stream[2]].kind, StreamKind::kPerThreadDefault);
  EXPECT_THAT(m.notes, Contains(HasSubstr("1 unified-memory migrations (64 bytes to device")));
}

TEST(NsysSyntheticExport, BadRowsAreCountedNeverFatal) {
  TempDir dir;
  std::string path = dir.Path("e.sqlite");
  CreateExport(path, ExportLayout{});
  AddBasicActivity(path, ExportLayout{});
  std::string gpid = S(GlobalPid(kPid));
  // SQLite stores what it is given whatever the declared type: drop the
  // NOT NULL tables and recreate them loosely typed.
  nsys_test::ExecSql(path,
                     "DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET;"
                     "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, "
                     "correlationId, globalPid, value, bytes, memKind);"
                     "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES "
                     "(NULL, 10, 0, 1, 7, 1, " +
                         gpid +
                         ", 0, 8, 2),"  // no start
                         "(0, 0, 0, 1, 7, 1, " +
                         gpid +
                         ", 0, 8, 2),"  // zero timestamps
                         "(50, 40, 0, 1, 7, 1, " +
                         gpid +
                         ", 0, 8, 2),"  // ends before it starts
                         "('abc', 'def', 'x', 1, 'y', 'z', " +
                         gpid +
                         ", 0, 'lots', 99),"                                // text in numbers
                         "(3000, 3100, 0, 1, 7, NULL, NULL, 0, -5, NULL),"  // NULLs and negative bytes
                         "(3200, 3300, 0, 1, 7, 2, " +
                         gpid +
                         ", 0, 16, 2);"  // a good one
                         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
                         "correlationId, globalPid, demangledName, shortName, mangledName, registersPerThread, "
                         "gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory) "
                         "VALUES (4000, 4100, 0, 1, 7, 3, " +
                         gpid +
                         ", 555, 556, 557, 99999999999, 1, 1, 1, 1, "
                         "1, 1, 0, 0);");  // names missing from StringIds, absurd register count
  auto models = Load(path);
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_FALSE(models->empty());
  size_t ops = 0;
  std::map<std::string, int64_t> stats;
  for (const TraceModel& m : *models) {
    ops += m.ops.size();
    for (auto& [k, v] : m.import_stats) stats[k] = v;
  }
  EXPECT_EQ(stats["record_null_timestamp"], 1);
  EXPECT_EQ(stats["op_zero_timestamp"], 2);  // the zero row and the text row (reads as 0)
  EXPECT_EQ(stats["op_end_before_start"], 1);
  EXPECT_GE(stats["nsys_string_id_not_found"], 1);
  EXPECT_EQ(stats["kernel_without_name"], 1);
  EXPECT_EQ(stats["record_without_process"], 1);
  EXPECT_EQ(ops, 2u + 2u + 1u);  // basic activity, two memsets, one kernel
}

TEST(NsysSyntheticExport, NotAnExportAtAllIsRejectedByTheLoader) {
  TempDir dir;
  std::string path = dir.Path("e.sqlite");
  nsys_test::ExecSql(path, "CREATE TABLE something (x INTEGER); INSERT INTO something VALUES (1);");
  auto models = Load(path);
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(NsysEnums, GlobalIdsSplitIntoPidAndTid) {
  const int64_t global = (int64_t{0x11} << 56) | (int64_t{0x1} << 48) | (int64_t{1230493} << 24) | 1230499;
  EXPECT_EQ(nsys::PidOf(global), 1230493);
  EXPECT_EQ(nsys::TidOf(global), 1230499);
  EXPECT_EQ(nsys::PidOf(-1), 0xFFFFFF);  // no undefined behaviour on junk
}

TEST(NsysEnums, CopyAndMemoryKindsUseTheNsysNumbering) {
  EXPECT_EQ(nsys::CopyClassForKind(1).category, OpCategory::kHtoD);
  EXPECT_EQ(nsys::CopyClassForKind(2).category, OpCategory::kDtoH);
  EXPECT_EQ(nsys::CopyClassForKind(8).category, OpCategory::kDtoD);
  EXPECT_EQ(nsys::CopyClassForKind(10).category, OpCategory::kPtoP);
  EXPECT_EQ(nsys::CopyClassForKind(9).category, OpCategory::kOtherCopy);
  EXPECT_TRUE(nsys::CopyClassForKind(11).is_migration);
  EXPECT_TRUE(nsys::CopyClassForName("CUDA_MEMCPY_KIND_UVM_HTOD")->is_migration);
  EXPECT_EQ(nsys::CopyClassForName("CUDA_MEMCPY_KIND_HTOD")->category, OpCategory::kHtoD);
  EXPECT_EQ(nsys::MemoryKindForNsys(0), MemoryKind::kPageable);
  EXPECT_EQ(nsys::MemoryKindForNsys(1), MemoryKind::kPinned);
  EXPECT_EQ(nsys::MemoryKindForNsys(2), MemoryKind::kDevice);
  EXPECT_EQ(nsys::MemoryKindForNsys(4), MemoryKind::kManaged);
  EXPECT_EQ(nsys::MemoryKindForNsys(7), MemoryKind::kUnknown);
  EXPECT_EQ(nsys::SyncKindForApiName("cuCtxSynchronize"), SyncKind::kContextSynchronize);
  EXPECT_EQ(nsys::SyncKindForApiName("cudaEventSynchronize_v3020"), SyncKind::kEventSynchronize);
  EXPECT_EQ(nsys::SyncKindForApiName("cudaStreamWaitEvent_ptsz_v7000"), SyncKind::kStreamWaitEvent);
  EXPECT_EQ(nsys::SyncKindForApiName("cudaMalloc_v3020"), SyncKind::kUnknown);
}

}  // namespace
}  // namespace streamscope
