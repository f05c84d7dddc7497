// Writes traces as Perfetto's native protobuf trace (the format
// ui.perfetto.dev and trace_processor read natively), streamed packet by
// packet through PerfettoProtoSink: memory stays bounded whatever the op
// count, and the file is about a fifth of the JSON's size.
//
// Same layout as the JSON export (perfetto_json_writer.h): a process per
// device with a thread track per stream (overflow tracks for ops of a stream
// that overlap), the analysis tracks of each device, a process per host
// process with a track per OS thread for its CUDA API calls and "NVTX"
// tracks, flows from each API call to the op it submitted, the same names,
// categories and args (as debug annotations). What differs:
//   * timestamps are nanoseconds after `ts_base_ns` (integers: no rounding);
//   * a slice is a BEGIN/END event pair (Perfetto has no complete event);
//   * gap causes are not coloured by cause (TrackEvent has no colour field;
//     the UI colours slices by name, and the name carries the cause);
//   * the JSON's otherData is an instant "streamscope export" on a global
//     track "streamscope export info", its fields as annotations.
//   * for size, args the file already states are left out and some take
//     other shapes (correlation ids in TrackEvent.correlation_id, launch
//     shapes as "x,y,z", op references as {table: id}): analyzer/EXPORT.md.
// It writes a trace's parts (ops, host threads, each analysis track) on
// threads of their own and joins them in a fixed order: the file is the
// same whatever the thread count (analyzer/EXPORT.md "Perfetto protobuf").
// The inputs must not change while it runs.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_PROTO_WRITER_H_
#define STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_PROTO_WRITER_H_

#include <span>

#include "absl/status/status.h"
#include "analyzer/export/output_file.h"
#include "analyzer/export/perfetto_json_writer.h"  // PerfettoTraceInput, options, stats

namespace streamscope {

// stats->events counts slices and instants (not BEGIN/END packets);
// stats->bytes is the file size.
absl::Status WritePerfettoProto(std::span<const PerfettoTraceInput> traces, const PerfettoExportOptions& options,
                                OutputFile* out, PerfettoExportStats* stats);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_PROTO_WRITER_H_
