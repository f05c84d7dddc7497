// A plain table of analysis results: the one tabular form every analysis
// produces, which the CSV renderer prints and `report --save` writes into
// the trace as an analysis_* table. Each analysis documents its tables'
// columns next to the function that builds them.
#ifndef STREAMSCOPE_ANALYZER_RENDER_RESULT_TABLE_H_
#define STREAMSCOPE_ANALYZER_RENDER_RESULT_TABLE_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace streamscope {

using ResultValue = std::variant<std::monostate, int64_t, double, std::string>;

struct ResultTable {
  std::string name;                  // SQL table name, "analysis_<something>"
  std::vector<std::string> columns;  // snake_case
  std::vector<std::vector<ResultValue>> rows;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_RESULT_TABLE_H_
