// `streamscope report --save`: writes analysis results into the trace as
// analysis_* tables (documented in analyzer/README.md), so that users can
// query them with any SQLite client. With the importers, the only analyzer
// code that talks SQLite; the only code that opens a trace for writing.
// Not thread-safe per file.
#ifndef STREAMSCOPE_ANALYZER_STORAGE_ANALYSIS_SAVER_H_
#define STREAMSCOPE_ANALYZER_STORAGE_ANALYSIS_SAVER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analyzer/base/result_table.h"

namespace streamscope {

// In one transaction: drops every table named analysis_* in the trace at
// `path` (results of an earlier save), then creates and fills one table per
// ResultTable. Column types follow the values (INTEGER, REAL, TEXT). Table
// names must start with "analysis_" and, like column names, be lower-case
// identifiers (INVALID_ARGUMENT otherwise, nothing written). The file must
// exist and is never created; a symlink is refused. PERMISSION_DENIED if it
// cannot be opened or written; the trace is left unchanged on any error.
// A streamscope trace of an older schema version is upgraded to this one in
// the same transaction (schema::UpgradeSql: copy-kind names, views, version).
absl::Status SaveAnalysisTables(const std::string& path, const std::vector<ResultTable>& tables);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_STORAGE_ANALYSIS_SAVER_H_
