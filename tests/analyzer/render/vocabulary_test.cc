// One vocabulary everywhere: every bundled trace's report (text,
// JSON, CSV), diagnosis, comparison, HTML page, Perfetto timeline and saved
// analysis tables cite ops and calls in the one form of
// analyzer/render/op_ref.h, name copies H2D/D2H, use NULL (not -1) for
// "none", hold no packed strings and give every column and key a name that
// says what it holds (ColumnNameProblem); the trace's SQL views use the same
// category and column names; older traces still load.
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/commands/compare_runner.h"
#include "analyzer/commands/diagnose_runner.h"
#include "analyzer/commands/export_runner.h"
#include "analyzer/commands/report_runner.h"
#include "analyzer/convert/converted_trace_writer.h"
#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "schema/schema.h"
#include "tests/analyzer/importers/bundled_traces.h"
#include "tests/analyzer/model/synthetic_trace.h"

namespace streamscope {
namespace {

using testing::BundledSqliteTraces;

namespace fs = std::filesystem;

struct OldForm {
  const char* pattern;
  const char* instead;
};
// Forms that output used before one vocabulary, and what replaced them.
const OldForm kOldForms[] = {
    {R"(\b(kernel|memcpy|memset|allocation)#[0-9])", "cite ops as 'copy 8 (stream 16)'"},
    {R"(\bmemcpy [0-9])", "cite copies as 'copy N'"},
    {R"(\(api [0-9]|, api [0-9])", "cite calls as 'call N name (thread T)'"},
    {R"(\(tid [0-9])", "cite calls as 'call N name (thread T)'"},
    {R"(\(sync [0-9]+\))", "cite syncs as 'sync N kind'"},
    {R"(\b(HtoD|DtoH|DtoD|PtoP)\b)", "copies are H2D, D2H, D2D, P2P"},
    {R"(\b(stream|thread|device|GPU) -1\b)", "none is said in words, not -1"},
};

// Why a column (table, CSV, SQL view) or JSON key name breaks "the same
// name for the same thing everywhere", or "" when it does not. `scalar`:
// the key holds a value, not an object or list named for what it holds
// ("parts": [...], "api": {id, name, ...}). `bare_ids`: a stream or device
// is cited as stream_id/device_id (Perfetto args keep the names
// analyzer/EXPORT.md gives them: table, source_id, stream).
std::string ColumnNameProblem(const std::string& name, bool scalar = true, bool bare_ids = true) {
  static const std::set<std::string> kOldNames = {
      "op_before", "op_after", "api_tid", "table_name", "submitting_call", "submitting_call_source_id", "host_tid"};
  if (kOldNames.contains(name) || name.starts_with("op_before_") || name.starts_with("op_after_") ||
      (scalar && name == "parts")) {
    return "an old name: prev_op_*/next_op_*, tid, op_table, a child table, call (a cited call)";
  }
  // 'detail' says nothing about the value: the tables call a call's name
  // api_name, an NVTX range's nvtx_name, an op's name.
  if (name == "detail" || name.ends_with("_detail") || name.starts_with("detail_")) {
    return "say what it is: api_name, nvtx_name, name";
  }
  // Two things of a kind in one row are ids like every other: stream_id_a,
  // op_a_stream_id; never stream_a.
  static const std::regex pair_of_things(R"(^(.*_)?(stream|device|thread|tid|allocation|api|call)_[ab]$)");
  if (std::regex_match(name, pair_of_things)) return "a pair of ids: stream_id_a/_b, op_a_stream_id";
  if (scalar && bare_ids && (name == "stream" || name == "device" || name == "thread")) {
    return "an id column ends in _id: stream_id, device_id, tid";
  }
  return "";
}

// Every key of JSON in `text` ("key": value) and every "key: value" line of
// a tooltip (the HTML page's op and slice titles) whose name has a problem,
// as "key (problem)".
std::vector<std::string> BadNamesIn(const std::string& text, bool bare_ids = true) {
  static const std::regex json_key(R"re("([A-Za-z_][A-Za-z0-9_]*)"\s*:\s*(.))re");
  static const std::regex title_key(R"(^([a-z][a-z0-9_]*): )");
  std::map<std::string, bool> names;  // name -> seen holding a scalar
  for (auto it = std::sregex_iterator(text.begin(), text.end(), json_key); it != std::sregex_iterator(); ++it) {
    char first = (*it)[2].str()[0];
    names[(*it)[1].str()] |= first != '{' && first != '[' && first != 'n';
  }
  std::istringstream in(text);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, title_key)) names[m[1].str()] = true;
  }
  std::vector<std::string> bad;
  for (const auto& [n, scalar] : names) {
    if (std::string why = ColumnNameProblem(n, scalar, bare_ids); !why.empty()) bad.push_back(n + " (" + why + ")");
  }
  return bad;
}

TEST(Vocabulary, ColumnNamesSayWhatTheyHold) {
  for (const char* good :
       {"stream_id", "op_a_stream_id", "stream_id_a", "next_stream_id", "stream_kind", "stream_pairs", "streams",
        "api_name", "nvtx_name", "category_a", "access_b", "device_id", "allocation_id", "api_id", "tid", "name",
        "op_table", "registers_per_thread", "ops_without_call"}) {
    EXPECT_EQ(ColumnNameProblem(good), "") << good;
  }
  for (const char* bad : {"detail", "top_detail", "stream_a", "stream_b", "stream", "device", "thread", "op_before_id",
                          "parts", "api_tid", "allocation_a"}) {
    EXPECT_NE(ColumnNameProblem(bad), "") << bad;
  }
  EXPECT_EQ(BadNamesIn(R"({"stream_id_a": 1, "nvtx_name": "x", "api": {"id": 3}, "parts": []})"),
            std::vector<std::string>{});
  EXPECT_EQ(BadNamesIn(R"({"stream": 13})", /*bare_ids=*/false), std::vector<std::string>{});
  EXPECT_EQ(BadNamesIn("<title>gap\ndetail: host_prepare</title>").size(), 1u);
  EXPECT_EQ(BadNamesIn(R"({"groups":[{"stream_a":7}]})").size(), 1u);
}

// Every line of `text` matching an old form, as "form: line".
std::vector<std::string> OldFormsIn(const std::string& text) {
  static const std::vector<std::regex> res = [] {
    std::vector<std::regex> v;
    for (const OldForm& f : kOldForms) v.emplace_back(f.pattern);
    return v;
  }();
  std::vector<std::string> hits;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    // Lines can be long (one JSON object); check the cheap way first.
    for (size_t i = 0; i < res.size(); ++i) {
      if (std::regex_search(line, res[i])) {
        hits.push_back(std::string(kOldForms[i].instead) + ": " + line.substr(0, 300));
        if (hits.size() > 5) return hits;
      }
    }
  }
  return hits;
}

std::string Report(const std::string& trace, ReportOptions::Format format) {
  ReportOptions o;
  o.traces = {trace};
  o.format = format;
  std::ostringstream out, err;
  absl::Status s = RunReport(o, out, err);
  EXPECT_TRUE(s.ok()) << trace << ": " << s;
  return out.str();
}

std::string Diagnose(const std::string& trace, DiagnoseCommandOptions::Format format) {
  DiagnoseCommandOptions o;
  o.traces = {trace};
  o.format = format;
  std::ostringstream out, err;
  absl::Status s = RunDiagnose(o, out, err);
  EXPECT_TRUE(s.ok()) << trace << ": " << s;
  return out.str();
}

std::string ReadAndRemove(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(path);
  return text.str();
}

// The HTML page and the Perfetto JSON timeline of one export.
std::pair<std::string, std::string> HtmlAndPerfetto(const std::string& trace) {
  ExportOptions o;
  o.traces = {trace};
  o.html_path = testing::TempTracePath("vocabulary") + ".html";
  o.perfetto_path = testing::TempTracePath("vocabulary") + ".json";
  o.overwrite = true;
  std::ostringstream out;
  absl::Status s = RunExport(o, out);
  EXPECT_TRUE(s.ok()) << trace << ": " << s;
  std::string html = ReadAndRemove(o.html_path);
  return {html, ReadAndRemove(o.perfetto_path)};
}

// A column that names a thing by id: none must be NULL, never -1.
bool IsIdColumn(const std::string& c) {
  return c == "tid" || (c.size() > 3 && (c.ends_with("_id") || c.find("_id_") != std::string::npos));
}

// "host_nvtx_range:host_prepare=2813724;submission_latency=5000"
bool IsPackedList(const std::string& v) {
  static const std::regex packed(R"(^[a-z_]+(:[^=;]*)?=-?[0-9]+;)");
  return v.find(';') != std::string::npos && std::regex_search(v, packed);
}

TEST(Vocabulary, ReportsDiagnosesAndPagesUseOneFormForEveryBundledTrace) {
  std::vector<std::string> traces = BundledSqliteTraces({"tests/data", "tests/data/nsys", "tests/data/old_schema"});
  ASSERT_GE(traces.size(), 15u);
  for (const std::string& t : traces) {
    auto [html, perfetto] = HtmlAndPerfetto(t);
    for (const auto& [what, text] :
         {std::pair<std::string, std::string>{"report text", Report(t, ReportOptions::Format::kText)},
          {"report json", Report(t, ReportOptions::Format::kJson)},
          {"diagnose text", Diagnose(t, DiagnoseCommandOptions::Format::kText)},
          {"diagnose json", Diagnose(t, DiagnoseCommandOptions::Format::kJson)},
          {"html", html},
          {"perfetto json", perfetto}}) {
      // The Perfetto timeline carries what the trace recorded as recorded
      // (the workloads' NVTX marks say 'expect:overlap:HtoD|kernel'): only
      // its keys are checked.
      std::vector<std::string> hits = what == "perfetto json" ? std::vector<std::string>{} : OldFormsIn(text);
      EXPECT_TRUE(hits.empty()) << t << " " << what << ":\n  " << (hits.empty() ? "" : hits[0]);
      std::vector<std::string> bad = BadNamesIn(text, /*bare_ids=*/what != "perfetto json");
      EXPECT_TRUE(bad.empty()) << t << " " << what << ": key " << (bad.empty() ? "" : bad[0]);
    }
  }
}

TEST(Vocabulary, ComparisonsUseOneForm) {
  for (const auto& [control, variant] :
       {std::pair<std::string, std::string>{"tests/data/sequential.sqlite", "tests/data/overlapped.sqlite"},
        {"tests/data/sequential.sqlite", "tests/data/racy.sqlite"},
        {"tests/data/launch_individual.sqlite", "tests/data/launch_graph.sqlite"}}) {
    for (auto format : {CompareCommandOptions::Format::kText, CompareCommandOptions::Format::kJson}) {
      CompareCommandOptions o;
      o.control = {control};
      o.variant = {variant};
      o.format = format;
      std::ostringstream out;
      (void)RunCompare(o, out);  // a verdict other than VERIFIED is not an error here
      ASSERT_FALSE(out.str().empty()) << control << " vs " << variant;
      std::vector<std::string> hits = OldFormsIn(out.str());
      EXPECT_TRUE(hits.empty()) << control << " vs " << variant << ":\n  " << (hits.empty() ? "" : hits[0]);
      std::vector<std::string> bad = BadNamesIn(out.str());
      EXPECT_TRUE(bad.empty()) << control << " vs " << variant << ": key " << (bad.empty() ? "" : bad[0]);
    }
  }
}

TEST(Vocabulary, ReportJsonSaysNullForNone) {
  for (const std::string& t : BundledSqliteTraces({"tests/data", "tests/data/nsys", "tests/data/old_schema"})) {
    std::string json = Report(t, ReportOptions::Format::kJson);
    static const std::regex minus_one(R"re("(tid|id|[a-z_]*_id|[a-z_]*_id_[ab])":-1\b)re");
    std::smatch m;
    EXPECT_FALSE(std::regex_search(json, m, minus_one)) << t << ": " << m.str();
  }
}

TEST(Vocabulary, CsvTablesHaveOneColumnNameNoSentinelsAndNoPackedStrings) {
  for (const std::string& t : BundledSqliteTraces({"tests/data", "tests/data/nsys", "tests/data/old_schema"})) {
    std::istringstream in(Report(t, ReportOptions::Format::kCsv));
    std::string line, table;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
      if (line.rfind("# table: ", 0) == 0) {
        table = line.substr(9);
        header.clear();
        continue;
      }
      if (line.empty() || line[0] == '#') continue;
      std::vector<std::string> cells;
      std::stringstream row(line);
      for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
      if (header.empty()) {
        header = cells;
        for (const std::string& c : header) EXPECT_EQ(ColumnNameProblem(c), "") << t << " " << table << "." << c;
        continue;
      }
      for (size_t i = 0; i < cells.size() && i < header.size(); ++i) {
        if (IsIdColumn(header[i])) {
          EXPECT_NE(cells[i], "-1") << t << " " << table << "." << header[i];
        }
        EXPECT_FALSE(IsPackedList(cells[i])) << t << " " << table << "." << header[i] << " = " << cells[i];
      }
    }
  }
}

// sqlite3 helpers over one open database.
struct Db {
  explicit Db(const std::string& path) { sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr); }
  ~Db() { sqlite3_close(db); }
  std::vector<std::vector<std::string>> Rows(const std::string& sql) const {
    std::vector<std::vector<std::string>> rows;
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql << ": " << sqlite3_errmsg(db);
    while (st != nullptr && sqlite3_step(st) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(st); ++i) {
        const unsigned char* v = sqlite3_column_text(st, i);
        row.push_back(v == nullptr ? "<null>" : reinterpret_cast<const char*>(v));
      }
      rows.push_back(std::move(row));
    }
    sqlite3_finalize(st);
    return rows;
  }
  std::string One(const std::string& sql) const {
    auto rows = Rows(sql);
    return rows.empty() || rows[0].empty() ? "<none>" : rows[0][0];
  }
  std::vector<std::string> Columns(const std::string& table) const {
    std::vector<std::string> out;
    for (const auto& r : Rows("SELECT name FROM pragma_table_info('" + table + "')")) out.push_back(r[0]);
    return out;
  }
  sqlite3* db = nullptr;
};

TEST(Vocabulary, SavedTablesHaveOneColumnNameNoSentinelsAndNoPackedStrings) {
  // racy: hazard rows; overlapped: stream pairs.
  for (const std::string& t :
       {std::string("tests/data/pageable.sqlite"), std::string("tests/data/cpu_starved.sqlite"),
        std::string("tests/data/racy.sqlite"), std::string("tests/data/nsys/vecadd-um-a100.sqlite")}) {
    std::string copy = testing::TempTracePath("vocabulary_save");
    fs::copy_file(t, copy, fs::copy_options::overwrite_existing);
    ReportOptions o;
    o.traces = {copy};
    o.save = true;
    std::ostringstream out, err;
    ASSERT_TRUE(RunReport(o, out, err).ok()) << err.str();
    Db db(copy);
    auto tables = db.Rows("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'analysis_%' ORDER BY name");
    ASSERT_GE(tables.size(), 20u) << t;
    bool has_parts = false;
    for (const auto& row : tables) {
      const std::string& table = row[0];
      has_parts |= table == "analysis_gap_worst_part";
      for (const std::string& c : db.Columns(table)) {
        EXPECT_EQ(ColumnNameProblem(c), "") << t << " " << table << "." << c;
        if (IsIdColumn(c)) {
          EXPECT_EQ(db.One("SELECT count(*) FROM \"" + table + "\" WHERE \"" + c + "\" = -1"), "0")
              << t << " " << table << "." << c;
        }
        for (const auto& v : db.Rows("SELECT DISTINCT \"" + c + "\" FROM \"" + table + "\" WHERE typeof(\"" + c +
                                     "\") = 'text' AND \"" + c + "\" LIKE '%;%' LIMIT 20")) {
          EXPECT_FALSE(IsPackedList(v[0])) << table << "." << c << " = " << v[0];
        }
      }
    }
    EXPECT_TRUE(has_parts) << t;
    fs::remove(copy);
  }
}

TEST(Vocabulary, SavedGapPartsJoinTheirWorstGap) {
  std::string copy = testing::TempTracePath("vocabulary_parts");
  fs::copy_file("tests/data/cpu_starved.sqlite", copy, fs::copy_options::overwrite_existing);
  ReportOptions o;
  o.traces = {copy};
  o.save = true;
  std::ostringstream out, err;
  ASSERT_TRUE(RunReport(o, out, err).ok()) << err.str();
  Db db(copy);
  // Every part lies inside its gap, and the parts of a gap add up to at most its length.
  EXPECT_NE(db.One("SELECT count(*) FROM analysis_gap_worst_part"), "0");
  EXPECT_EQ(db.One("SELECT count(*) FROM analysis_gap_worst_part p JOIN analysis_gap_worst g "
                   "USING (window_index, rank) WHERE p.start_ns < g.start_ns OR p.end_ns > g.end_ns"),
            "0");
  EXPECT_EQ(db.One("SELECT count(*) FROM (SELECT g.length_ns, sum(p.length_ns) AS parts FROM analysis_gap_worst g "
                   "JOIN analysis_gap_worst_part p USING (window_index, rank) GROUP BY window_index, rank) "
                   "WHERE parts > length_ns"),
            "0");
  fs::remove(copy);
}

std::string NewTrace() {
  testing::SyntheticTrace t;
  t.Device(0).Stream(1).Stream(2);
  t.Kernel(1, 100, 300, "saxpy");
  t.Copy(OpCategory::kHtoD, 2, 200, 400);
  t.Copy(OpCategory::kHtoD, 2, 500, 600);
  t.Copy(OpCategory::kDtoH, 1, 700, 800);
  std::string path = testing::TempTracePath("vocabulary_views");
  EXPECT_TRUE(t.WriteFile(path).ok());
  return path;
}

TEST(Vocabulary, SqlViewsUseTheReportsCategoryNames) {
  std::string path = NewTrace();
  Db db(path);
  EXPECT_EQ(db.One("SELECT count(*) FROM gpu_op WHERE category = 'H2D'"), "2");
  EXPECT_EQ(db.One("SELECT count(*) FROM gpu_op WHERE category = 'D2H'"), "1");
  EXPECT_EQ(db.One("SELECT count(*) FROM gpu_op_with_api WHERE category = 'H2D'"), "2");
  EXPECT_EQ(db.One("SELECT name FROM gpu_op WHERE category = 'compute'"), "saxpy");
  EXPECT_EQ(db.One("SELECT op_table || ' ' || op_id FROM gpu_op WHERE category = 'compute'"), "kernel 1");
  EXPECT_EQ(db.One("SELECT copy_kind FROM gpu_op WHERE category = 'D2H'"), "D2H");
  EXPECT_EQ(db.One("SELECT count(*) FROM gpu_op WHERE op_table = 'kernel' AND copy_kind IS NULL AND bytes IS NULL"),
            "1");
  EXPECT_EQ(db.One("SELECT name FROM enum_copy_kind WHERE value = 1"), "H2D");
  std::vector<std::string> columns = db.Columns("gpu_op");
  EXPECT_EQ(std::count(columns.begin(), columns.end(), "detail"), 0);
  EXPECT_EQ(std::count(columns.begin(), columns.end(), "table_name"), 0);
  columns = db.Columns("gpu_op_with_api");
  EXPECT_EQ(std::count(columns.begin(), columns.end(), "tid"), 1);
  EXPECT_EQ(std::count(columns.begin(), columns.end(), "api_tid"), 0);
  for (const auto& view : db.Rows("SELECT name FROM sqlite_master WHERE type = 'view'")) {
    for (const std::string& c : db.Columns(view[0])) EXPECT_EQ(ColumnNameProblem(c), "") << view[0] << "." << c;
  }
}

TEST(SchemaVersion, ANewTraceHasTheNewVersion) {
  EXPECT_EQ(schema::Version(), 3);
  Db db(NewTrace());
  EXPECT_EQ(db.One("PRAGMA user_version"), "3");
}

TEST(SchemaVersion, EveryBundledTraceLoadsAndTheOldVersionIsAmongThem) {
  int old_version = 0;
  for (const std::string& t : BundledSqliteTraces({"tests/data", "tests/data/nsys", "tests/data/old_schema"})) {
    auto models = LoadTraceFile(t);
    ASSERT_TRUE(models.ok()) << t << ": " << models.status();
    ASSERT_FALSE(models->empty()) << t;
    if (t.find("/nsys/") != std::string::npos) continue;  // Nsight Systems exports have no version of ours
    std::string v = Db(t).One("PRAGMA user_version");
    EXPECT_GE(std::stoi(v), schema::OldestReadableVersion()) << t;
    EXPECT_LE(std::stoi(v), schema::Version()) << t;
    // Only the one kept on purpose is older than the current version.
    if (t.find("/old_schema/") == std::string::npos) {
      EXPECT_EQ(v, std::to_string(schema::Version())) << t;
    }
    if (v == std::to_string(schema::OldestReadableVersion())) ++old_version;
    EXPECT_GT((*models)[0].ops.size(), 0u) << t;
  }
  EXPECT_GT(old_version, 0) << "no bundled trace of version " << schema::OldestReadableVersion()
                            << " is left to prove that old traces load";
}

TEST(SchemaVersion, SavingIntoAnOldTraceUpgradesItsNamesAndViews) {
  std::string copy = testing::TempTracePath("vocabulary_upgrade");
  fs::copy_file("tests/data/old_schema/overlapped_schema1.sqlite", copy, fs::copy_options::overwrite_existing);
  std::string h2d_before, ops_before;
  {
    Db db(copy);
    ASSERT_EQ(db.One("PRAGMA user_version"), "1");
    EXPECT_EQ(db.One("SELECT count(*) FROM gpu_op WHERE category = 'H2D'"), "0");  // version 1 said HtoD
    h2d_before = db.One("SELECT count(*) FROM gpu_op WHERE category = 'HtoD'");
    ops_before = db.One("SELECT count(*) FROM gpu_op");
  }
  ASSERT_NE(h2d_before, "0");
  ReportOptions o;
  o.traces = {copy};
  o.save = true;
  std::ostringstream out, err;
  ASSERT_TRUE(RunReport(o, out, err).ok()) << err.str();
  {
    Db db(copy);
    EXPECT_EQ(db.One("PRAGMA user_version"), std::to_string(schema::Version()));
    EXPECT_EQ(db.One("SELECT value FROM metadata WHERE key = 'schema_version'"), std::to_string(schema::Version()));
    EXPECT_EQ(db.One("SELECT count(*) FROM gpu_op WHERE category = 'H2D'"), h2d_before);
    EXPECT_EQ(db.One("SELECT count(*) FROM gpu_op"), ops_before);
    EXPECT_EQ(db.One("SELECT name FROM enum_copy_kind WHERE value = 2"), "D2H");
    EXPECT_EQ(db.One("SELECT count(*) FROM gpu_op_with_api WHERE category = 'H2D' AND api_id IS NOT NULL"), h2d_before);
  }
  auto models = LoadTraceFile(copy);
  ASSERT_TRUE(models.ok()) << models.status();
  // A second save finds nothing to upgrade and changes nothing else.
  std::ostringstream out2, err2;
  ASSERT_TRUE(RunReport(o, out2, err2).ok()) << err2.str();
  EXPECT_EQ(Db(copy).One("SELECT count(*) FROM gpu_op WHERE category = 'H2D'"), h2d_before);
  fs::remove(copy);
}

// Saved analysis tables are outside the trace schema: a save by an older
// streamscope (columns detail, stream_a) loads, and the next save replaces
// those tables with today's names.
TEST(SchemaVersion, AnOlderSaveStillLoadsAndTheNextSaveRenamesItsColumns) {
  std::string copy = testing::TempTracePath("vocabulary_old_save");
  fs::copy_file("tests/data/racy.sqlite", copy, fs::copy_options::overwrite_existing);
  ReportOptions o;
  o.traces = {copy};
  o.save = true;
  std::ostringstream out, err;
  ASSERT_TRUE(RunReport(o, out, err).ok()) << err.str();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(copy.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db,
                         "ALTER TABLE analysis_hazard RENAME COLUMN op_a_stream_id TO stream_a;"
                         "ALTER TABLE analysis_gap_causes RENAME COLUMN api_name TO detail;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  auto models = LoadTraceFile(copy);
  ASSERT_TRUE(models.ok()) << models.status();
  std::ostringstream out2, err2;
  ASSERT_TRUE(RunReport(o, out2, err2).ok()) << err2.str();
  std::vector<std::string> hazard = Db(copy).Columns("analysis_hazard");
  EXPECT_EQ(std::count(hazard.begin(), hazard.end(), "stream_a"), 0);
  EXPECT_EQ(std::count(hazard.begin(), hazard.end(), "op_a_stream_id"), 1);
  std::vector<std::string> causes = Db(copy).Columns("analysis_gap_causes");
  EXPECT_EQ(std::count(causes.begin(), causes.end(), "detail"), 0);
  EXPECT_EQ(std::count(causes.begin(), causes.end(), "api_name"), 1);
  fs::remove(copy);
}

TEST(SchemaVersion, AConvertedTraceHasTheNewVersionAndItsViewsSayH2D) {
  auto models = LoadTraceFile("tests/data/nsys/vecadd-um-a100.sqlite");
  ASSERT_TRUE(models.ok()) << models.status();
  std::string out = testing::TempTracePath("vocabulary_converted");
  TraceWriteOptions w;
  w.overwrite = true;
  ASSERT_TRUE(WriteStreamscopeTrace((*models)[0], out, w).ok());
  Db db(out);
  EXPECT_EQ(db.One("PRAGMA user_version"), std::to_string(schema::Version()));
  EXPECT_EQ(db.One("SELECT value FROM metadata WHERE key = 'schema_version'"), std::to_string(schema::Version()));
  EXPECT_NE(db.One("SELECT count(*) FROM gpu_op WHERE category = 'H2D'"), "0");
  auto reloaded = LoadTraceFile(out);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_EQ((*reloaded)[0].ops.size(), (*models)[0].ops.size());
  fs::remove(out);
}

}  // namespace
}  // namespace streamscope

namespace streamscope {
namespace {

// Kernel names are recorded mangled; every text shows them demangled and
// whole names are cut at the end, never in the middle, while JSON and CSV
// keep the recorded name beside the demangled one.
TEST(KernelNames, TextShowsThemDemangledAndDataKeepsTheMangledName) {
  const std::string trace = "tests/data/collector_known_ops.sqlite";
  for (const std::string& text :
       {Report(trace, ReportOptions::Format::kText), Diagnose(trace, DiagnoseCommandOptions::Format::kText)}) {
    EXPECT_EQ(text.find("_Z6k_ptdsPfi"), std::string::npos) << text;
    EXPECT_NE(text.find("k_ptds(float*, int)"), std::string::npos) << text;
  }
  nlohmann::json j = nlohmann::json::parse(Report(trace, ReportOptions::Format::kJson));
  const std::string dumped = j.dump();
  EXPECT_NE(dumped.find("\"mangled_name\":\"_Z6k_ptdsPfi\""), std::string::npos);
  EXPECT_NE(dumped.find("\"name\":\"k_ptds(float*, int)\""), std::string::npos);
  EXPECT_EQ(dumped.find("\"name\":\"_Z6k_ptdsPfi\""), std::string::npos);
}

TEST(KernelNames, LaunchStatisticsNeverShowANegativeQueueDelay) {
  for (const std::string& t : BundledSqliteTraces({"tests/data", "tests/data/nsys", "tests/data/old_schema"})) {
    if (t.find("/nsys/") != std::string::npos) continue;
    const std::string text = Report(t, ReportOptions::Format::kText);
    EXPECT_EQ(text.find("queue -"), std::string::npos) << t;
  }
}

}  // namespace
}  // namespace streamscope
