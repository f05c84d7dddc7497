// Helpers for the export tests: a fixture trace in a temporary folder, and
// a parsed Chrome trace-event document indexed by track.
#ifndef STREAMSCOPE_TESTS_ANALYZER_EXPORT_EXPORT_TEST_UTIL_H_
#define STREAMSCOPE_TESTS_ANALYZER_EXPORT_EXPORT_TEST_UTIL_H_

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/importers/trace_loader.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/analyzer/export/export_fixture_trace.h"
#include "tests/analyzer/model/test_files.h"

namespace streamscope::testing {

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() / ("streamscope_export_" + std::to_string(getpid()) + "_" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Writes and loads the fixture trace.
inline TraceModel LoadFixture(const TempDir& dir, const FixtureOptions& options = {},
                              const std::string& name = "fixture.sqlite") {
  std::string path = dir / name;
  std::string error = WriteFixtureTrace(path, options);
  EXPECT_EQ(error, "");
  auto models = LoadTraceFile(path);
  EXPECT_TRUE(models.ok()) << models.status();
  EXPECT_EQ(models->size(), 1u);
  return std::move(models->front());
}

// Integer nanoseconds of a "ts"/"dur" value written with three decimals.
inline int64_t Ns(const nlohmann::json& micros) { return std::llround(micros.get<double>() * 1000.0); }

struct Track {
  std::string name;
  std::vector<const nlohmann::json*> slices;  // ph X
};

struct ParsedTrace {
  nlohmann::json doc;
  std::map<int64_t, std::string> process_names;
  std::map<std::pair<int64_t, int64_t>, Track> tracks;  // (pid, tid)
  std::vector<const nlohmann::json*> flow_starts, flow_ends, instants;

  // Tracks whose name starts with `prefix`.
  std::vector<const Track*> TracksNamed(const std::string& prefix) const {
    std::vector<const Track*> out;
    for (const auto& [key, t] : tracks) {
      if (t.name.rfind(prefix, 0) == 0) out.push_back(&t);
    }
    return out;
  }
};

inline ParsedTrace ParseTraceEvents(const std::string& text) {
  ParsedTrace p;
  p.doc = nlohmann::json::parse(text);
  for (const nlohmann::json& e : p.doc.at("traceEvents")) {
    std::string ph = e.at("ph");
    int64_t pid = e.at("pid"), tid = e.at("tid");
    if (ph == "M" && e.at("name") == "process_name") p.process_names[pid] = e.at("args").at("name");
    if (ph == "M" && e.at("name") == "thread_name") p.tracks[{pid, tid}].name = e.at("args").at("name");
    if (ph == "X") p.tracks[{pid, tid}].slices.push_back(&e);
    if (ph == "s") p.flow_starts.push_back(&e);
    if (ph == "f") p.flow_ends.push_back(&e);
    if (ph == "i") p.instants.push_back(&e);
  }
  return p;
}

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_EXPORT_EXPORT_TEST_UTIL_H_
