// The torch.profiler importer on a hand-written Kineto trace
// (tests/data/torch/synthetic_two_streams.json) whose every figure is known:
// what each event becomes, exact times, the overlap and gaps the analyses
// find, plain and gzip, and one clear error per kind of bad file.
#include "analyzer/importers/torch/torch_trace_importer.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "analyzer/analysis/overlap_gaps/idle_gaps.h"
#include "analyzer/analysis/overlap_gaps/overlap.h"
#include "analyzer/convert/converted_trace_writer.h"
#include "analyzer/importers/kernel_shapes.h"
#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "tests/analyzer/importers/torch/torch_test_util.h"

namespace streamscope {
namespace {

using testing::kSyntheticTorchTrace;
using testing::ReadFile;
using testing::TempPath;
using testing::WriteGzip;
using testing::WriteText;

constexpr int64_t kBase = 1700000000000000000;

TraceModel LoadOne(const std::string& path) {
  auto models = LoadTraceFile(path);
  EXPECT_TRUE(models.ok()) << models.status();
  if (!models.ok() || models->size() != 1) return TraceModel();
  return std::move(models->front());
}

int32_t KernelNamed(const TraceModel& m, std::string_view name) {
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.category[i] == OpCategory::kKernel && m.strings.Get(m.ops.name[i]) == name)
      return static_cast<int32_t>(i);
  }
  return -1;
}

int32_t FirstOf(const TraceModel& m, OpCategory c) {
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.category[i] == c) return static_cast<int32_t>(i);
  }
  return -1;
}

TEST(TorchTraceImporter, KernelsCopiesMemsetsAndCallsBecomeTheModel) {
  TraceModel m = LoadOne(kSyntheticTorchTrace);
  EXPECT_EQ(m.format, "torch-profiler");
  EXPECT_EQ(m.pid, 4242);
  ASSERT_EQ(m.ops.size(), 6u);
  int kernels = 0;
  for (OpCategory c : m.ops.category) kernels += c == OpCategory::kKernel;
  EXPECT_EQ(kernels, 4);
  EXPECT_EQ(m.api.size(), 6u);
  EXPECT_EQ(m.nvtx_ranges.size(), 5u);  // step, linear, addmm, copy_, zero_ (python_function left out)
  EXPECT_TRUE(m.import_stats.empty()) << absl::StrCat(m.import_stats.begin()->first);

  const int32_t gemm = KernelNamed(m, "gemm_a");
  ASSERT_GE(gemm, 0);
  EXPECT_EQ(m.ops.start_ns[gemm], kBase + 10'000);
  EXPECT_EQ(m.ops.end_ns[gemm], kBase + 30'000);
  EXPECT_EQ(m.ops.device_id[gemm], 0);
  EXPECT_EQ(m.streams[m.ops.stream[gemm]].id, 7);
  EXPECT_EQ(m.ops.correlation_id[gemm], 10);
  ASSERT_EQ(m.kernel_shapes.size(), m.ops.size());
  EXPECT_EQ(m.kernel_shapes[gemm].grid[0], 66);
  EXPECT_EQ(m.kernel_shapes[gemm].block[0], 128);
  EXPECT_EQ(m.kernel_shapes[gemm].registers, 128);
  EXPECT_EQ(m.kernel_shapes[gemm].shared_bytes, 16384);
  const int32_t launch = m.ApiForOp(gemm);
  ASSERT_GE(launch, 0);
  EXPECT_EQ(m.strings.Get(m.api.name[launch]), "cudaLaunchKernel");
  EXPECT_EQ(m.api.tid[launch], 4242);
  EXPECT_EQ(m.api.cbid[launch], 211);
  EXPECT_EQ(m.api.start_ns[launch], kBase + 3'000);

  const int32_t relu = KernelNamed(m, "relu");
  ASSERT_GE(relu, 0);
  EXPECT_EQ(m.ops.end_ns[relu] - m.ops.start_ns[relu], 5'001);  // "dur": 5.001, exactly

  const int32_t copy = FirstOf(m, OpCategory::kHtoD);
  ASSERT_GE(copy, 0);
  EXPECT_EQ(m.ops.start_ns[copy], kBase + 20'500);
  EXPECT_EQ(m.ops.end_ns[copy], kBase + 40'250);
  EXPECT_EQ(m.ops.bytes[copy], 1 << 20);
  EXPECT_EQ(m.ops.src_kind[copy], MemoryKind::kPinned);
  EXPECT_EQ(m.ops.dst_kind[copy], MemoryKind::kDevice);
  EXPECT_EQ(m.ops.is_async[copy], 1);  // from cudaMemcpyAsync
  EXPECT_EQ(m.streams[m.ops.stream[copy]].id, 20);

  const int32_t memset = FirstOf(m, OpCategory::kMemset);
  ASSERT_GE(memset, 0);
  EXPECT_EQ(m.ops.bytes[memset], 4096);
  EXPECT_EQ(m.ops.dst_kind[memset], MemoryKind::kDevice);
  EXPECT_EQ(m.ops.is_async[memset], 1);
}

TEST(TorchTraceImporter, AFlowEventGivesTheCorrelationAnEventLacks) {
  TraceModel m = LoadOne(kSyntheticTorchTrace);
  const int32_t k = KernelNamed(m, "flow_only");
  ASSERT_GE(k, 0);
  EXPECT_EQ(m.ops.correlation_id[k], 15);
  const int32_t call = m.ApiForOp(k);
  ASSERT_GE(call, 0);
  EXPECT_EQ(m.api.start_ns[call], kBase + 70'000);
}

TEST(TorchTraceImporter, DevicesThreadsAndRangesKeepTheirNames) {
  TraceModel m = LoadOne(kSyntheticTorchTrace);
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(m.devices[0].sm_count, 132);
  EXPECT_EQ(m.devices[0].compute_major, 9);
  EXPECT_EQ(m.devices[0].global_memory_bytes, 150121988096);
  EXPECT_EQ(m.devices[0].async_engine_count, -1);  // not in torch traces
  EXPECT_EQ(m.thread_names[4242], "thread 4242 (python)");
  EXPECT_EQ(m.metadata["process_name"], "python");
  EXPECT_EQ(m.metadata["base_time_ns"], absl::StrCat(kBase));
  EXPECT_EQ(m.metadata["torch.cuda_runtime_version"], "12080");
  EXPECT_EQ(m.metadata["torch.rank"], "0");
  EXPECT_EQ(m.metadata["torch.world_size"], "1");
  EXPECT_EQ(m.metadata["torch.backend"], "nccl");
  EXPECT_EQ(m.metadata.count("torch.pg_count"), 0u);  // only the rank's identity
  for (const NvtxRange& r : m.nvtx_ranges) {
    std::string_view name = m.strings.Get(r.name), domain = m.strings.Get(r.domain);
    EXPECT_EQ(domain, name == "step" ? kTorchAnnotationDomain : kTorchCpuOpDomain) << name;
    EXPECT_EQ(r.depth, name == "aten::addmm" ? 1 : 0) << name;
    EXPECT_EQ(r.tid, 4242);
    if (name == "aten::addmm") {
      EXPECT_EQ(r.start_ns, kBase + 2'000);
      EXPECT_EQ(r.end_ns, kBase + 8'200);
    }
  }
  bool gpu_annotation_note = false, python_note = false;
  for (const std::string& n : m.notes) {
    gpu_annotation_note |= n.find("gpu_user_annotation not imported") != std::string::npos;
    python_note |= n.find("python_function not imported") != std::string::npos;
  }
  EXPECT_TRUE(gpu_annotation_note);
  EXPECT_TRUE(python_note);
}

// Device 0: gemm_a [10, 30) us, H2D [20.5, 40.25), relu [50, 55.001),
// memset [56, 57), flow_only [80, 82), tail [130, 131); the whole-trace
// window starts at the first call (3 us).
TEST(TorchTraceImporter, OverlapAndGapsOfTheSyntheticTraceAreExact) {
  TraceModel m = LoadOne(kSyntheticTorchTrace);
  Window w = WholeTraceWindow(m);
  EXPECT_EQ(w.start_ns, kBase + 3'000);
  EXPECT_EQ(w.end_ns, kBase + 131'000);
  OverlapResult overlap = AnalyzeOverlap(m, w, OverlapOptions{});
  const PairOverlap* pair = overlap.Find(0, OverlapPairIndex(OpCategory::kKernel, OpCategory::kHtoD));
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->overlapped_ns, 9'500);
  EXPECT_EQ(pair->possible_ns, 19'750);
  ASSERT_EQ(overlap.devices.size(), 1u);
  EXPECT_EQ(overlap.devices[0].busy_ns, 39'251);
  EXPECT_EQ(overlap.devices[0].exposed_copy_ns, 10'250);
  IdleGapsOptions options;
  options.list_threshold_ns = 10'000;
  IdleGapsResult gaps = AnalyzeIdleGaps(m, w, options);
  ASSERT_EQ(gaps.devices.size(), 1u);
  EXPECT_EQ(gaps.devices[0].idle_ns, 88'749);
  EXPECT_EQ(gaps.devices[0].gap_count, 5);
  EXPECT_EQ(gaps.devices[0].listed_count, 2);  // 23 us and 48 us
  EXPECT_EQ(gaps.devices[0].listed_ns, 71'000);
}

TEST(TorchTraceImporter, AGzipTraceReadsTheSameAsThePlainOne) {
  std::string gz = TempPath("trace.json.gz");
  ASSERT_TRUE(WriteGzip(gz, ReadFile(kSyntheticTorchTrace)));
  TraceModel plain = LoadOne(kSyntheticTorchTrace);
  TraceModel packed = LoadOne(gz);
  EXPECT_EQ(packed.ops.start_ns, plain.ops.start_ns);
  EXPECT_EQ(packed.ops.end_ns, plain.ops.end_ns);
  EXPECT_EQ(packed.api.start_ns, plain.api.start_ns);
  EXPECT_EQ(packed.nvtx_ranges.size(), plain.nvtx_ranges.size());
  EXPECT_EQ(packed.metadata["compressed"], "gzip");
}

TEST(TorchTraceImporter, TheFormatIsRecognizedByContentWhateverTheName) {
  std::string odd = TempPath("trace.sqlite");
  WriteText(odd, ReadFile(kSyntheticTorchTrace));
  EXPECT_EQ(LoadOne(odd).ops.size(), 6u);
}

// The timeline exports ask every model's format for kernel shapes: a
// torch.profiler trace's import already read them, and asking again keeps
// them and is no error (it had been: the file was opened as SQLite).
TEST(TorchTraceImporter, AskingATorchTraceForKernelShapesKeepsTheImportedOnes) {
  TraceModel m = LoadOne(kSyntheticTorchTrace);
  ASSERT_EQ(m.kernel_shapes.size(), m.ops.size());
  const int32_t kernel = FirstOf(m, OpCategory::kKernel);
  ASSERT_GE(kernel, 0);
  const KernelShape before = m.kernel_shapes[kernel];
  absl::Status status = AddKernelShapes(&m);
  EXPECT_TRUE(status.ok()) << status;
  ASSERT_EQ(m.kernel_shapes.size(), m.ops.size());
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(m.kernel_shapes[kernel].grid[d], before.grid[d]);
    EXPECT_EQ(m.kernel_shapes[kernel].block[d], before.block[d]);
  }
  EXPECT_EQ(m.kernel_shapes[kernel].registers, before.registers);
}

TEST(TorchTraceImporter, AByteOrderMarkAndLeadingWhitespaceAreAccepted) {
  std::string path = TempPath("bom.json");
  WriteText(path, "\xEF\xBB\xBF \n\t" + ReadFile(kSyntheticTorchTrace));
  EXPECT_TRUE(LooksLikeTorchTrace(path));
  EXPECT_EQ(LoadOne(path).ops.size(), 6u);
}

TEST(TorchTraceImporter, ABareEventArrayWithRelativeTimesIsRead) {
  std::string path = TempPath("bare.json");
  WriteText(path, R"([
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
     "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 2.5, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 3}}])");
  TraceModel m = LoadOne(path);
  ASSERT_EQ(m.ops.size(), 1u);
  EXPECT_EQ(m.ops.start_ns[0], 2'500);
  EXPECT_EQ(m.ApiForOp(0), 0);
}

struct BadFile {
  const char* text;
  absl::StatusCode code;
  const char* message;
};

TEST(TorchTraceImporter, BadFilesGetOneClearErrorEach) {
  const BadFile cases[] = {
      {R"({"traceEvents": [ {"ph": "X", "cat": "kernel")", absl::StatusCode::kDataLoss, "truncated or damaged"},
      {R"({"traceEvents": [] } trailing)", absl::StatusCode::kDataLoss, "malformed JSON"},
      {R"({"schemaVersion": 1})", absl::StatusCode::kInvalidArgument, "no traceEvents"},
      {R"([])", absl::StatusCode::kInvalidArgument, "none is a kernel"},
      {R"({"traceEvents": [{"ph": "X", "cat": "Trace", "ts": 1, "dur": 2}]})", absl::StatusCode::kInvalidArgument,
       "none is a kernel"},
      {R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1,
          "dur": 2}]})",
       absl::StatusCode::kInvalidArgument, "without CUDA activity"},
      {R"({"traceEvents": [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
          "ts": 1, "dur": 2}], "otherData": {"generator": "streamscope export"}})",
       absl::StatusCode::kInvalidArgument, "export --perfetto"},
  };
  for (const BadFile& c : cases) {
    std::string path = TempPath("bad.json");
    WriteText(path, c.text);
    auto models = LoadTraceFile(path);
    ASSERT_FALSE(models.ok()) << c.text;
    EXPECT_EQ(models.status().code(), c.code) << models.status();
    EXPECT_NE(models.status().message().find(c.message), std::string::npos) << models.status();
    EXPECT_NE(models.status().message().find(path), std::string::npos) << models.status();
  }
}

TEST(TorchTraceImporter, ATruncatedGzipIsDataLoss) {
  std::string gz = TempPath("cut.json.gz");
  ASSERT_TRUE(WriteGzip(gz, ReadFile(kSyntheticTorchTrace)));
  std::string bytes = ReadFile(gz);
  WriteText(gz, bytes.substr(0, bytes.size() / 2));
  auto models = LoadTraceFile(gz);
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.status().code(), absl::StatusCode::kDataLoss) << models.status();
}

TEST(TorchTraceImporter, BadEventsAreCountedAndLeftOutNotFatal) {
  std::string path = TempPath("some_bad.json");
  WriteText(path, R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "good", "pid": 0, "tid": 7, "ts": 10, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "no_dur", "pid": 0, "tid": 7, "ts": 10,
     "args": {"device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "text_ts", "pid": 0, "tid": 7, "ts": "10", "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "negative", "pid": 0, "tid": 7, "ts": 10, "dur": -1},
    {"ph": "X", "cat": "kernel", "name": "far", "pid": 0, "tid": 7, "ts": 1e300, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "huge", "pid": 0, "tid": 7, "ts": 4e15, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "bad_args", "pid": 0, "tid": 7, "ts": 12, "dur": 1, "args": 5},
    42,
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5, "dur": 1,
     "args": {"correlation": "one"}}
  ]})");
  TraceModel m = LoadOne(path);
  EXPECT_EQ(m.ops.size(), 2u);  // good, bad_args (on device 0 from its pid)
  EXPECT_EQ(m.api.size(), 1u);
  EXPECT_EQ(m.import_stats["torch_event_without_time_left_out"], 3);       // no_dur, text_ts, far (1e300)
  EXPECT_EQ(m.import_stats["torch_event_time_out_of_range_left_out"], 1);  // huge: 4e18 ns
  EXPECT_EQ(m.import_stats["torch_event_end_before_start"], 1);
  EXPECT_EQ(m.import_stats["torch_event_not_an_object_left_out"], 1);
  EXPECT_GE(m.import_stats["torch_field_wrong_type"], 3);  // "10", args 5, "one"
}

TEST(TorchTraceImporter, AConvertedTraceKeepsOpsShapesAndRangeDomains) {
  TraceModel m = LoadOne(kSyntheticTorchTrace);
  std::string out = TempPath("converted.sqlite");
  TraceWriteOptions options;
  options.trace_format = "converted-torch-profiler";
  ASSERT_TRUE(WriteStreamscopeTrace(m, out, options).ok());
  TraceModel back = LoadOne(out);
  EXPECT_EQ(back.ops.start_ns, m.ops.start_ns);
  EXPECT_EQ(back.ops.correlation_id, m.ops.correlation_id);
  ASSERT_EQ(back.nvtx_ranges.size(), m.nvtx_ranges.size());
  for (size_t i = 0; i < m.nvtx_ranges.size(); ++i) {
    EXPECT_EQ(back.strings.Get(back.nvtx_ranges[i].domain), m.strings.Get(m.nvtx_ranges[i].domain));
  }
  EXPECT_EQ(back.metadata["trace_format"], "converted-torch-profiler");
}

TEST(TorchTraceImporter, TheCpuOpDomainIsTheOneOpAttributionLooksFor) {
  // analyzer/analysis/causes/op_attribution.cc keeps its own copy of the name (an
  // analysis does not include importers).
  EXPECT_EQ(kTorchCpuOpDomain, "torch.cpu_op");
}

}  // namespace
}  // namespace streamscope
