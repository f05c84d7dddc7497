// CSV form of ResultTables (RFC 4180: comma separated, CRLF-free, fields
// with commas, quotes or newlines quoted). NULL is an empty field.
#ifndef STREAMSCOPE_ANALYZER_RENDER_CSV_WRITER_H_
#define STREAMSCOPE_ANALYZER_RENDER_CSV_WRITER_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analyzer/base/result_table.h"

namespace streamscope {

inline constexpr char kTablePackageFile[] = "datapackage.json";

std::string CsvField(const ResultValue& value);
// Header line then one line per row.
void WriteCsv(const ResultTable& table, std::ostream& out);

// `report --format csv --output-dir DIR`: every table to DIR/<table name>.csv, header
// row first, so that pandas, polars or DuckDB read any table in one call.
// `traces` holds each analyzed trace's tables (same names, same order).
// With more than one trace, rows of all traces share one file per table,
// after a leading `trace_index` column (the trace's position, as in the
// JSON's "traces"). DIR is created when missing. Existing files are never
// replaced without `force` (AlreadyExists, checked for every file before
// any is written); symlinks are never followed. DIR/datapackage.json
// (kTablePackageFile) describes every file with its typed columns (a
// Frictionless Data table schema: integer, number, string; an empty field
// is NULL), the same for a table with rows or without (column_types.h).
absl::Status WriteCsvFolder(const std::string& dir, const std::vector<std::vector<ResultTable>>& traces, bool force);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_CSV_WRITER_H_
