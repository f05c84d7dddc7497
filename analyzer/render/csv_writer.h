// CSV form of ResultTables (RFC 4180: comma separated, CRLF-free, fields
// with commas, quotes or newlines quoted). NULL is an empty field.
#ifndef STREAMSCOPE_ANALYZER_RENDER_CSV_WRITER_H_
#define STREAMSCOPE_ANALYZER_RENDER_CSV_WRITER_H_

#include <ostream>
#include <string>

#include "analyzer/base/result_table.h"

namespace streamscope {

std::string CsvField(const ResultValue& value);
// Header line then one line per row.
void WriteCsv(const ResultTable& table, std::ostream& out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_CSV_WRITER_H_
