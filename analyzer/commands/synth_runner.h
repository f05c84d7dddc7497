// `streamscope synth SPEC.json -o TRACE.sqlite`: a streamscope trace made
// from a small JSON description of its rows, for tests and generators
// outside C++ (they write no SQL of their own; the rows go through
// convert/trace_table_writer.h like every other writer's).
//
// The spec is one JSON object. "metadata" is an object of key: value
// (strings); every other key names a table of schema/streamscope_schema.sql
// (string, device, device_link, context, stream, thread, kernel, memcpy,
// memset, graph_execution, api_call, sync, nvtx_range, nvtx_mark,
// allocation, memory_access, event_op, collector_stat, cupti_overhead) and
// holds a list of rows, each an object of column: value.
// An absent or null column is NULL; an unknown table or column, a wrong
// type or a missing required column is INVALID_ARGUMENT "spec: ROW ..."
// (RunSynth: a usage error naming the spec file and the row).
#ifndef STREAMSCOPE_ANALYZER_COMMANDS_SYNTH_RUNNER_H_
#define STREAMSCOPE_ANALYZER_COMMANDS_SYNTH_RUNNER_H_

#include <string>

#include "absl/status/status.h"

namespace streamscope {

struct SynthOptions {
  std::string spec_path;  // "-" = standard input
  std::string output_path;
  bool force = false;  // replace an existing regular file
};

// Writes the trace `spec_text` describes into the new file `output_path`.
absl::Status WriteSynthTrace(const std::string& spec_text, const std::string& output_path, bool force);

// Reads options.spec_path and writes the trace.
absl::Status RunSynth(const SynthOptions& options);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_COMMANDS_SYNTH_RUNNER_H_
