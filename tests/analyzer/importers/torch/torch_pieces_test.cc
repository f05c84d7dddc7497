// A plain torch.profiler trace parsed in pieces on several threads
// (ImportTorchTrace's TorchPieceOptions) must give the model one pass gives,
// field for field: names and streams numbered in file order, source ids,
// correlations from flows, named pids and tids, metadata and devices after
// the event list. Where a cut point is not between two events the import
// falls back to one pass; a malformed file gets the one-pass error.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyzer/importers/torch/torch_trace_importer.h"
#include "gtest/gtest.h"
#include "tests/analyzer/importers/torch/torch_test_util.h"

namespace streamscope {
namespace {

using testing::kSyntheticTorchTrace;
using testing::ReadFile;
using testing::TempPath;
using testing::WriteText;

// `parsed`: how many pieces were merged (1: it fell back to one pass).
TraceModel Import(const std::string& path, int pieces, int* parsed = nullptr) {
  TorchPieceOptions options;
  options.pieces = pieces;
  options.min_piece_bytes = 1;  // pieces of a small file
  options.pieces_parsed = parsed;
  auto model = ImportTorchTrace(path, options);
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *std::move(model) : TraceModel();
}

void ExpectSameModel(const TraceModel& a, const TraceModel& b) {
  EXPECT_EQ(a.pid, b.pid);
  EXPECT_EQ(a.metadata, b.metadata);
  EXPECT_EQ(a.import_stats, b.import_stats);
  EXPECT_EQ(a.notes, b.notes);
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (size_t i = 0; i < a.strings.size(); ++i) {
    EXPECT_EQ(a.strings.Get(static_cast<StringId>(i)), b.strings.Get(static_cast<StringId>(i))) << i;
  }
  ASSERT_EQ(a.streams.size(), b.streams.size());
  for (size_t i = 0; i < a.streams.size(); ++i) {
    EXPECT_EQ(a.streams[i].id, b.streams[i].id);
    EXPECT_EQ(a.streams[i].device_id, b.streams[i].device_id);
  }
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (size_t i = 0; i < a.devices.size(); ++i) {
    EXPECT_EQ(a.devices[i].id, b.devices[i].id);
    EXPECT_EQ(a.devices[i].name, b.devices[i].name);
    EXPECT_EQ(a.devices[i].sm_count, b.devices[i].sm_count);
  }
  EXPECT_EQ(a.thread_names, b.thread_names);
  int column = 0;  // which column differs, in ForEachOpColumn's order
  ForEachOpColumn(
      [&](const auto& x, const auto& y) {
        const int c = column++;
        EXPECT_EQ(x, y) << "op column " << c;
      },
      a.ops, b.ops);
  ASSERT_EQ(a.kernel_shapes.size(), b.kernel_shapes.size());
  for (size_t i = 0; i < a.kernel_shapes.size(); ++i) {
    EXPECT_EQ(a.kernel_shapes[i].grid[0], b.kernel_shapes[i].grid[0]);
    EXPECT_EQ(a.kernel_shapes[i].registers, b.kernel_shapes[i].registers);
  }
  column = 0;
  ForEachApiColumn(
      [&](const auto& x, const auto& y) {
        const int c = column++;
        EXPECT_EQ(x, y) << "API column " << c;
      },
      a.api, b.api);
  ASSERT_EQ(a.nvtx_ranges.size(), b.nvtx_ranges.size());
  for (size_t i = 0; i < a.nvtx_ranges.size(); ++i) {
    const NvtxRange &x = a.nvtx_ranges[i], &y = b.nvtx_ranges[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.domain, y.domain);
    EXPECT_EQ(x.tid, y.tid);
    EXPECT_EQ(x.start_ns, y.start_ns);
    EXPECT_EQ(x.end_ns, y.end_ns);
    EXPECT_EQ(x.depth, y.depth);
    EXPECT_EQ(x.source_id, y.source_id);
  }
  ASSERT_EQ(a.syncs.size(), b.syncs.size());
  for (size_t i = 0; i < a.syncs.size(); ++i) {
    EXPECT_EQ(a.syncs[i].stream, b.syncs[i].stream);
    EXPECT_EQ(a.syncs[i].start_ns, b.syncs[i].start_ns);
    EXPECT_EQ(a.syncs[i].source_id, b.syncs[i].source_id);
  }
}

// A Kineto-style trace (one event per block of lines, "  {" after "  },")
// with what a merge must renumber or carry: kernel names first seen in late
// pieces, a stream first used late, named pids and tids ("Spans", a thread
// named by string) in several pieces, flows that give correlations to calls
// and ops that lack them, thread names late, a cuda_sync, ignored events,
// and baseTimeNanoseconds, deviceProperties and otherData after the list.
std::string PiecesTrace(int steps) {
  std::string events;
  auto add = [&](const std::string& e) { absl::StrAppend(&events, events.empty() ? "" : ",\n", "  {\n", e, "\n  }"); };
  add(R"(    "ph": "M", "name": "process_name", "pid": 77, "tid": 0, "args": {"name": "python"})");
  int64_t corr = 1;
  for (int s = 0; s < steps; ++s) {
    const int64_t t = 1000 * s;
    add(absl::StrCat(R"(    "ph": "X", "cat": "user_annotation", "name": "step)", s % 3, R"(", "pid": 77, "tid": 5,)",
                     "\n    \"ts\": ", t, ".000, \"dur\": 900.000"));
    add(absl::StrCat(R"(    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 77, "tid": 5, "ts": )", t + 1,
                     ".500, \"dur\": 50.250"));
    add(absl::StrCat(R"(    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 77, "tid": 5,)",
                     "\n    \"ts\": ", t + 2,
                     ".000, \"dur\": 5.000,\n    \"args\": {\n      \"cbid\": 211, \"correlation\": ", corr,
                     "\n    }"));
    add(absl::StrCat(R"(    "ph": "X", "cat": "kernel", "name": "gemm_)", s % 7, R"(", "pid": 0, "tid": )",
                     s % 5 == 4 ? 9 : 7, ",\n    \"ts\": ", t + 10, ".000, \"dur\": ", 100 + s,
                     ".000,\n    \"args\": {\n      \"device\": 0, \"stream\": ", s % 5 == 4 ? 9 : 7,
                     ", \"correlation\": ", corr, ",\n      \"grid\": [", s + 1, ", 1, 1], \"block\": [128, 1, 1],",
                     " \"registers per thread\": 32\n    }"));
    ++corr;
    // A call and a copy without correlation args: their ac2g flow gives it.
    add(absl::StrCat(
        R"(    "ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 77, "tid": "loader thread",)",
        "\n    \"ts\": ", t + 20, ".000, \"dur\": 3.000"));
    add(absl::StrCat(R"(    "ph": "s", "id": )", 100000 + s, R"(, "pid": 77, "tid": "loader thread", "ts": )", t + 20,
                     R"(.000, "cat": "ac2g", "name": "ac2g")"));
    add(absl::StrCat(R"J(    "ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0,)J",
                     " \"tid\": 11,\n    \"ts\": ", t + 300,
                     ".000, \"dur\": 40.000,\n    \"args\": {\"device\": 0, \"stream\": 11, \"bytes\": 4096}"));
    add(absl::StrCat(R"(    "ph": "f", "id": )", 100000 + s, R"(, "pid": 0, "tid": 11, "ts": )", t + 300,
                     R"(.000, "cat": "ac2g", "name": "ac2g", "bp": "e")"));
    if (s % 4 == 1)
      add(absl::StrCat(
          R"(    "ph": "X", "cat": "Trace", "name": "span", "pid": "Spans", "tid": "PyTorch Profiler", "ts": )", t,
          ".0, \"dur\": 1.0"));
    if (s % 6 == 5) {
      add(absl::StrCat(R"(    "ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 9, "ts": )",
                       t + 500, R"(.0, "dur": 2.0, "args": {"device": 0, "stream": 9, "correlation": -1})"));
    }
    if (s == steps - 2) {
      add(R"(    "ph": "M", "name": "thread_name", "pid": 77, "tid": 5, "args": {"name": "main thread"})");
      add(R"(    "ph": "X", "cat": "kernel", "name": "late_kernel", "pid": 0, "tid": 13, "ts": 5.0, "dur": 1.0, "args": {"device": 0, "stream": 13})");
    }
  }
  return absl::StrCat("{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n", events,
                      "\n  ],\n  \"traceName\": \"x\",\n  \"baseTimeNanoseconds\": 1700000000000000000,\n"
                      "  \"deviceProperties\": [\n    {\"id\": 0, \"name\": \"NVIDIA H200\", \"numSms\": 132}\n  ],\n"
                      "  \"otherData\": {\"generator\": \"kineto\"}\n}\n");
}

TEST(TorchPieces, EveryCutGivesTheModelOfOnePass) {
  const std::string path = TempPath("pieces.json");
  WriteText(path, PiecesTrace(60));
  const TraceModel one = Import(path, 1);
  ASSERT_GT(one.ops.size(), 100u);
  ASSERT_GT(one.api.size(), 100u);
  EXPECT_EQ(one.metadata.at("base_time_ns"), "1700000000000000000");
  EXPECT_EQ(one.devices.at(0).name, "NVIDIA H200");
  EXPECT_EQ(one.thread_names.at(5), "main thread");
  for (int pieces : {2, 3, 5, 8, 16}) {
    SCOPED_TRACE(pieces);
    int parsed = 0;
    ExpectSameModel(Import(path, pieces, &parsed), one);
    EXPECT_EQ(parsed, pieces);  // every cut point was an event's start
  }
}

TEST(TorchPieces, TheBundledTracesReadTheSameInPieces) {
  for (const std::string& source : {std::string(kSyntheticTorchTrace)}) {
    const std::string path = TempPath("bundled.json");
    WriteText(path, ReadFile(source));
    const TraceModel one = Import(path, 1);
    for (int pieces : {2, 4}) {
      int parsed = 0;
      ExpectSameModel(Import(path, pieces, &parsed), one);
      EXPECT_EQ(parsed, pieces);
    }
  }
}

// A cut point that looks like an event's start but lies in an args array
// of objects: the piece before cannot end there, so one pass reads it all.
TEST(TorchPieces, ACutInsideAnEventFallsBackToOnePass) {
  std::string text = PiecesTrace(30);
  const std::string odd =
      "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::cat\", \"pid\": 77, \"tid\": 5, \"ts\": 1.0, "
      "\"dur\": 1.0,\n    \"args\": {\"inputs\": [\n";
  std::string list;
  for (int k = 0; k < 2000; ++k) absl::StrAppend(&list, k == 0 ? "" : ",\n", "      {\"shape\": ", k, "}");
  const size_t at = text.find("  {\n", text.size() / 2);
  ASSERT_NE(at, std::string::npos);
  text.insert(at, odd + list + "\n    ]}\n  },\n");
  const std::string path = TempPath("cut_inside.json");
  WriteText(path, text);
  const TraceModel one = Import(path, 1);
  int parsed = 0;
  ExpectSameModel(Import(path, 2, &parsed), one);
  EXPECT_EQ(parsed, 1);  // the middle lies in the list of objects
  for (int pieces : {3, 4, 8}) ExpectSameModel(Import(path, pieces), one);
}

TEST(TorchPieces, AMalformedPieceGetsTheOnePassError) {
  std::string text = PiecesTrace(40);
  text.replace(text.find("\"dur\": 120.000"), 14, "\"dur\": 12x.000");
  const std::string path = TempPath("malformed.json");
  WriteText(path, text);
  TorchPieceOptions one;
  one.pieces = 1;
  TorchPieceOptions many;
  many.pieces = 4;
  many.min_piece_bytes = 1;
  auto a = ImportTorchTrace(path, one), b = ImportTorchTrace(path, many);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status(), b.status());
  EXPECT_NE(std::string(b.status().message()).find("not a complete JSON trace"), std::string::npos) << b.status();
}

// Damaged files (cut short anywhere, one byte changed anywhere) read in
// pieces give exactly what one pass gives: the same error, or the same
// model. Never a crash, never a different answer.
TEST(TorchPieces, DamagedFilesGetTheOnePassAnswerInPieces) {
  const std::string text = PiecesTrace(12);
  const std::string path = TempPath("damaged.json");
  TorchPieceOptions one;
  one.pieces = 1;
  TorchPieceOptions many;
  many.pieces = 4;
  many.min_piece_bytes = 1;
  const char kBytes[] = {'}', ']', ',', '"', '{', '\n', 'x', '\\'};
  int damaged = 0, still_read = 0;
  for (int k = 1; k <= 120; ++k) {
    const size_t at = text.size() * static_cast<size_t>(k) / 121;
    for (int variant = 0; variant < 2; ++variant) {
      std::string bad = text;
      if (variant == 0) {
        bad.resize(at);
      } else {
        bad[at] = kBytes[k % sizeof(kBytes)];
      }
      WriteText(path, bad);
      auto a = ImportTorchTrace(path, one);
      auto b = ImportTorchTrace(path, many);
      ASSERT_EQ(a.ok(), b.ok()) << "cut/changed at " << at << ": " << (a.ok() ? b.status() : a.status());
      if (!a.ok()) {
        EXPECT_EQ(a.status(), b.status()) << at;
        ++damaged;
      } else {
        SCOPED_TRACE(at);
        ExpectSameModel(*b, *a);
        ++still_read;
      }
    }
  }
  EXPECT_GT(damaged, 120);   // every cut and most changes break the JSON
  EXPECT_GT(still_read, 0);  // a changed digit or name still reads
}

}  // namespace
}  // namespace streamscope
