// `report --format csv --output-dir DIR`: one file per table with a header
// row, rows of several traces behind a trace_index column, existing files
// kept unless forced, and every column's type in DIR/datapackage.json.
#include "analyzer/render/csv_writer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "analyzer/render/column_types.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/model/test_files.h"

namespace streamscope {
namespace {

std::string NewDir() {
  std::string tmpl = ::testing::TempDir() + "csv_folder_XXXXXX";
  char* made = mkdtemp(tmpl.data());
  EXPECT_NE(made, nullptr);
  return tmpl;
}

using testing::ReadFile;

std::vector<ResultTable> Tables(int64_t base) {
  ResultTable window{"analysis_window", {"window_index", "label"}, {{int64_t{0}, std::string("whole, trace")}}};
  ResultTable gaps{"analysis_idle_gap", {"window_index", "start_ns", "prev_op_id"}};
  gaps.rows.push_back({int64_t{0}, base, ResultValue{}});
  // Rows made on demand come after the materialized ones.
  gaps.sources.push_back({{int64_t{0}}, [base](const RowSink& sink) {
                            std::vector<ResultValue> row{base + 5, int64_t{7}};
                            sink(row);
                          }});
  return {window, gaps};
}

TEST(CsvFolder, WritesOneFilePerTableWithAHeaderRow) {
  std::string dir = NewDir() + "/tables";  // created when missing
  ASSERT_TRUE(WriteCsvFolder(dir, {Tables(100)}, false).ok());
  EXPECT_EQ(ReadFile(dir + "/analysis_window.csv"), "window_index,label\n0,\"whole, trace\"\n");
  EXPECT_EQ(ReadFile(dir + "/analysis_idle_gap.csv"), "window_index,start_ns,prev_op_id\n0,100,\n0,105,7\n");
}

TEST(CsvFolder, SeveralTracesShareAFileBehindATraceIndex) {
  std::string dir = NewDir();
  ASSERT_TRUE(WriteCsvFolder(dir, {Tables(100), Tables(200)}, false).ok());
  EXPECT_EQ(ReadFile(dir + "/analysis_idle_gap.csv"),
            "trace_index,window_index,start_ns,prev_op_id\n0,0,100,\n0,0,105,7\n1,0,200,\n1,0,205,7\n");
}

TEST(CsvFolder, ExistingFilesAreReplacedOnlyWhenForced) {
  std::string dir = NewDir();
  std::ofstream(dir + "/analysis_idle_gap.csv") << "mine\n";
  absl::Status s = WriteCsvFolder(dir, {Tables(100)}, false);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(s.message().find("analysis_idle_gap.csv: exists"), std::string::npos) << s;
  // Nothing was written: the refusal comes before the first file.
  EXPECT_EQ(ReadFile(dir + "/analysis_idle_gap.csv"), "mine\n");
  EXPECT_NE(access((dir + "/analysis_window.csv").c_str(), F_OK), 0);
  ASSERT_TRUE(WriteCsvFolder(dir, {Tables(100)}, true).ok());
  EXPECT_EQ(ReadFile(dir + "/analysis_idle_gap.csv"), "window_index,start_ns,prev_op_id\n0,100,\n0,105,7\n");
}

TEST(CsvFolder, ASymlinkIsNeverFollowedEvenWhenForced) {
  std::string dir = NewDir();
  std::string target = dir + "/elsewhere.txt";
  std::ofstream(target) << "keep\n";
  ASSERT_EQ(symlink(target.c_str(), (dir + "/analysis_window.csv").c_str()), 0);
  EXPECT_FALSE(WriteCsvFolder(dir, {Tables(100)}, true).ok());
  EXPECT_EQ(ReadFile(target), "keep\n");
}

TEST(CsvFolder, AFileInPlaceOfTheFolderIsAClearError) {
  std::string file = NewDir() + "/report.csv";
  std::ofstream(file) << "x\n";
  absl::Status s = WriteCsvFolder(file, {Tables(100)}, true);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(s.message().find("not a folder"), std::string::npos) << s;
}

// {column: type} of `table` in DIR/datapackage.json.
std::map<std::string, std::string> SchemaOf(const std::string& dir, const std::string& table) {
  std::map<std::string, std::string> types;
  nlohmann::json package = nlohmann::json::parse(ReadFile(dir + "/datapackage.json"));
  for (const nlohmann::json& r : package["resources"]) {
    if (r["name"] != table) continue;
    EXPECT_EQ(r["path"], table + ".csv");
    for (const nlohmann::json& f : r["schema"]["fields"]) types[f["name"]] = f["type"];
  }
  return types;
}

TEST(CsvFolder, AnEmptyTableHasTheTypedSchemaOfAFullOne) {
  ResultTable full{"analysis_gap_causes", {"window_index", "cause", "ns", "share_of_idle"}};
  full.rows.push_back({int64_t{0}, std::string("cpu_starvation"), int64_t{5}, 0.5});
  ResultTable empty{"analysis_gap_causes", {"window_index", "cause", "ns", "share_of_idle"}};
  const std::map<std::string, std::string> expected = {
      {"window_index", "integer"}, {"cause", "string"}, {"ns", "integer"}, {"share_of_idle", "number"}};
  std::string with_rows = NewDir(), without = NewDir();
  ASSERT_TRUE(WriteCsvFolder(with_rows, {{full}}, false).ok());
  ASSERT_TRUE(WriteCsvFolder(without, {{empty}}, false).ok());
  EXPECT_EQ(SchemaOf(with_rows, "analysis_gap_causes"), expected);
  EXPECT_EQ(SchemaOf(without, "analysis_gap_causes"), expected);
  EXPECT_EQ(ReadFile(without + "/analysis_gap_causes.csv"), "window_index,cause,ns,share_of_idle\n");
}

TEST(CsvFolder, AColumnNullInOneTraceTakesItsTypeFromAnother) {
  ResultTable a{"analysis_idle_gap", {"window_index", "prev_op_id"}, {{int64_t{0}, ResultValue{}}}};
  ResultTable b{"analysis_idle_gap", {"window_index", "prev_op_id"}, {{int64_t{0}, int64_t{3}}}};
  std::string dir = NewDir();
  ASSERT_TRUE(WriteCsvFolder(dir, {{a}, {b}}, false).ok());
  EXPECT_EQ(SchemaOf(dir, "analysis_idle_gap"),
            (std::map<std::string, std::string>{
                {"trace_index", "integer"}, {"window_index", "integer"}, {"prev_op_id", "integer"}}));
}

TEST(ColumnTypes, NamesFollowTheVocabulary) {
  EXPECT_EQ(ColumnTypeOfName("start_ns"), ColumnType::kInteger);
  EXPECT_EQ(ColumnTypeOfName("stream_id_a"), ColumnType::kInteger);
  EXPECT_EQ(ColumnTypeOfName("op_a_table"), ColumnType::kText);
  EXPECT_EQ(ColumnTypeOfName("category_b"), ColumnType::kText);
  EXPECT_EQ(ColumnTypeOfName("primary_cause"), ColumnType::kText);
  EXPECT_EQ(ColumnTypeOfName("hidden_share"), ColumnType::kReal);
  EXPECT_EQ(ColumnTypeOfName("gpu_mean_ns"), ColumnType::kReal);
}

}  // namespace
}  // namespace streamscope
