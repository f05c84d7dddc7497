// Writes traces as Chrome trace-event JSON for ui.perfetto.dev and
// chrome://tracing, streamed event by event (memory stays flat: a 1M-op
// trace exports in seconds).
//
// Layout (pid/tid are synthetic where the trace has none):
//   * a process per device, "GPU 0: NVIDIA H200", with a thread per stream,
//     "stream 13 (non-blocking)", holding its ops as "X" slices. Ops of one
//     stream that overlap (clock jitter) go to overflow tracks
//     "stream 13 (non-blocking) overflow 1" and are counted;
//   * then the analysis tracks of that device (overlap intervals per
//     category pair, idle gaps named and coloured by cause, hidden-sync
//     markers) from AnalysisTracks;
//   * a process per host process: a thread per OS thread with its CUDA API
//     calls (nested; a call that would partially overlap its parent is
//     clipped and counted), and a separate "NVTX" track per thread for
//     push/pop ranges (nested) and marks (instants); start/end ranges go to
//     "NVTX start/end" lanes;
//   * flow arrows ("s" on the API call, "f" with "bp":"e" on the op) from
//     each API call to the op it submitted, id = a number unique in the file.
// Every op's args carry its source table and id, correlation id, stream,
// bytes and memory kinds (copies), grid/block/registers/shared memory
// (kernels), graph id. ts/dur are microseconds with three decimals relative
// to otherData.ts_base_ns. Not thread-safe.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_JSON_WRITER_H_
#define STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_JSON_WRITER_H_

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/export/analysis_tracks.h"
#include "analyzer/export/output_file.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct PerfettoTraceInput {
  const TraceModel* model = nullptr;
  Window window;                             // what to export (InWindow)
  const AnalysisTracks* analysis = nullptr;  // may be null
  std::string label;                         // shown in process names when several traces
};

struct PerfettoExportOptions {
  bool api_calls = true;
  bool nvtx = true;
  bool flows = true;
  // Set when the inputs' analysis tracks are still being made: called once,
  // on the writer's thread, before it reads them (the protobuf writer
  // writes the ops and host tracks meanwhile); an error stops the write.
  std::function<absl::Status()> await_analyses;
  // The protobuf writer writes an analysis track of more slices than this
  // in runs at once (up to 8; perfetto_proto_writer.cc). An overlap slice
  // (its ops as text) takes about 4 us to write: at 1M ops the overlap
  // track's 100k+ slices in one run were the writer's last 0.45-0.7 s.
  int64_t slices_per_run = 50'000;
};

struct PerfettoExportStats {
  int64_t events = 0, bytes = 0;
  int64_t ops = 0, api_calls = 0, nvtx_ranges = 0, nvtx_marks = 0, flows = 0;
  int64_t analysis_slices = 0, analysis_markers = 0;
  std::array<int64_t, kNumOpCategories> ops_by_category{};
  int64_t ops_on_overflow_tracks = 0;  // ops of a stream that overlapped another
  int64_t host_slices_clipped = 0;     // API calls / NVTX ranges clipped to their parent
  int64_t ts_base_ns = 0;
  std::vector<std::string> notes;
};

absl::Status WritePerfettoJson(std::span<const PerfettoTraceInput> traces, const PerfettoExportOptions& options,
                               OutputFile* out, PerfettoExportStats* stats);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_JSON_WRITER_H_
