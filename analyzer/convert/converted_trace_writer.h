// Writes a TraceModel as a streamscope trace database (schema/), for
// `streamscope convert`, through the one trace-table writer
// (trace_table_writer.h).
//
// Safety: the output is never written through a symbolic link and an
// existing file is never replaced unless asked; the database is built in a
// fresh temporary file (O_EXCL) next to the output and linked into place
// only when complete, so a failed conversion leaves no partial trace.
// Thread-compatible: one call writes one file.
#ifndef STREAMSCOPE_ANALYZER_CONVERT_CONVERTED_TRACE_WRITER_H_
#define STREAMSCOPE_ANALYZER_CONVERT_CONVERTED_TRACE_WRITER_H_

#include <string>

#include "absl/status/status.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct TraceWriteOptions {
  bool overwrite = false;   // replace an existing regular file (--force)
  std::string source_path;  // recorded as metadata 'source_path'
  std::string trace_format = "converted-nsys";
};

// Writes `model` (finalized) to `path`. ALREADY_EXISTS if the file exists
// and !overwrite; PERMISSION_DENIED if it is a symbolic link or not a
// regular file, or cannot be created; INTERNAL on an SQLite write error.
absl::Status WriteStreamscopeTrace(const TraceModel& model, const std::string& path, const TraceWriteOptions& options);

// The output path for one process: every "%p" replaced by the pid.
std::string ExpandOutputPattern(const std::string& pattern, int64_t pid);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_CONVERT_CONVERTED_TRACE_WRITER_H_
