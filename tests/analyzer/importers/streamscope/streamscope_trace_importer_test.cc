// The streamscope trace importer: a faithful model from a good trace, named
// counters (not failures) for bad records, clear errors for files it cannot
// read.
#include "analyzer/importers/streamscope/streamscope_trace_importer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyzer/convert/trace_table_writer.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/sqlite/sqlite_table_scan.h"
#include "gtest/gtest.h"
#include "schema/enum_values.h"
#include "schema/schema.h"
#include "tests/analyzer/base/analyzer_threads_env.h"
#include "tests/analyzer/importers/bundled_traces.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::ExecSql;
using testing::SyntheticTrace;
using testing::TempTracePath;

// String 1 is "saxpy", string 2 "cudaLaunchKernel" (first use, from 1).
constexpr int64_t kSaxpy = 1, kLaunch = 2;

// A trace of every kind of record; `more` adds rows of a test's own.
std::string GoodTrace(const std::function<absl::Status(TraceTableWriter&)>& more = nullptr) {
  SyntheticTrace t;
  t.Device(0, 2, 1).Stream(7, 0, StreamKind::kLegacyDefault).Stream(8, 0, StreamKind::kNonBlocking);
  t.Kernel(7, 100, 200, "saxpy");
  t.Copy(OpCategory::kDtoH, 8, 150, 250, 4096, MemoryKind::kDevice, MemoryKind::kPageable);
  t.Memset(8, 300, 310);
  t.Api("cudaLaunchKernel", 11, 50, 60);
  t.Nvtx("measured", 40, 400);
  t.Mark("streamscope", "workload=sequential", 30);
  std::string path = TempTracePath("good");
  EXPECT_TRUE(t.WriteFile(path, more).ok());
  return path;
}

KernelRow KernelOf(int64_t id, int64_t start_ns, int64_t end_ns, int64_t device_id, OptInt stream_id) {
  KernelRow k;
  k.id = id;
  k.start_ns = start_ns;
  k.end_ns = end_ns;
  k.device_id = device_id;
  k.stream_id = stream_id;
  k.name_id = kSaxpy;
  return k;
}

// Writes `rows` in order; the first failure is the result.
template <typename Row>
absl::Status WriteAll(TraceTableWriter& w, absl::Status (TraceTableWriter::*write)(const Row&),
                      const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    if (absl::Status s = (w.*write)(row); !s.ok()) return s;
  }
  return absl::OkStatus();
}

TEST(StreamscopeTraceImporter, ReadsEveryKindOfRecord) {
  auto models = LoadTraceFile(GoodTrace());
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_EQ(models->size(), 1u);
  const TraceModel& m = (*models)[0];
  EXPECT_EQ(m.format, "streamscope");
  EXPECT_EQ(m.pid, 4242);
  EXPECT_EQ(m.metadata.at("capture_end"), "normal_exit");
  ASSERT_EQ(m.ops.size(), 3u);
  EXPECT_EQ(m.ops.category[0], OpCategory::kKernel);
  EXPECT_EQ(m.strings.Get(m.ops.name[0]), "saxpy");
  EXPECT_EQ(m.ops.category[1], OpCategory::kDtoH);
  EXPECT_EQ(m.ops.dst_kind[1], MemoryKind::kPageable);
  EXPECT_EQ(m.ops.bytes[1], 4096);
  EXPECT_EQ(m.ops.category[2], OpCategory::kMemset);
  EXPECT_EQ(m.streams[m.ops.stream[0]].kind, StreamKind::kLegacyDefault);
  EXPECT_EQ(m.streams[m.ops.stream[1]].id, 8);
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].async_engine_count, 2);
  EXPECT_EQ(m.devices[0].concurrent_kernels, 1);
  ASSERT_EQ(m.api.size(), 1u);
  EXPECT_EQ(m.strings.Get(m.api.name[0]), "cudaLaunchKernel");
  EXPECT_EQ(m.api.tid[0], 11);
  ASSERT_EQ(m.nvtx_ranges.size(), 1u);
  EXPECT_EQ(m.strings.Get(m.nvtx_ranges[0].name), "measured");
  ASSERT_EQ(m.nvtx_marks.size(), 1u);
  EXPECT_EQ(m.strings.Get(m.nvtx_marks[0].domain), "streamscope");
  EXPECT_TRUE(m.import_stats.empty());
}

TEST(StreamscopeTraceImporter, BadRecordsAreCountedNotFatal) {
  std::string path = GoodTrace([](TraceTableWriter& w) {
    absl::Status s = WriteAll(w, &TraceTableWriter::Kernel,
                              {KernelOf(10, 500, 400, 0, 7), KernelOf(11, 0, 400, 0, 7), KernelOf(12, 600, 700, 0, 99),
                               KernelOf(13, 800, 900, 5, 7)});
    if (!s.ok()) return s;
    return w.ApiCall({.id = 10, .domain = 1, .cbid = 0, .name_id = kSaxpy, .tid = 1, .start_ns = 90, .end_ns = 80});
  });
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  EXPECT_EQ(m.import_stats.at("op_end_before_start"), 1);
  EXPECT_EQ(m.import_stats.at("op_zero_timestamp"), 1);
  EXPECT_EQ(m.import_stats.at("op_unknown_stream"), 1);
  EXPECT_EQ(m.import_stats.at("op_unknown_device"), 1);
  EXPECT_EQ(m.import_stats.at("api_end_before_start"), 1);
  // Unplaceable records are left out; inconsistent ones are kept.
  EXPECT_EQ(m.ops.size(), 5u);
  EXPECT_EQ(m.api.size(), 1u);
  EXPECT_NE(m.FindDevice(5), nullptr);
}

// Two imports of one trace made the same model: ops and API calls column
// for column, kernels' blocks, rows left out.
void ExpectSameImport(const TraceModel& a, const TraceModel& b) {
  ASSERT_EQ(a.ops.size(), b.ops.size());
  ASSERT_EQ(a.api.size(), b.api.size());
  int column = 0;
  ForEachOpColumn(
      [&](const auto& x, const auto& y) {
        EXPECT_TRUE(x == y) << "op column " << column;
        ++column;
      },
      a.ops, b.ops);
  column = 0;
  ForEachApiColumn(
      [&](const auto& x, const auto& y) {
        EXPECT_TRUE(x == y) << "API column " << column;
        ++column;
      },
      a.api, b.api);
  EXPECT_EQ(a.kernel_blocks, b.kernel_blocks);
  EXPECT_EQ(a.import_stats, b.import_stats);
}

// The kernels and the copies and memsets are read on two threads: the model
// is the one read on one thread, column for column, with each reader's
// left-out rows counted once. A copy of 1 TiB widens the byte counts after
// the kernels' zeros, and copies and kernels start at the same times.
TEST(StreamscopeTraceImporter, KernelsAndCopiesReadSideBySideMakeTheModelOfOneReader) {
  std::string path = GoodTrace([](TraceTableWriter& w) {
    std::vector<KernelRow> kernels;
    std::vector<MemcpyRow> copies;
    for (int64_t i = 0; i < 50; ++i) {
      kernels.push_back(KernelOf(100 + i, 1000 + 10 * i, 1005 + 10 * i, 0, i % 2 == 0 ? 7 : 8));
      MemcpyRow c;
      c.id = 200 + i;
      c.start_ns = 1000 + 10 * i;
      c.end_ns = 1003 + 10 * i;
      c.stream_id = 8;
      c.bytes = i == 30 ? int64_t{1} << 40 : 64;
      c.copy_kind = schema::copy_kind::kHtoD;
      copies.push_back(c);
    }
    MemcpyRow tie;  // kernel 100's times: after it, as read after it
    tie.id = 260;
    tie.start_ns = 1000;
    tie.end_ns = 1005;
    tie.stream_id = 8;
    tie.copy_kind = schema::copy_kind::kDtoH;
    copies.push_back(tie);
    kernels.push_back(KernelOf(150, 0, 10, 0, 7));  // left out: a zero time
    MemcpyRow zero;
    zero.id = 250;
    zero.end_ns = 10;
    copies.push_back(zero);  // left out too
    if (absl::Status s = WriteAll(w, &TraceTableWriter::Kernel, kernels); !s.ok()) return s;
    return WriteAll(w, &TraceTableWriter::Memcpy, copies);
  });
  auto beside = testing::WithAnalyzerThreads(true, [&] { return LoadTraceFile(path); });
  auto alone = testing::WithAnalyzerThreads(false, [&] { return LoadTraceFile(path); });
  ASSERT_TRUE(beside.ok()) << beside.status();
  ASSERT_TRUE(alone.ok()) << alone.status();
  const TraceModel &a = (*beside)[0], &b = (*alone)[0];
  ASSERT_EQ(a.ops.size(), 104u);
  EXPECT_TRUE(a.ops.bytes.wide());
  std::vector<int64_t> tied;  // source ids of the ops of [1000, 1005), in model order
  int64_t widest = 0;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    if (a.ops.start_ns[i] == 1000 && a.ops.end_ns[i] == 1005) tied.push_back(a.ops.source_id[i]);
    widest = std::max(widest, a.ops.bytes[i]);
  }
  EXPECT_EQ(tied, (std::vector<int64_t>{100, 260}));
  EXPECT_EQ(widest, int64_t{1} << 40);
  ExpectSameImport(a, b);
  EXPECT_EQ(a.import_stats.at("op_zero_timestamp"), 2);
}

// The largest tables are read straight from the file's pages: on every
// bundled SQLite trace (streamscope's recordings and the converted
// exports) they are, and the model is the one SQLite's statements make,
// column for column.
TEST(StreamscopeTraceImporter, TablesReadFromTheirPagesMakeTheModelSqliteMakes) {
  int streamscope_traces = 0;
  for (const std::string& path : testing::BundledSqliteTraces()) {
    SCOPED_TRACE(path);
    auto db = SqliteDb::OpenReadOnly(path);
    ASSERT_TRUE(db.ok()) << db.status();
    if (!(*db)->HasTable("metadata")) continue;  // an Nsight Systems export: read by another importer
    ++streamscope_traces;
    setenv("STREAMSCOPE_DIRECT_READ", "0", 1);
    auto through_sqlite = LoadTraceFile(path);
    unsetenv("STREAMSCOPE_DIRECT_READ");
    const int64_t refused = TableReader::RefusedSoFar();
    auto direct = LoadTraceFile(path);
    EXPECT_EQ(TableReader::RefusedSoFar(), refused);  // every table read from its pages
    ASSERT_TRUE(through_sqlite.ok()) << through_sqlite.status();
    ASSERT_TRUE(direct.ok()) << direct.status();
    ASSERT_EQ(direct->size(), through_sqlite->size());
    for (size_t m = 0; m < direct->size(); ++m) ExpectSameImport((*direct)[m], (*through_sqlite)[m]);
  }
  EXPECT_GE(streamscope_traces, 20);
}

TEST(StreamscopeTraceImporter, ATraceLeftByAKilledProcessStillLoads) {
  std::string path = GoodTrace();
  ASSERT_TRUE(ExecSql(path,
                      "UPDATE metadata SET value = 'running' WHERE key = 'capture_end';"
                      "DROP INDEX api_call_correlation; DROP INDEX kernel_correlation;"
                      "DROP INDEX memcpy_correlation; DROP INDEX memset_correlation;")
                  .ok());
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  EXPECT_EQ((*models)[0].metadata.at("capture_end"), "running");
  EXPECT_EQ((*models)[0].ops.size(), 3u);
}

TEST(StreamscopeTraceImporter, AnOlderSchemaVersionIsRejectedNamingBothVersions) {
  std::string path = GoodTrace();
  ASSERT_TRUE(
      ExecSql(path, "PRAGMA user_version = 0; UPDATE metadata SET value = '0' WHERE key = 'schema_version';").ok());
  auto models = LoadTraceFile(path);
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.status().code(), absl::StatusCode::kFailedPrecondition);
  std::string msg(models.status().message());
  EXPECT_NE(msg.find("version 0 is older"), std::string::npos) << msg;
  EXPECT_NE(msg.find(absl::StrCat("(", schema::OldestReadableVersion(), " to ", schema::Version(), ")")),
            std::string::npos)
      << msg;
}

TEST(StreamscopeTraceImporter, ANewerSchemaVersionIsRejectedNamingBothVersions) {
  std::string path = GoodTrace();
  ASSERT_TRUE(
      ExecSql(path, "PRAGMA user_version = 99; UPDATE metadata SET value = '99' WHERE key = 'schema_version';").ok());
  auto models = LoadTraceFile(path);
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(models.status().message().find("version 99 is newer"), std::string::npos) << models.status();
}

TEST(StreamscopeTraceImporter, MissingTablesAreNamed) {
  std::string path = GoodTrace();
  ASSERT_TRUE(
      ExecSql(
          path,
          "DROP VIEW gpu_op_with_api; DROP VIEW gpu_op; DROP VIEW kernel_named; DROP TABLE kernel; DROP TABLE memset;")
          .ok());
  auto models = LoadTraceFile(path);
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(models.status().message().find("missing tables kernel, memset"), std::string::npos) << models.status();
}

TEST(StreamscopeTraceImporter, ATruncatedTraceIsDataLoss) {
  std::string path = GoodTrace();
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  ASSERT_EQ(truncate(path.c_str(), st.st_size / 2), 0);
  auto models = LoadTraceFile(path);
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.status().code(), absl::StatusCode::kDataLoss) << models.status();
}

TEST(StreamscopeTraceImporter, FilesThatAreNotTracesGetTheirOwnErrors) {
  std::string empty = TempTracePath("empty");
  std::ofstream(empty).close();
  EXPECT_EQ(LoadTraceFile(empty).status().code(), absl::StatusCode::kDataLoss);
  std::string text = TempTracePath("text");
  std::ofstream(text) << "this is not a database, just some text that is long enough\n";
  EXPECT_EQ(LoadTraceFile(text).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(LoadTraceFile(TempTracePath("missing")).status().code(), absl::StatusCode::kNotFound);
  std::string other = TempTracePath("other");
  ASSERT_TRUE(ExecSql(other, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);").ok());
  EXPECT_EQ(LoadTraceFile(other).status().code(), absl::StatusCode::kInvalidArgument);
}

// Random damage to a valid trace must end in an error or a model, never a
// crash (a cheap stand-in for the fuzzer, run under the sanitizers too).
TEST(StreamscopeTraceImporter, CorruptedBytesNeverCrashTheLoader) {
  std::string good = GoodTrace();
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint32_t seed = 12345;
  for (int round = 0; round < 60; ++round) {
    std::string damaged = bytes;
    for (int k = 0; k < 16; ++k) {
      seed = seed * 1103515245u + 12345u;
      size_t at = 100 + (seed >> 8) % (damaged.size() - 100);
      damaged[at] = static_cast<char>(seed >> 24);
    }
    std::string path = TempTracePath("damaged");
    std::ofstream(path, std::ios::binary) << damaged;
    auto models = LoadTraceFile(path);
    if (!models.ok()) {
      EXPECT_NE(models.status().code(), absl::StatusCode::kOk);
      EXPECT_FALSE(models.status().message().empty());
    }
  }
}

}  // namespace
}  // namespace streamscope

namespace streamscope {
namespace {

// Optional columns: NULL means "not recorded", 0 is a value (stream 0,
// correlation id 0, graph 0). The importer reads the value first and asks
// for the type only when it reads 0, so both must come through apart.
TEST(StreamscopeTraceImporter, NullAndZeroInOptionalColumnsStayApart) {
  std::string path = GoodTrace([](TraceTableWriter& w) {
    absl::Status s = w.Stream({.id = 0, .context_id = 1, .device_id = 0, .kind = 0, .priority = 0});
    KernelRow zero = KernelOf(900, 500, 600, 0, 0);
    zero.correlation_id = 0;
    zero.graph_id = 0;
    KernelRow null = KernelOf(901, 700, 800, 0, std::nullopt);
    return s.ok() ? WriteAll(w, &TraceTableWriter::Kernel, {zero, null}) : s;
  });
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  int zero = -1, null = -1;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.source_id[i] == 900) zero = static_cast<int>(i);
    if (m.ops.source_id[i] == 901) null = static_cast<int>(i);
  }
  ASSERT_GE(zero, 0);
  ASSERT_GE(null, 0);
  ASSERT_GE(m.ops.stream[zero], 0);
  EXPECT_EQ(m.streams[m.ops.stream[zero]].id, 0);
  EXPECT_EQ(m.ops.correlation_id[zero], 0);
  EXPECT_EQ(m.ops.graph_id[zero], 0);
  EXPECT_EQ(m.ops.correlation_id[null], -1);
  EXPECT_EQ(m.ops.graph_id[null], -1);
  EXPECT_EQ(m.import_stats.at("op_without_stream"), 1);
}

}  // namespace
}  // namespace streamscope

namespace streamscope {
namespace {

// Times no clock produces (here a kernel from -9.2e18 ns to 7 s, found by
// the fuzzer: its duration overflowed int64 in every analysis) are left
// out and counted, like zero timestamps; the report still runs.
TEST(StreamscopeTraceImporter, TimesOutsideAnyClockAreCountedAndLeftOut) {
  std::string path = GoodTrace([](TraceTableWriter& w) {
    absl::Status s = w.Kernel(KernelOf(910, -9223372036081566979, 7073534567, 0, 7));
    if (!s.ok()) return s;
    return w.ApiCall({.id = 911,
                      .domain = 1,
                      .cbid = 211,
                      .name_id = kLaunch,
                      .tid = 11,
                      .start_ns = 1,
                      .end_ns = 9223372036854775807,
                      .return_value = 0});
  });
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  EXPECT_EQ(m.import_stats.at("op_time_out_of_range"), 1);
  EXPECT_EQ(m.import_stats.at("api_time_out_of_range"), 1);
  EXPECT_EQ(m.ops.size(), 3u);
  EXPECT_LE(m.max_op_duration_ns, 1000);
}

}  // namespace
}  // namespace streamscope
