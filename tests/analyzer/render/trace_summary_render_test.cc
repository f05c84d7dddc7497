// The trace summary's warnings and the cross-rank notes are data in
// analysis/ and worded here, in render/: known answers for each kind.
#include <string>

#include "analyzer/analysis/ranks/cross_rank.h"
#include "analyzer/analysis/windows/trace_summary.h"
#include "analyzer/render/communication_render.h"
#include "analyzer/render/trace_summary_render.h"
#include "gtest/gtest.h"

namespace streamscope {
namespace {

TEST(TraceWarningText, LeftOutRecordsListTheirCountersInKeyOrder) {
  TraceWarning w{TraceWarning::Kind::kRecordsLeftOut, 3, {{"api_end_before_start", 1}, {"op_zero_timestamp", 2}}, ""};
  EXPECT_EQ(TraceWarningText(w),
            "3 records could not be placed on the timeline and were left out of every analysis "
            "(api_end_before_start=1, op_zero_timestamp=2)");
}

TEST(TraceWarningText, EachKindSaysItsFigureOrRecordedText) {
  EXPECT_EQ(TraceWarningText({TraceWarning::Kind::kRecordsInconsistent, 2, {{"op_unknown_stream", 2}}, ""}),
            "2 inconsistent records were kept (op_unknown_stream=2)");
  EXPECT_EQ(TraceWarningText({TraceWarning::Kind::kCollectorLostRecords, 7, {}, ""}),
            "the collector lost 7 records during capture: figures may miss work");
  EXPECT_EQ(TraceWarningText({TraceWarning::Kind::kCaptureUnfinished, 0, {}, "running"}),
            "capture did not finish (capture_end='running'): the process was probably killed; the end of the "
            "trace may be missing");
  EXPECT_EQ(TraceWarningText({TraceWarning::Kind::kCaptureAbnormal, 0, {}, "signal"}),
            "capture ended abnormally: signal");
  EXPECT_EQ(TraceWarningText({TraceWarning::Kind::kValidationFailed, 0, {}, "failed: sum 3 != 4"}),
            "the workload's own validation failed: failed: sum 3 != 4");
}

TEST(TraceSummaryNotes, TheImportersNotesComeFirstThenStreamsCreatedBeforeRecording) {
  TraceSummary s;
  s.notes = {"an importer note"};
  s.ops_on_streams_before_recording = 4;
  const std::vector<std::string> notes = TraceSummaryNotes(s);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "an importer note");
  EXPECT_EQ(notes[1],
            "4 ops ran on streams created before the recording started (streamscope_record_start in a running "
            "process): their stream kind is not recorded");
}

TEST(CrossRankNoteText, ClocksNotComparableNamesHostsAndClockDomains) {
  EXPECT_EQ(CrossRankNoteText({CrossRankNote::Kind::kClocksNotComparable, 2, 3}),
            "the traces come from 2 host(s) and 3 clock domain(s) and share no collective to align their clocks "
            "with: arrival times are not comparable, so who waited on whom is not computed");
  EXPECT_EQ(CrossRankNoteText({CrossRankNote::Kind::kUnmatchedKernels, 5}),
            "5 communication kernel(s) have no counterpart on every rank (different counts per rank in the "
            "window): they are not matched");
  EXPECT_EQ(CrossRankNoteText({CrossRankNote::Kind::kLargeResidual, 250000}),
            "after alignment some collectives' ends still differ by up to 250000 ns: the k-th kernels of a name "
            "may not be the same collective on every rank (do the windows cover the same steps?)");
}

}  // namespace
}  // namespace streamscope
