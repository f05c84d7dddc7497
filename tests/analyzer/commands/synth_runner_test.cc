// `streamscope synth`: a JSON spec of rows becomes a trace the importer
// reads back row for row; a bad spec is refused naming the row, and writes
// nothing.
#include "analyzer/commands/synth_runner.h"

#include <sys/stat.h>

#include <fstream>
#include <string>

#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::TempTracePath;

const char kTwoOps[] = R"json({
  "metadata": {"pid": "77", "env:RANK": "3"},
  "string": [{"id": 1, "value": "gemm"}, {"id": 2, "value": "step"}],
  "device": [{"id": 0, "name": "Synthetic GPU", "async_engine_count": 2}],
  "context": [{"id": 1, "device_id": 0}],
  "stream": [{"id": 7, "context_id": 1, "device_id": 0, "kind": 4}],
  "kernel": [{"id": 5, "start_ns": 100, "end_ns": 300, "device_id": 0, "stream_id": 7, "name_id": 1,
              "graph_id": null}],
  "memcpy": [{"start_ns": 150, "end_ns": 250, "device_id": 0, "stream_id": 7, "bytes": 4096, "copy_kind": 1,
              "src_kind": 2, "dst_kind": 3, "is_async": 1}],
  "nvtx_range": [{"tid": 1, "name_id": 2, "start_ns": 50, "end_ns": 400, "is_push_pop": 1}],
  "collector_stat": [{"key": "records_dropped", "value": 0}]
})json";

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

TEST(Synth, TheSpecsRowsAreTheTracesRows) {
  std::string path = TempTracePath("synth");
  ASSERT_TRUE(WriteSynthTrace(kTwoOps, path, false).ok());
  auto models = LoadTraceFile(path);
  ASSERT_TRUE(models.ok()) << models.status();
  const TraceModel& m = (*models)[0];
  EXPECT_EQ(m.pid, 77);
  EXPECT_EQ(m.metadata.at("env:RANK"), "3");
  ASSERT_EQ(m.ops.size(), 2u);
  EXPECT_EQ(m.ops.category[0], OpCategory::kKernel);
  EXPECT_EQ(m.ops.source_id[0], 5);
  EXPECT_EQ(m.strings.Get(m.ops.name[0]), "gemm");
  EXPECT_EQ(m.ops.graph_id[0], -1);  // null is NULL
  EXPECT_EQ(m.ops.category[1], OpCategory::kHtoD);
  EXPECT_EQ(m.ops.bytes[1], 4096);
  ASSERT_EQ(m.nvtx_ranges.size(), 1u);
  EXPECT_EQ(m.strings.Get(m.nvtx_ranges[0].name), "step");
  EXPECT_TRUE(m.import_stats.empty());
}

TEST(Synth, ABadSpecNamesTheRowAndWritesNothing) {
  struct Case {
    const char* spec;
    const char* message;
  };
  for (const Case& c : {
           Case{"[1]", "spec: is not a JSON object"},
           Case{"{\"kernels\": []}", "spec: unknown table 'kernels'"},
           Case{"{\"metadata\": {\"pid\": 4}}", "spec: metadata 'pid' is not a string"},
           Case{"{\"stream\": [{\"id\": 1}]}", "spec: stream[0] has no 'kind'"},
           Case{"{\"stream\": [{\"id\": 1, \"kind\": 4, \"colour\": 1}]}",
                "spec: stream[0] has an unknown column 'colour'"},
           Case{"{\"thread\": [{\"tid\": \"main\"}]}", "spec: thread[0] 'tid' is not an integer"},
           Case{"{\"string\": [{\"id\": 1, \"value\": \"a\"}, {\"id\": 1, \"value\": \"b\"}]}", "spec: string[1]: "},
           Case{"{\"kernel\": [", "spec: is not valid JSON"},
       }) {
    std::string path = TempTracePath("synth_bad");
    absl::Status s = WriteSynthTrace(c.spec, path, false);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.spec << ": " << s;
    EXPECT_EQ(std::string(s.message()).rfind(c.message, 0), 0u) << s;
    EXPECT_FALSE(Exists(path)) << c.spec;
  }
}

TEST(Synth, AnExistingFileIsReplacedOnlyWithForce) {
  std::string path = TempTracePath("synth_exists");
  std::ofstream(path) << "mine\n";
  absl::Status s = WriteSynthTrace(kTwoOps, path, false);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(s.message().find("pass --force"), absl::string_view::npos);
  EXPECT_TRUE(LoadTraceFile(path).status().code() != absl::StatusCode::kOk);
  ASSERT_TRUE(WriteSynthTrace(kTwoOps, path, true).ok());
  EXPECT_TRUE(LoadTraceFile(path).ok());
}

TEST(Synth, RunSynthCallsABadSpecAUsageErrorNamingTheFile) {
  std::string spec = TempTracePath("spec") + ".json";
  std::ofstream(spec) << "{\"stream\": [{\"id\": 1}]}";
  SynthOptions options{.spec_path = spec, .output_path = TempTracePath("synth_usage")};
  absl::Status s = RunSynth(options);
  EXPECT_EQ(s.message(), spec + ": stream[0] has no 'kind'");
  EXPECT_EQ(RunSynth({.spec_path = spec + ".missing", .output_path = options.output_path}).code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace streamscope
