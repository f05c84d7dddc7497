// A plain table of analysis results: the one tabular form every analysis
// produces, which the CSV renderer prints and `report --save` writes into
// the trace as an analysis_* table. Each analysis documents its tables'
// columns next to the function that builds them.
#ifndef STREAMSCOPE_ANALYZER_BASE_RESULT_TABLE_H_
#define STREAMSCOPE_ANALYZER_BASE_RESULT_TABLE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace streamscope {

using ResultValue = std::variant<std::monostate, int64_t, double, std::string>;

// Gives rows one at a time to a sink (the sink may change the row).
using RowSink = std::function<void(std::vector<ResultValue>& row)>;

struct ResultTable {
  ResultTable() = default;
  // Not an aggregate: {name, columns, rows} leaves `sources` empty without a
  // -Wmissing-field-initializers warning at every table.
  ResultTable(std::string table_name, std::vector<std::string> table_columns,
              std::vector<std::vector<ResultValue>> table_rows = {})
      : name(std::move(table_name)), columns(std::move(table_columns)), rows(std::move(table_rows)) {}

  std::string name;                  // SQL table name, "analysis_<something>"
  std::vector<std::string> columns;  // snake_case
  std::vector<std::vector<ResultValue>> rows;

  // Rows made on demand, after `rows`: tables of tens of millions of rows
  // (every op of every overlap interval) would take several times the
  // analysis' own memory as values. Each source emits its rows in order,
  // each one after `prefix` (the window index in a report's merged tables).
  // The data a source reads must outlive the table.
  struct RowSource {
    std::vector<ResultValue> prefix;
    std::function<void(const RowSink&)> emit;
  };
  std::vector<RowSource> sources;

  // Every row, materialized first, then generated.
  template <typename Fn>
  void ForEachRow(Fn&& fn) const {
    for (const std::vector<ResultValue>& row : rows) fn(row);
    for (const RowSource& source : sources) {
      std::vector<ResultValue> full;
      source.emit([&](std::vector<ResultValue>& row) {
        full.assign(source.prefix.begin(), source.prefix.end());
        full.insert(full.end(), std::make_move_iterator(row.begin()), std::make_move_iterator(row.end()));
        fn(static_cast<const std::vector<ResultValue>&>(full));
      });
    }
  }
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_BASE_RESULT_TABLE_H_
