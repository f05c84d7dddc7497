// The analyzer's front door: opens a file, detects its format by its content
// (a streamscope trace or an Nsight Systems SQLite export by their tables; a
// torch.profiler Chrome trace, plain or gzip, by its JSON) and runs the
// matching importer. The formats (trace_importer.h, one folder each:
// streamscope/, nsys/, torch/) are listed once, in TraceImporters(). One
// file may hold several processes (an nsys export), hence a list of models,
// each already Finalize()d.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_TRACE_LOADER_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_TRACE_LOADER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/importers/trace_file.h"
#include "analyzer/importers/trace_importer.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// Errors (see analyzer/cli/exit_codes.h): NOT_FOUND, DATA_LOSS (not SQLite,
// truncated), FAILED_PRECONDITION (unsupported schema/export version),
// INVALID_ARGUMENT (SQLite but neither format / required tables missing;
// JSON but not a torch.profiler trace). Malformed or truncated JSON or gzip
// is DATA_LOSS.
absl::StatusOr<std::vector<TraceModel>> LoadTraceFile(const std::string& path);

// Every format the analyzer reads, in the order they are tried.
const std::vector<const TraceImporter*>& TraceImporters();
// The first format that recognizes `file`; null if none does.
const TraceImporter* FindTraceImporter(TraceFile& file);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_TRACE_LOADER_H_
