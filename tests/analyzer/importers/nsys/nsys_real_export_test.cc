// The Nsight Systems importer on three real exports (tests/data/nsys/):
// every figure the importer produces is compared with the same figure
// computed by plain SQL over the export, never by the code under test.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analyzer/importers/trace_loader.h"
#include "analyzer/intervals/interval_set.h"
#include "analyzer/model/trace_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/analyzer/importers/nsys/nsys_test_util.h"

namespace streamscope {
namespace {

using nsys_test::ApiSql;
using nsys_test::OpsSql;
using nsys_test::PidExpr;
using nsys_test::RealExportPath;
using nsys_test::SqlHasTable;
using nsys_test::SqlInt;
using nsys_test::SqlRows;
using nsys_test::UnionLengthSql;
using ::testing::HasSubstr;

constexpr const char* kSaxpy = "saxpy-mpi-cuda-rank0-a100.sqlite";
constexpr const char* kVecAddUm = "vecadd-um-a100.sqlite";
constexpr const char* kSmall = "small-rtx3060-nsys2025.sqlite";

class RealExport : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    path_ = RealExportPath(GetParam());
    auto models = LoadTraceFile(path_);
    ASSERT_TRUE(models.ok()) << models.status();
    models_ = std::move(*models);
    ASSERT_FALSE(models_.empty());
  }
  std::string P(const TraceModel& m) const { return std::to_string(m.pid); }

  std::string path_;
  std::vector<TraceModel> models_;
};

TEST_P(RealExport, OneModelPerProcessWithCudaActivityAndPidsFromTheProcessesTable) {
  auto rows = SqlRows(path_, "SELECT DISTINCT pid FROM (" + OpsSql(path_) +
                                 " UNION ALL SELECT s, e, 0, 0, '', pid, 0 FROM (" + ApiSql(path_) + ")) ORDER BY pid");
  ASSERT_EQ(models_.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(models_[i].pid, std::stoll(rows[i][0]));
    // The PROCESSES table states the OS pid of each globalPid: the bit
    // decoding must agree with it.
    EXPECT_EQ(models_[i].pid, SqlInt(path_, "SELECT p.pid FROM PROCESSES p WHERE " + PidExpr("p.globalPid") + " = " +
                                                rows[i][0] + " LIMIT 1"));
    EXPECT_EQ(models_[i].metadata["process_name"],
              SqlRows(path_, "SELECT name FROM PROCESSES WHERE pid = " + rows[i][0])[0][0]);
  }
}

TEST_P(RealExport, FormatAndVersionComeFromTheExportMetadataTable) {
  std::string table = SqlHasTable(path_, "META_DATA_EXPORT") ? "META_DATA_EXPORT" : "EXPORT_META_DATA";
  std::string version = SqlRows(path_, "SELECT value FROM " + table + " WHERE name = 'EXPORT_SCHEMA_VERSION'")[0][0];
  std::string nsys = SqlRows(path_, "SELECT value FROM " + table + " WHERE name = 'EXPORT_PRODUCT_VERSION'")[0][0];
  for (TraceModel& m : models_) {
    EXPECT_EQ(m.format, "nsys-export-" + version);
    EXPECT_EQ(m.metadata["export_schema_version"], version);
    EXPECT_EQ(m.metadata["nsys_version"], nsys);
    EXPECT_EQ(m.metadata["export_metadata_table"], table);
    EXPECT_EQ(m.metadata["host"],
              SqlRows(path_, "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'")[0][0]);
  }
}

TEST_P(RealExport, OpCountsAndBytesPerCategoryMatchSql) {
  for (const TraceModel& m : models_) {
    std::map<std::string, std::pair<int64_t, int64_t>> expected;  // category -> (count, bytes)
    for (auto& row : SqlRows(path_, "SELECT c, count(*), sum(bytes) FROM (" + OpsSql(path_) + ") WHERE pid = " + P(m) +
                                        " GROUP BY c")) {
      expected[row[0]] = {std::stoll(row[1]), std::stoll(row[2])};
    }
    std::map<std::string, std::pair<int64_t, int64_t>> actual;
    for (size_t i = 0; i < m.ops.size(); ++i) {
      auto& [count, bytes] = actual[std::string(OpCategoryName(m.ops.category[i]))];
      ++count;
      bytes += m.ops.bytes[i];
    }
    EXPECT_EQ(actual, expected);
  }
}

TEST_P(RealExport, KernelNamesAreTheMangledNamesOfStringIds) {
  for (const TraceModel& m : models_) {
    std::multiset<std::string> expected, actual;
    if (SqlHasTable(path_, "CUPTI_ACTIVITY_KIND_KERNEL")) {
      for (auto& row : SqlRows(path_,
                               "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                               "StringIds s ON s.id = COALESCE(k.mangledName, "
                               "k.demangledName) WHERE " +
                                   PidExpr("k.globalPid") + " = " + P(m))) {
        expected.insert(row[0]);
      }
    }
    for (size_t i = 0; i < m.ops.size(); ++i) {
      if (m.ops.category[i] == OpCategory::kKernel) actual.insert(std::string(m.strings.Get(m.ops.name[i])));
    }
    EXPECT_EQ(actual, expected);
  }
}

TEST_P(RealExport, OpsPerStreamAndStreamKindsMatchSql) {
  for (const TraceModel& m : models_) {
    std::map<int64_t, int64_t> expected, actual;
    for (auto& row :
         SqlRows(path_, "SELECT st, count(*) FROM (" + OpsSql(path_) + ") WHERE pid = " + P(m) + " GROUP BY st")) {
      expected[std::stoll(row[0])] = std::stoll(row[1]);
    }
    for (size_t i = 0; i < m.ops.size(); ++i) ++actual[m.streams[m.ops.stream[i]].id];
    EXPECT_EQ(actual, expected);

    std::string null_sql = SqlHasTable(path_, "TARGET_INFO_CUDA_NULL_STREAM")
                               ? "SELECT streamId FROM TARGET_INFO_CUDA_NULL_STREAM"
                               : "SELECT nullStreamId FROM TARGET_INFO_CUDA_CONTEXT_INFO";
    auto null_streams = SqlRows(path_, null_sql + " WHERE processId = " + P(m));
    ASSERT_FALSE(null_streams.empty());
    for (auto& row : null_streams) {
      auto it = m.stream_index.find(std::stoll(row[0]));
      ASSERT_NE(it, m.stream_index.end());
      EXPECT_EQ(m.streams[it->second].kind, StreamKind::kLegacyDefault);
    }
    for (auto& row : SqlRows(path_,
                             "SELECT streamId, flag, priority FROM TARGET_INFO_CUDA_STREAM "
                             "WHERE processId = " +
                                 P(m))) {
      auto it = m.stream_index.find(std::stoll(row[0]));
      ASSERT_NE(it, m.stream_index.end()) << "stream " << row[0];
      const Stream& s = m.streams[it->second];
      if (row[1] == "2") {
        EXPECT_EQ(s.kind, StreamKind::kNonBlocking) << row[0];
      }
      if (row[1] == "1") {
        EXPECT_EQ(s.kind, StreamKind::kBlocking) << row[0];
      }
      if (row[1] == "3") {
        EXPECT_EQ(s.kind, StreamKind::kLegacyDefault) << row[0];
      }
      ASSERT_TRUE(s.priority.has_value());
      EXPECT_EQ(*s.priority, static_cast<int32_t>(static_cast<uint32_t>(std::stoll(row[2]))));
    }
  }
}

TEST_P(RealExport, ApiCallsThreadsAndCorrelationsMatchSql) {
  for (const TraceModel& m : models_) {
    std::string where = " WHERE pid = " + P(m);
    EXPECT_EQ(static_cast<int64_t>(m.api.size()),
              SqlInt(path_, "SELECT count(*) FROM (" + ApiSql(path_) + ")" + where));
    int64_t runtime = 0, corr_sum = 0, duration = 0;
    std::set<int64_t> tids;
    for (size_t i = 0; i < m.api.size(); ++i) {
      runtime += m.api.domain[i] == ApiDomain::kRuntime;
      corr_sum += m.api.correlation_id[i];
      duration += m.api.end_ns[i] - m.api.start_ns[i];
      tids.insert(m.api.tid[i]);
    }
    EXPECT_EQ(runtime, SqlInt(path_, "SELECT count(*) FROM (" + ApiSql(path_) + ")" + where + " AND cls = 0"));
    EXPECT_EQ(corr_sum, SqlInt(path_, "SELECT sum(corr) FROM (" + ApiSql(path_) + ")" + where));
    EXPECT_EQ(duration, SqlInt(path_, "SELECT sum(e - s) FROM (" + ApiSql(path_) + ")" + where));
    std::set<int64_t> expected_tids;
    for (auto& row : SqlRows(path_, "SELECT DISTINCT tid FROM (" + ApiSql(path_) + ")" + where)) {
      expected_tids.insert(std::stoll(row[0]));
    }
    EXPECT_EQ(tids, expected_tids);
    // Every op whose correlation id has a runtime call links to it.
    for (size_t i = 0; i < m.ops.size(); ++i) {
      int32_t a = m.ApiForOp(i);
      if (a >= 0) {
        EXPECT_EQ(m.api.correlation_id[a], m.ops.correlation_id[i]);
      }
    }
  }
}

TEST_P(RealExport, NvtxRangesAndMarksMatchSql) {
  const bool has_nvtx = SqlHasTable(path_, "NVTX_EVENTS");
  for (const TraceModel& m : models_) {
    if (!has_nvtx) {
      EXPECT_TRUE(m.nvtx_ranges.empty());
      EXPECT_THAT(m.notes, ::testing::Contains(HasSubstr("no NVTX_EVENTS table")));
      continue;
    }
    std::string where = " WHERE n.eventType IN (59, 60) AND " + PidExpr("n.globalTid") + " = " + P(m);
    EXPECT_EQ(static_cast<int64_t>(m.nvtx_ranges.size()), SqlInt(path_, "SELECT count(*) FROM NVTX_EVENTS n" + where));
    std::multiset<std::string> expected, actual;
    for (auto& row : SqlRows(path_,
                             "SELECT COALESCE(n.text, s.value) || '@' || "
                             "COALESCE(d.text, '') || '@' || (n.end - n.start) FROM "
                             "NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId "
                             "LEFT JOIN NVTX_EVENTS d ON d.eventType = 75 AND d.domainId = "
                             "n.domainId" +
                                 where)) {
      expected.insert(row[0]);
    }
    for (const NvtxRange& r : m.nvtx_ranges) {
      ASSERT_TRUE(r.end_ns.has_value());
      actual.insert(std::string(m.strings.Get(r.name)) + "@" + std::string(m.strings.Get(r.domain)) + "@" +
                    std::to_string(*r.end_ns - r.start_ns));
    }
    EXPECT_EQ(actual, expected);
    EXPECT_EQ(static_cast<int64_t>(m.nvtx_marks.size()),
              SqlInt(path_, "SELECT count(*) FROM NVTX_EVENTS n WHERE eventType = 34 AND " + PidExpr("n.globalTid") +
                                " = " + P(m)));
  }
}

TEST_P(RealExport, DevicesComeFromTargetInfoGpu) {
  auto gpus = SqlRows(path_,
                      "SELECT cuDevice, name, smCount, asyncEngines, totalMemory, "
                      "computeMajor, computeMinor FROM TARGET_INFO_GPU");
  for (const TraceModel& m : models_) {
    ASSERT_EQ(m.devices.size(), gpus.size());
    for (auto& g : gpus) {
      const Device* d = m.FindDevice(std::stoi(g[0]));
      ASSERT_NE(d, nullptr);
      EXPECT_EQ(d->name, g[1]);
      EXPECT_EQ(d->sm_count, std::stoi(g[2]));
      EXPECT_EQ(d->async_engine_count, std::stoi(g[3]));
      EXPECT_EQ(d->global_memory_bytes, std::stoll(g[4]));
      EXPECT_EQ(d->compute_major, std::stoi(g[5]));
      EXPECT_EQ(d->compute_minor, std::stoi(g[6]));
    }
  }
}

// Busy time (union of all ops), idle time inside the whole-trace window,
// and overlap of each category pair: SQL computes unions with a gaps-and-
// islands query and |A and B| = |A| + |B| - |A or B|; the model side uses
// the interval toolkit on the imported ops.
TEST_P(RealExport, BusyIdleAndOverlapFiguresMatchSql) {
  const std::string ops = OpsSql(path_);
  for (const TraceModel& m : models_) {
    std::map<int32_t, IntervalList> by_device;
    std::map<std::pair<int32_t, std::string>, IntervalList> by_category;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < m.ops.size(); ++i) {
      Interval iv{m.ops.start_ns[i], m.ops.end_ns[i]};
      by_device[m.ops.device_id[i]].push_back(iv);
      by_category[{m.ops.device_id[i], std::string(OpCategoryName(m.ops.category[i]))}].push_back(iv);
      first = std::min(first, iv.start);
      last = std::max(last, iv.end);
    }
    for (size_t i = 0; i < m.api.size(); ++i) {
      first = std::min(first, m.api.start_ns[i]);
      last = std::max(last, m.api.end_ns[i]);
    }
    const std::string pid = P(m);
    const int64_t sql_first =
        SqlInt(path_, "SELECT min(s) FROM (SELECT s FROM (" + ops + ") WHERE pid = " + pid +
                          " UNION ALL SELECT s FROM (" + ApiSql(path_) + ") WHERE pid = " + pid + ")");
    const int64_t sql_last =
        SqlInt(path_, "SELECT max(e) FROM (SELECT e FROM (" + ops + ") WHERE pid = " + pid +
                          " UNION ALL SELECT e FROM (" + ApiSql(path_) + ") WHERE pid = " + pid + ")");
    EXPECT_EQ(first, sql_first);
    EXPECT_EQ(last, sql_last);
    for (auto& [device, intervals] : by_device) {
      const std::string where = " WHERE pid = " + pid + " AND d = " + std::to_string(device);
      const int64_t busy = TotalLength(Normalize(intervals));
      const int64_t sql_busy = SqlInt(path_, UnionLengthSql("SELECT s, e FROM (" + ops + ")" + where));
      EXPECT_EQ(busy, sql_busy) << "device " << device;
      EXPECT_GT(busy, 0);
      const int64_t idle = TotalLength(Complement(Normalize(intervals), {first, last}));
      EXPECT_EQ(idle, (sql_last - sql_first) - sql_busy);
      const char* categories[] = {"compute", "H2D", "D2H", "D2D", "P2P", "memset", "other_copy"};
      for (const char* a : categories) {
        for (const char* b : categories) {
          if (std::string(a) >= std::string(b)) continue;
          IntervalList ua = Normalize(by_category[{device, a}]);
          IntervalList ub = Normalize(by_category[{device, b}]);
          const int64_t overlap = TotalLength(Intersect(ua, ub));
          auto len = [&](const std::string& cond) {
            return SqlInt(path_, UnionLengthSql("SELECT s, e FROM (" + ops + ")" + where + " AND " + cond));
          };
          const int64_t sql_overlap = len("c = '" + std::string(a) + "'") + len("c = '" + std::string(b) + "'") -
                                      len("c IN ('" + std::string(a) + "', '" + b + "')");
          EXPECT_EQ(overlap, sql_overlap) << a << "|" << b << " on device " << device;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllThree, RealExport, ::testing::Values(kSaxpy, kVecAddUm, kSmall), [](const auto& info) {
  std::string name = info.param;
  name = name.substr(0, name.find('.'));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

TEST(NsysRealExport, UnifiedMemoryMigrationsAreCopyOpsAndCountedInNotes) {
  const std::string path = RealExportPath(kVecAddUm);
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_EQ(models->size(), 1u);
  const TraceModel& m = (*models)[0];
  const int64_t migrations =
      SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind IN (11,12,13)");
  const int64_t htod = SqlInt(path, "SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 11");
  const int64_t dtoh = SqlInt(path, "SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 12");
  ASSERT_EQ(migrations, 4608);          // what the data README states
  EXPECT_EQ(m.ops.size(), 1u + 4608u);  // the kernel and every migration
  EXPECT_THAT(m.notes,
              ::testing::Contains(::testing::AllOf(HasSubstr(std::to_string(migrations) + " unified-memory migrations"),
                                                   HasSubstr(std::to_string(htod) + " bytes to device"),
                                                   HasSubstr(std::to_string(dtoh) + " bytes to host"))));
}

TEST(NsysRealExport, SyncKindOfA2xExportComesFromTheSynchronizingCall) {
  // 2.9.1 exports have no ENUM_CUPTI_SYNC_TYPE and number syncType their own
  // way; the call that synchronized says what it was.
  const std::string path = RealExportPath(kVecAddUm);
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  auto rows = SqlRows(path,
                      "SELECT s.value FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION y JOIN "
                      "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = y.correlationId "
                      "JOIN StringIds s ON s.id = r.nameId");
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_THAT(rows[0][0], ::testing::StartsWith("cudaDeviceSynchronize"));
  ASSERT_EQ(m.syncs.size(), 1u);
  EXPECT_EQ(m.syncs[0].kind, SyncKind::kContextSynchronize);
  EXPECT_EQ(m.syncs[0].stream, -1);  // 0xFFFFFFFF: not applicable
  EXPECT_EQ(m.syncs[0].event_id, -1);
}

TEST(NsysRealExport, SyncKindOfA3xExportComesFromItsEnumTable) {
  const std::string path = RealExportPath(kSmall);
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  auto rows = SqlRows(path,
                      "SELECT e.name FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION y JOIN "
                      "ENUM_CUPTI_SYNC_TYPE e ON e.id = y.syncType");
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_EQ(rows[0][0], "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE");
  ASSERT_EQ((*models)[0].syncs.size(), 1u);
  EXPECT_EQ((*models)[0].syncs[0].kind, SyncKind::kContextSynchronize);
}

TEST(NsysRealExport, BacktraceDuplicatesOfApiCallsAreSkippedAndCounted) {
  const std::string path = RealExportPath(kSaxpy);
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const int64_t duplicates = SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 67");
  ASSERT_GT(duplicates, 0);
  EXPECT_EQ((*models)[0].import_stats.at("api_row_skipped_event_class_67"), duplicates);
}

TEST(NsysRealExport, CopiesTakeMemoryKindsFromTheNsysNumbering) {
  // nsys numbers memory kinds from 0 = pageable (ENUM_CUDA_MEM_KIND), unlike
  // CUPTI; both eras use it.
  for (const char* file : {kSaxpy, kSmall}) {
    const std::string path = RealExportPath(file);
    auto models = LoadTraceFile(path);
    ASSERT_TRUE(models.ok()) << models.status();
    const TraceModel& m = (*models)[0];
    const int64_t pageable_to_device =
        SqlInt(path,
               "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1 AND srcKind = 0 "
               "AND dstKind = 2");
    int64_t actual = 0;
    for (size_t i = 0; i < m.ops.size(); ++i) {
      actual += m.ops.category[i] == OpCategory::kHtoD && m.ops.src_kind[i] == MemoryKind::kPageable &&
                m.ops.dst_kind[i] == MemoryKind::kDevice;
    }
    EXPECT_GT(pageable_to_device, 0) << file;
    EXPECT_EQ(actual, pageable_to_device) << file;
  }
}

TEST(NsysRealExport, ThreadNamesComeFromThreadNames) {
  const std::string path = RealExportPath(kSaxpy);
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  for (auto& row : SqlRows(path,
                           "SELECT (t.globalTid & 16777215), s.value FROM ThreadNames t "
                           "JOIN StringIds s ON s.id = t.nameId")) {
    auto it = m.thread_names.find(std::stoll(row[0]));
    ASSERT_NE(it, m.thread_names.end());
    EXPECT_EQ(it->second, row[1]);
  }
}

}  // namespace
}  // namespace streamscope
