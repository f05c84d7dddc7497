// A recording started inside a running process (streamscope.record() in
// Python, i.e. streamscope_record_start; metadata injection = 'api') never
// saw the streams PyTorch created before it. Real trace recorded on the H200
// by tools/gpu/python_record.sh (the `with streamscope.record(...)` block of
// tools/gpu/python_record_check.py).
#include <string>

#include "analyzer/analysis/windows/trace_summary.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/render/trace_summary_render.h"
#include "gtest/gtest.h"

namespace streamscope {
namespace {

const std::string kTrace = std::string(STREAMSCOPE_TEST_DATA_DIR) + "/python_record_section.sqlite";

TEST(AttachedRecording, OpsOnStreamsCreatedBeforeTheStartAreExpectedNotInconsistent) {
  auto models = LoadTraceFile(kTrace);
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_EQ(models->size(), 1u);
  const TraceModel& m = models->front();
  EXPECT_EQ(m.metadata.at("injection"), "api");
  EXPECT_EQ(m.import_stats.count("op_unknown_stream"), 0u);
  ASSERT_EQ(m.import_stats.count("op_stream_created_before_recording"), 1u);
  EXPECT_EQ(m.import_stats.at("op_stream_created_before_recording"), 4);

  TraceSummary s = SummarizeTrace(m);
  EXPECT_EQ(s.records_inconsistent, 0);
  EXPECT_EQ(s.records_dropped, 0);
  EXPECT_TRUE(s.warnings.empty()) << TraceWarningText(s.warnings.front());
  EXPECT_EQ(s.ops_on_streams_before_recording, 4);
  bool noted = false;
  for (const std::string& n : TraceSummaryNotes(s)) {
    noted |= n.find("4 ops ran on streams created before the recording started") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace streamscope
