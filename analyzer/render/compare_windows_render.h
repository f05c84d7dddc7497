// Compare's window choice in words (pipeline/compare_windows.h): what one
// instance of a run is, each run's window and why, and the note that names
// both sides' windows when the runs' windows differ.
#ifndef STREAMSCOPE_ANALYZER_RENDER_COMPARE_WINDOWS_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_COMPARE_WINDOWS_RENDER_H_

#include <string>

#include "analyzer/pipeline/compare_windows.h"
#include "analyzer/pipeline/compare_work.h"

namespace streamscope {

// What one instance is: "NVTX range 'step'", "a sequence of 5 kernels";
// "" for a GPU span.
std::string RunWindowUnit(const RunWindow& run);

// The run's window and why: "steady state: 12 instances of NVTX range
// 'step'", "3 instances of NVTX range 'measured'", "instance 2 of NVTX range
// 'measured'", "GPU span, first GPU op to last (no steady state found)".
std::string RunWindowDescription(const RunWindow& run);

// "kernel 'k': 30 in 20 instances vs 30 in 10" (actual, then expected).
std::string WorkDifferenceText(const WorkDifference& d);

// Why these windows (CompareWindowNote), for kSteadyStateMatched and the
// GPU span rules; "" for the other rules.
std::string CompareWindowNoteText(CompareWindowRule rule, const CompareWindowNote& note);
inline std::string CompareWindowNoteText(const CompareWindowChoice& c) { return CompareWindowNoteText(c.rule, c.note); }

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_COMPARE_WINDOWS_RENDER_H_
