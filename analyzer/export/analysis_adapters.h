// Adapters from the analyses' result structs to AnalysisTracks (see
// analysis_tracks.h). Each appends tracks, findings and notes for one
// analysis; call the ones whose analysis ran. Pure functions of their
// inputs; thread-compatible.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_ANALYSIS_ADAPTERS_H_
#define STREAMSCOPE_ANALYZER_EXPORT_ANALYSIS_ADAPTERS_H_

#include <memory>

#include "analyzer/analysis/causes/critical_path.h"
#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/causes/hidden_sync.h"
#include "analyzer/analysis/causes/launch_stats.h"
#include "analyzer/analysis/overlap_gaps/idle_gaps.h"
#include "analyzer/analysis/overlap_gaps/overlap.h"
#include "analyzer/export/analysis_tracks.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// One track per device and overlapping category pair ("overlap compute|H2D"),
// a slice per maximal overlap interval (args: pair, ops_total, the kept op
// refs). Findings: overlapped / possible time per pair; exposed copy time.
// With `keep` (what owns `overlap`), the tracks make their slices while
// written (AnalysisTrack::produce) instead of holding them.
void AddOverlapTracks(const TraceModel& model, const OverlapResult& overlap, AnalysisTracks* out,
                      std::shared_ptr<const void> keep = nullptr);

// One "idle gaps (by cause)" track per device: a slice per gap named after
// its primary cause (cause set, so exporters colour by it), and its parts
// as nested slices when it has several. Run AnalyzeGapCauses with a large
// max_listed_gaps to draw every gap (only listed gaps can be drawn; a note
// says so otherwise). Findings: the largest causes. Gap lengths feed the
// gap histogram.
// With `keep` (which owns `gaps`), the tracks' slices are produced while a
// writer draws them (AnalysisTrack::produce) instead of held.
void AddGapCauseTracks(const TraceModel& model, const GapCausesResult& gaps, AnalysisTracks* out,
                       std::shared_ptr<const void> keep = nullptr);

// Device idle gaps without causes (a fallback when gap causes did not run):
// one "idle gaps" track per device with the listed gaps.
void AddIdleGapTracks(const TraceModel& model, const IdleGapsResult& gaps, AnalysisTracks* out);

// Hidden synchronizations as markers with their explanation: legacy
// default-stream serialization on a per-device "hidden syncs" track (at the
// delayed op's start), implicitly synchronizing calls on their host thread
// (spanning the call). Findings: counts and delays per kind; explicit sync
// host time and GPU idle time.
void AddHiddenSyncMarkers(const TraceModel& model, const HiddenSyncResult& sync, AnalysisTracks* out);

// Launch statistics as findings: launch-bound kernel groups
// (launch call slower than the kernel, or launch gaps longer than the GPU
// work) and the idle time a CUDA graph could remove.
void AddLaunchStatsFindings(const TraceModel& model, const LaunchStatsResult& launch, AnalysisTracks* out);

// The window's critical path as one host-level "critical path" track
// (group "critical-path"): a slice per segment, named by its kind and the
// op or call it walks (args: segment, on, op, call). Finding: its length
// and its host and GPU shares.
// With `keep` (which owns `path`), the slices are produced while a writer
// draws them.
void AddCriticalPathTrack(const TraceModel& model, const CriticalPath& path, AnalysisTracks* out,
                          std::shared_ptr<const void> keep = nullptr);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_ANALYSIS_ADAPTERS_H_
