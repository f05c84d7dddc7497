// The type of each column of a ResultTable, the same whatever the rows: the
// CSV folder's datapackage.json (csv_writer.h) states it so that a table
// with no rows, or a column that is NULL throughout, reads with the same
// schema as a full one (pandas, polars and DuckDB read one table of several
// traces in one call only when every file agrees).
#ifndef STREAMSCOPE_ANALYZER_RENDER_COLUMN_TYPES_H_
#define STREAMSCOPE_ANALYZER_RENDER_COLUMN_TYPES_H_

#include <string_view>
#include <vector>

#include "analyzer/base/result_table.h"

namespace streamscope {

enum class ColumnType { kInteger, kReal, kText };

// By the vocabulary's naming rules (analyzer/README.md "One vocabulary"):
// text for names, kinds, labels, tables, causes, pairs and categories;
// real for shares, means and milliseconds; integer otherwise (times in ns,
// ids, indices, counts, flags).
ColumnType ColumnTypeOfName(std::string_view column);

// Each column's type: that of its first non-NULL value in any of `tables`
// (the same table of several traces), else ColumnTypeOfName.
std::vector<ColumnType> ResultColumnTypes(const std::vector<const ResultTable*>& tables);

// "integer", "number", "string": the Frictionless Table Schema names.
const char* TableSchemaTypeName(ColumnType type);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_COLUMN_TYPES_H_
