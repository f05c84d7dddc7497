#include "analyzer/render/column_types.h"

#include <array>
#include <optional>

namespace streamscope {
namespace {

std::optional<ColumnType> TypeOfValue(const ResultValue& v) {
  if (std::holds_alternative<int64_t>(v)) return ColumnType::kInteger;
  if (std::holds_alternative<double>(v)) return ColumnType::kReal;
  if (std::holds_alternative<std::string>(v)) return ColumnType::kText;
  return std::nullopt;
}

}  // namespace

ColumnType ColumnTypeOfName(std::string_view c) {
  static constexpr std::array<std::string_view, 17> kTextNames = {
      "access", "access_a", "access_b", "annotation", "category", "category_a", "category_b", "class", "direction",
      "edge",   "key",      "label",    "level",      "pair",     "section",    "side",       "value"};
  for (std::string_view t : kTextNames) {
    if (c == t) return ColumnType::kText;
  }
  static constexpr std::array<std::string_view, 7> kTextEnds = {"name",   "kind",   "_table",  "cause",
                                                                "reason", "window", "operator"};
  for (std::string_view e : kTextEnds) {
    if (c.ends_with(e)) return ColumnType::kText;
  }
  if (c.ends_with("_share") || c.starts_with("share_") || c.ends_with("_mean_ns") || c.ends_with("_ms") ||
      c.ends_with("_ratio")) {
    return ColumnType::kReal;
  }
  return ColumnType::kInteger;
}

std::vector<ColumnType> ResultColumnTypes(const std::vector<const ResultTable*>& tables) {
  if (tables.empty()) return {};
  const std::vector<std::string>& columns = tables.front()->columns;
  std::vector<std::optional<ColumnType>> seen(columns.size());
  size_t known = 0;
  for (const ResultTable* t : tables) {
    if (known == columns.size()) break;
    // Generated rows (sources) are many: they are read only while a column is unknown.
    auto visit = [&](const std::vector<ResultValue>& row) {
      for (size_t c = 0; c < seen.size() && c < row.size(); ++c) {
        if (seen[c]) continue;
        seen[c] = TypeOfValue(row[c]);
        if (seen[c]) ++known;
      }
    };
    for (const std::vector<ResultValue>& row : t->rows) {
      visit(row);
      if (known == columns.size()) break;
    }
    if (known < columns.size() && !t->sources.empty()) t->ForEachRow(visit);
  }
  std::vector<ColumnType> types;
  for (size_t c = 0; c < columns.size(); ++c) types.push_back(seen[c].value_or(ColumnTypeOfName(columns[c])));
  return types;
}

const char* TableSchemaTypeName(ColumnType type) {
  switch (type) {
    case ColumnType::kInteger: return "integer";
    case ColumnType::kReal: return "number";
    case ColumnType::kText: return "string";
  }
  return "string";
}

}  // namespace streamscope
