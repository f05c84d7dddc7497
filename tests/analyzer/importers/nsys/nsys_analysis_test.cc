// The analyzer's own analyses (overlap, idle gaps, windows) on the three
// real Nsight Systems exports, against figures computed with plain SQL over
// the export: busy time (a gaps-and-islands union), idle time and gap count,
// time per category, overlap per category pair (|A| + |B| - |A or B|),
// exposed copy time, per-stream busy time, and NVTX windows.
#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/analysis/overlap_gaps/idle_gaps.h"
#include "analyzer/analysis/overlap_gaps/overlap.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "tests/analyzer/importers/nsys/nsys_test_util.h"

namespace streamscope {
namespace {

using nsys_test::ApiSql;
using nsys_test::OpsSql;
using nsys_test::PidExpr;
using nsys_test::RealExportPath;
using nsys_test::SqlInt;
using nsys_test::SqlRows;
using nsys_test::UnionLengthSql;

constexpr OpCategory kCategories[] = {OpCategory::kKernel,   OpCategory::kHtoD, OpCategory::kDtoH,
                                      OpCategory::kDtoD,     OpCategory::kPtoP, OpCategory::kMemset,
                                      OpCategory::kOtherCopy};

class NsysAnalysis : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    path_ = RealExportPath(GetParam());
    ops_ = OpsSql(path_);
    auto models = LoadTraceFile(path_);
    ASSERT_TRUE(models.ok()) << models.status();
    models_ = std::move(*models);
  }
  // Union length of this model's ops on `device` that match `cond` (SQL).
  int64_t SqlUnion(const TraceModel& m, int32_t device, const std::string& cond) {
    return SqlInt(path_, UnionLengthSql("SELECT s, e FROM (" + ops_ + ") WHERE pid = " + std::to_string(m.pid) +
                                        " AND d = " + std::to_string(device) + " AND (" + cond + ")"));
  }
  std::string Cat(OpCategory c) { return "c = '" + std::string(OpCategoryName(c)) + "'"; }

  std::string path_, ops_;
  std::vector<TraceModel> models_;
};

TEST_P(NsysAnalysis, WholeTraceWindowSpansFirstToLastOpOrApiCallBySql) {
  for (const TraceModel& m : models_) {
    const std::string pid = std::to_string(m.pid);
    const std::string all = "SELECT s, e FROM (" + ops_ + ") WHERE pid = " + pid + " UNION ALL SELECT s, e FROM (" +
                            ApiSql(path_) + ") WHERE pid = " + pid;
    Window w = WholeTraceWindow(m);
    EXPECT_EQ(w.start_ns, SqlInt(path_, "SELECT min(s) FROM (" + all + ")"));
    EXPECT_EQ(w.end_ns, SqlInt(path_, "SELECT max(e) FROM (" + all + ")"));
  }
}

TEST_P(NsysAnalysis, IdleGapsMatchSqlIslands) {
  for (const TraceModel& m : models_) {
    Window w = WholeTraceWindow(m);
    IdleGapsResult gaps = AnalyzeIdleGaps(m, w, IdleGapsOptions{});
    ASSERT_FALSE(gaps.devices.empty());
    for (const DeviceGaps& d : gaps.devices) {
      const int64_t busy = SqlUnion(m, d.device_id, "1");
      EXPECT_EQ(d.busy_ns, busy);
      EXPECT_EQ(d.idle_ns, w.length() - busy);
      EXPECT_EQ(d.op_count, SqlInt(path_, "SELECT count(*) FROM (" + ops_ + ") WHERE pid = " + std::to_string(m.pid) +
                                              " AND d = " + std::to_string(d.device_id) + " AND e > s"));
      // Gaps: between consecutive SQL islands, plus the window edges.
      auto islands = SqlRows(path_, "WITH iv AS (SELECT s, e FROM (" + ops_ + ") WHERE pid = " + std::to_string(m.pid) +
                                        " AND d = " + std::to_string(d.device_id) +
                                        " AND e > s), o AS (SELECT s, e, MAX(e) OVER (ORDER BY s, e ROWS BETWEEN "
                                        "UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach FROM iv), g AS (SELECT s, e, "
                                        "SUM(CASE WHEN reach IS NULL OR s > reach THEN 1 ELSE 0 END) OVER (ORDER BY "
                                        "s, e ROWS UNBOUNDED PRECEDING) AS grp FROM o) SELECT MIN(s), MAX(e) FROM g "
                                        "GROUP BY grp ORDER BY 1");
      ASSERT_FALSE(islands.empty());
      int64_t expected_gaps = static_cast<int64_t>(islands.size()) - 1;
      if (std::stoll(islands.front()[0]) > w.start_ns) ++expected_gaps;
      if (std::stoll(islands.back()[1]) < w.end_ns) ++expected_gaps;
      EXPECT_EQ(d.gap_count, expected_gaps);
    }
    for (const StreamGaps& s : gaps.streams) {
      const int64_t stream_id = m.streams[s.stream].id;
      EXPECT_EQ(s.busy_ns, SqlUnion(m, s.device_id, "st = " + std::to_string(stream_id))) << "stream " << stream_id;
    }
  }
}

TEST_P(NsysAnalysis, OverlapByCategoryPairMatchesSql) {
  for (const TraceModel& m : models_) {
    Window w = WholeTraceWindow(m);
    OverlapResult overlap = AnalyzeOverlap(m, w, OverlapOptions{});
    ASSERT_FALSE(overlap.devices.empty());
    for (const DeviceOverlap& d : overlap.devices) {
      EXPECT_EQ(d.busy_ns, SqlUnion(m, d.device_id, "1"));
      for (OpCategory c : kCategories) {
        EXPECT_EQ(d.category_ns[static_cast<int>(c)], SqlUnion(m, d.device_id, Cat(c))) << OpCategoryName(c);
      }
      for (size_t i = 0; i < std::size(kCategories); ++i) {
        for (size_t j = i + 1; j < std::size(kCategories); ++j) {
          OpCategory a = kCategories[i], b = kCategories[j];
          const int64_t expected = SqlUnion(m, d.device_id, Cat(a)) + SqlUnion(m, d.device_id, Cat(b)) -
                                   SqlUnion(m, d.device_id, Cat(a) + " OR " + Cat(b));
          const PairOverlap* pair = overlap.Find(d.device_id, OverlapPairIndex(a, b));
          EXPECT_EQ(pair == nullptr ? 0 : pair->overlapped_ns, expected)
              << OpCategoryName(a) << "|" << OpCategoryName(b);
        }
      }
      // Exposed copy time: copies while no kernel ran = |copy or compute| - |compute|.
      const std::string compute = Cat(OpCategory::kKernel);
      EXPECT_EQ(d.exposed_copy_ns, SqlUnion(m, d.device_id, "c <> 'memset'") - SqlUnion(m, d.device_id, compute));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllThree, NsysAnalysis,
                         ::testing::Values("saxpy-mpi-cuda-rank0-a100.sqlite", "vecadd-um-a100.sqlite",
                                           "small-rtx3060-nsys2025.sqlite"),
                         [](const auto& info) {
                           std::string name = info.param;
                           name = name.substr(0, name.find('.'));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The real exports ran one stream at a time (no overlap); a synthetic
// export with two streams gives the overlap figures something to find.
TEST(NsysAnalysisSynthetic, OverlapAcrossStreamsOfAnExportIsFound) {
  nsys_test::TempDir dir;
  const std::string path = dir.Path("overlap.sqlite");
  nsys_test::CreateExport(path, nsys_test::ExportLayout{});
  const std::string gpid = std::to_string(nsys_test::GlobalPid(4242));
  nsys_test::ExecSql(path,
                     "INSERT INTO StringIds VALUES (1, '_Z1kv');"
                     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
                     "correlationId, globalPid, demangledName, shortName, mangledName, registersPerThread, gridX, "
                     "gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory) VALUES "
                     "(1000, 5000, 0, 1, 13, 1, " +
                         gpid +
                         ", 1, 1, 1, 8, 1, 1, 1, 32, 1, 1, 0, 0),"
                         "(4500, 6000, 0, 1, 14, 4, " +
                         gpid +
                         ", 1, 1, 1, 8, 1, 1, 1, 32, 1, 1, 0, 0);"
                         "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, "
                         "correlationId, globalPid, bytes, copyKind, srcKind, dstKind) VALUES "
                         "(2000, 3000, 0, 1, 14, 2, " +
                         gpid +
                         ", 100, 1, 1, 2),"
                         "(4000, 7000, 0, 1, 14, 3, " +
                         gpid + ", 200, 2, 2, 1);");
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  OverlapResult overlap = AnalyzeOverlap(m, WholeTraceWindow(m), OverlapOptions{});
  ASSERT_EQ(overlap.devices.size(), 1u);
  const DeviceOverlap& d = overlap.devices[0];
  EXPECT_EQ(d.busy_ns, 6000);  // [1000, 7000)
  const PairOverlap* h2d = overlap.Find(0, OverlapPairIndex(OpCategory::kKernel, OpCategory::kHtoD));
  const PairOverlap* d2h = overlap.Find(0, OverlapPairIndex(OpCategory::kKernel, OpCategory::kDtoH));
  ASSERT_NE(h2d, nullptr);
  ASSERT_NE(d2h, nullptr);
  EXPECT_EQ(h2d->overlapped_ns, 1000);  // [2000, 3000)
  EXPECT_EQ(d2h->overlapped_ns, 2000);  // [4000, 6000)
  const PairOverlap* cc = overlap.Find(0, kComputeComputePair);
  ASSERT_NE(cc, nullptr);
  EXPECT_EQ(cc->overlapped_ns, 500);   // [4500, 5000) on streams 13 and 14
  EXPECT_EQ(d.exposed_copy_ns, 1000);  // [6000, 7000)
  // The same figures by SQL over the export.
  const std::string ops = OpsSql(path);
  auto len = [&](const std::string& cond) {
    return SqlInt(path, UnionLengthSql("SELECT s, e FROM (" + ops + ") WHERE " + cond));
  };
  EXPECT_EQ(d.busy_ns, len("1"));
  EXPECT_EQ(h2d->overlapped_ns, len("c = 'compute'") + len("c = 'H2D'") - len("c IN ('compute', 'H2D')"));
  EXPECT_EQ(d2h->overlapped_ns, len("c = 'compute'") + len("c = 'D2H'") - len("c IN ('compute', 'D2H')"));
}

TEST(NsysAnalysisWindows, NvtxRangeWindowsAreTheExportsRanges) {
  const std::string path = RealExportPath("saxpy-mpi-cuda-rank0-a100.sqlite");
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = "saxpy";
  auto windows = ResolveWindows((*models)[0], spec);
  ASSERT_TRUE(windows.ok()) << windows.status();
  auto rows = SqlRows(path,
                      "SELECT start, end FROM NVTX_EVENTS WHERE eventType = 59 AND text = "
                      "'saxpy' ORDER BY start");
  ASSERT_EQ(windows->size(), rows.size());
  ASSERT_EQ(rows.size(), 5u);
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ((*windows)[i].start_ns, std::stoll(rows[i][0]));
    EXPECT_EQ((*windows)[i].end_ns, std::stoll(rows[i][1]));
  }
}

}  // namespace
}  // namespace streamscope
