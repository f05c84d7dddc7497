#include "analyzer/render/csv_writer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace streamscope {
namespace {
std::string Quote(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}
}  // namespace

std::string CsvField(const ResultValue& value) {
  if (const int64_t* i = std::get_if<int64_t>(&value)) return absl::StrCat(*i);
  if (const double* d = std::get_if<double>(&value)) return absl::StrFormat("%.9g", *d);
  if (const std::string* s = std::get_if<std::string>(&value)) return Quote(*s);
  return "";
}

void WriteCsv(const ResultTable& table, std::ostream& out) {
  for (size_t i = 0; i < table.columns.size(); ++i) out << (i ? "," : "") << Quote(table.columns[i]);
  out << "\n";
  table.ForEachRow([&](const std::vector<ResultValue>& row) {
    for (size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << CsvField(row[i]);
    out << "\n";
  });
}

}  // namespace streamscope
