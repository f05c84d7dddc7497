// `streamscope convert`: an Nsight Systems export written as a streamscope
// trace. The converted file is checked with plain SQL against the export,
// then (once the streamscope trace importer exists) read back and compared
// with the export read directly. Output safety: no clobbering, no writing
// through symbolic links, no partial files.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "analyzer/convert/converted_trace_writer.h"
#include "analyzer/convert/output_plan.h"
#include "analyzer/importers/nsys/nsys_export_importer.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/intervals/interval_set.h"
#include "analyzer/sqlite/sqlite_db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "schema/schema.h"
#include "tests/analyzer/importers/nsys/nsys_test_util.h"
#include "tests/analyzer/model/test_files.h"

namespace streamscope {
namespace {

using nsys_test::RealExportPath;
using nsys_test::SqlHasTable;
using nsys_test::SqlInt;
using nsys_test::SqlRows;
using nsys_test::TempDir;
using ::testing::HasSubstr;

constexpr const char* kExports[] = {"saxpy-mpi-cuda-rank0-a100.sqlite", "vecadd-um-a100.sqlite",
                                    "small-rtx3060-nsys2025.sqlite"};

using testing::ReadFile;

std::set<std::string> Listing(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.insert(e.path().filename());
  return names;
}

absl::StatusOr<std::string> Convert(const std::string& export_path, const TempDir& dir) {
  auto models = LoadTraceFile(export_path);
  if (!models.ok()) return models.status();
  if (models->size() != 1) return absl::InternalError("expected one process");
  auto db = SqliteDb::OpenReadOnly(export_path);
  if (!db.ok()) return db.status();
  if (absl::Status s = AddNsysKernelShapes(**db, &(*models)[0]); !s.ok()) return s;
  std::string out = dir.Path("converted.sqlite");
  TraceWriteOptions options;
  options.source_path = export_path;
  absl::Status status = WriteStreamscopeTrace((*models)[0], out, options);
  if (!status.ok()) return status;
  return out;
}

class ConvertRealExport : public ::testing::TestWithParam<const char*> {};

TEST_P(ConvertRealExport, ConvertedTraceHoldsTheExportsRowsBySql) {
  TempDir dir;
  const std::string in = RealExportPath(GetParam());
  auto out = Convert(in, dir);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(SqlRows(*out, "PRAGMA integrity_check")[0][0], "ok");
  EXPECT_EQ(SqlInt(*out, "PRAGMA user_version"), schema::Version());
  EXPECT_EQ(SqlRows(*out, "SELECT value FROM metadata WHERE key = 'schema_version'")[0][0],
            std::to_string(schema::Version()));
  EXPECT_EQ(SqlRows(*out, "SELECT value FROM metadata WHERE key = 'trace_format'")[0][0], "converted-nsys");
  EXPECT_EQ(SqlRows(*out, "SELECT value FROM metadata WHERE key = 'source_path'")[0][0], in);
  std::string meta = SqlHasTable(in, "META_DATA_EXPORT") ? "META_DATA_EXPORT" : "EXPORT_META_DATA";
  EXPECT_EQ(SqlRows(*out, "SELECT value FROM metadata WHERE key = 'export_schema_version'")[0][0],
            SqlRows(in, "SELECT value FROM " + meta + " WHERE name = 'EXPORT_SCHEMA_VERSION'")[0][0]);
  // Finalize ran: the indexes after the schema's finalize marker exist.
  EXPECT_EQ(SqlInt(*out, "SELECT count(*) FROM sqlite_master WHERE name = 'kernel_correlation'"), 1);

  EXPECT_EQ(SqlInt(*out, "SELECT count(*) FROM kernel"), SqlInt(in, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
  EXPECT_EQ(SqlInt(*out, "SELECT sum(end_ns - start_ns) FROM kernel"),
            SqlInt(in, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
  for (int kind : {1, 2, 11, 12}) {  // 11, 12: unified-memory migrations
    const std::string k = std::to_string(kind);
    EXPECT_EQ(SqlInt(*out, "SELECT count(*) FROM memcpy WHERE copy_kind = " + k),
              SqlInt(in, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = " + k));
    EXPECT_EQ(SqlInt(*out, "SELECT COALESCE(sum(bytes), 0) FROM memcpy WHERE copy_kind = " + k),
              SqlInt(in,
                     "SELECT COALESCE(sum(bytes), 0) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE "
                     "copyKind = " +
                         k));
  }
  // Launch shapes (added for convert) match the export's.
  EXPECT_EQ(SqlRows(*out,
                    "SELECT group_concat(grid_x || 'x' || block_x || 'r' || "
                    "registers_per_thread || 's' || static_shared_bytes, ',') FROM (SELECT * "
                    "FROM kernel ORDER BY start_ns)")[0][0],
            SqlRows(in,
                    "SELECT group_concat(gridX || 'x' || blockX || 'r' || registersPerThread "
                    "|| 's' || (staticSharedMemory + dynamicSharedMemory), ',') FROM (SELECT * "
                    "FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start)")[0][0]);
  // Names survive through the string table (the kernel_named view).
  EXPECT_EQ(SqlRows(*out,
                    "SELECT group_concat(name, ',') FROM (SELECT name FROM kernel_named "
                    "ORDER BY start_ns)")[0][0],
            SqlRows(in,
                    "SELECT group_concat(value, ',') FROM (SELECT s.value FROM "
                    "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
                    "COALESCE(k.mangledName, k.demangledName) ORDER BY k.start)")[0][0]);
  EXPECT_EQ(SqlInt(*out, "SELECT count(*) FROM api_call"),
            SqlInt(in, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass IN (0, 1)"));
  EXPECT_EQ(SqlInt(*out, "SELECT count(*) FROM sync"),
            SqlHasTable(in, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
                ? SqlInt(in, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
                : 0);
  EXPECT_EQ(
      SqlInt(*out, "SELECT count(*) FROM nvtx_range"),
      SqlHasTable(in, "NVTX_EVENTS") ? SqlInt(in, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60)") : 0);
  // The legacy default stream and each context's null stream agree.
  std::string null_sql = SqlHasTable(in, "TARGET_INFO_CUDA_NULL_STREAM")
                             ? "SELECT streamId FROM TARGET_INFO_CUDA_NULL_STREAM"
                             : "SELECT nullStreamId FROM TARGET_INFO_CUDA_CONTEXT_INFO";
  const int64_t null_stream = SqlInt(in, null_sql);
  EXPECT_EQ(SqlInt(*out, "SELECT null_stream_id FROM context WHERE null_stream_id IS NOT NULL"), null_stream);
  EXPECT_EQ(SqlInt(*out, "SELECT kind FROM stream WHERE id = " + std::to_string(null_stream)), 1);
  // Every op refers to a stream row and a device row.
  EXPECT_EQ(SqlInt(*out,
                   "SELECT count(*) FROM gpu_op o LEFT JOIN stream s ON s.id = o.stream_id "
                   "WHERE s.id IS NULL"),
            0);
  EXPECT_EQ(SqlInt(*out,
                   "SELECT count(*) FROM gpu_op o LEFT JOIN device d ON d.id = o.device_id "
                   "WHERE d.id IS NULL"),
            0);
}

// Round trip: the converted trace read by the streamscope importer gives the
// same counts and sums as the export read directly.
TEST_P(ConvertRealExport, RoundTripThroughTheStreamscopeImporterKeepsCountsAndSums) {
  TempDir dir;
  const std::string in = RealExportPath(GetParam());
  auto out = Convert(in, dir);
  ASSERT_TRUE(out.ok()) << out.status();
  auto direct = LoadTraceFile(in);
  ASSERT_TRUE(direct.ok()) << direct.status();
  auto back = LoadTraceFile(*out);
  if (!back.ok() && back.status().code() == absl::StatusCode::kUnimplemented) {
    GTEST_SKIP() << "the streamscope trace importer is not implemented yet: " << back.status().message();
  }
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 1u);
  const TraceModel& a = (*direct)[0];
  const TraceModel& b = (*back)[0];
  ASSERT_EQ(a.ops.size(), b.ops.size());
  std::map<std::string, std::pair<int64_t, int64_t>> ca, cb;
  std::map<int32_t, IntervalList> ba, bb;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    auto& x = ca[std::string(OpCategoryName(a.ops.category[i]))];
    ++x.first;
    x.second += a.ops.bytes[i];
    ba[a.ops.device_id[i]].push_back({a.ops.start_ns[i], a.ops.end_ns[i]});
    auto& y = cb[std::string(OpCategoryName(b.ops.category[i]))];
    ++y.first;
    y.second += b.ops.bytes[i];
    bb[b.ops.device_id[i]].push_back({b.ops.start_ns[i], b.ops.end_ns[i]});
    EXPECT_EQ(a.ops.start_ns[i], b.ops.start_ns[i]);
    EXPECT_EQ(a.strings.Get(a.ops.name[i]), b.strings.Get(b.ops.name[i]));
    EXPECT_EQ(a.streams[a.ops.stream[i]].id, b.streams[b.ops.stream[i]].id);
    EXPECT_EQ(a.streams[a.ops.stream[i]].kind, b.streams[b.ops.stream[i]].kind);
  }
  EXPECT_EQ(ca, cb);
  ASSERT_EQ(ba.size(), bb.size());
  for (auto& [device, intervals] : ba) {
    EXPECT_EQ(TotalLength(Normalize(intervals)), TotalLength(Normalize(bb[device])));
  }
  EXPECT_EQ(a.api.size(), b.api.size());
  EXPECT_EQ(a.syncs.size(), b.syncs.size());
  for (size_t i = 0; i < a.syncs.size() && i < b.syncs.size(); ++i) {
    EXPECT_EQ(a.syncs[i].kind, b.syncs[i].kind);
  }
  ASSERT_EQ(a.nvtx_ranges.size(), b.nvtx_ranges.size());
  for (size_t i = 0; i < a.nvtx_ranges.size(); ++i) {
    EXPECT_EQ(a.strings.Get(a.nvtx_ranges[i].name), b.strings.Get(b.nvtx_ranges[i].name));
    EXPECT_EQ(a.nvtx_ranges[i].end_ns, b.nvtx_ranges[i].end_ns);
  }
  EXPECT_EQ(a.devices.size(), b.devices.size());
}

INSTANTIATE_TEST_SUITE_P(AllThree, ConvertRealExport, ::testing::ValuesIn(kExports), [](const auto& info) {
  std::string name = info.param;
  name = name.substr(0, name.find('.'));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

class ConvertOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    auto models = LoadTraceFile(RealExportPath(kExports[2]));
    ASSERT_TRUE(models.ok()) << models.status();
    model_ = std::move((*models)[0]);
  }
  TempDir dir_;
  TraceModel model_;
};

TEST_F(ConvertOutput, RefusesToReplaceAnExistingFileUnlessForced) {
  std::string out = dir_.Path("out.sqlite");
  std::ofstream(out) << "keep me";
  absl::Status status = WriteStreamscopeTrace(model_, out, {});
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(status.message()), HasSubstr("--force"));
  EXPECT_EQ(ReadFile(out), "keep me");
  TraceWriteOptions force;
  force.overwrite = true;
  ASSERT_TRUE(WriteStreamscopeTrace(model_, out, force).ok());
  EXPECT_EQ(SqlInt(out, "SELECT count(*) FROM kernel"), 1);
  EXPECT_EQ(Listing(dir_.dir()), std::set<std::string>{"out.sqlite"});
}

TEST_F(ConvertOutput, NeverWritesThroughASymbolicLink) {
  std::string target = dir_.Path("target.txt");
  std::ofstream(target) << "precious";
  std::string link = dir_.Path("link.sqlite");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  TraceWriteOptions force;
  force.overwrite = true;
  for (const TraceWriteOptions& options : {TraceWriteOptions{}, force}) {
    absl::Status status = WriteStreamscopeTrace(model_, link, options);
    EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr("symbolic link"));
  }
  EXPECT_EQ(ReadFile(target), "precious");
  // A dangling link is refused too, and its target is not created.
  std::string dangling = dir_.Path("dangling.sqlite");
  ASSERT_EQ(symlink(dir_.Path("nowhere").c_str(), dangling.c_str()), 0);
  EXPECT_EQ(WriteStreamscopeTrace(model_, dangling, {}).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_FALSE(std::filesystem::exists(dir_.Path("nowhere")));
  EXPECT_EQ(Listing(dir_.dir()), (std::set<std::string>{"target.txt", "link.sqlite", "dangling.sqlite"}));
}

TEST_F(ConvertOutput, AFailedWriteLeavesNoFileBehind) {
  std::string out = dir_.Path("missing-dir/out.sqlite");
  absl::Status status = WriteStreamscopeTrace(model_, out, {});
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(Listing(dir_.dir()).empty());
}

TEST(ConvertOutputPlan, SeveralProcessesNeedAPidPattern) {
  TempDir dir;
  auto refused = PlanConvertOutputs({11, 22}, dir.Path("out.sqlite"), false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("%p"));
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("11, 22"));
  auto planned = PlanConvertOutputs({11, 22}, dir.Path("out-%p.sqlite"), false);
  ASSERT_TRUE(planned.ok()) << planned.status();
  EXPECT_EQ(*planned, (std::vector<std::string>{dir.Path("out-11.sqlite"), dir.Path("out-22.sqlite")}));
  auto single = PlanConvertOutputs({11}, dir.Path("one.sqlite"), false);
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(*single, std::vector<std::string>{dir.Path("one.sqlite")});
}

TEST(ConvertOutputPlan, AnExistingOutputIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  std::ofstream(dir.Path("out-22.sqlite")) << "x";
  auto planned = PlanConvertOutputs({11, 22}, dir.Path("out-%p.sqlite"), false);
  ASSERT_FALSE(planned.ok());
  EXPECT_EQ(planned.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(PlanConvertOutputs({11, 22}, dir.Path("out-%p.sqlite"), true).ok());
}

}  // namespace
}  // namespace streamscope
