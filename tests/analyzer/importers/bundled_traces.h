// The traces bundled with the repository, for tests that check a property on
// every one of them. Paths are relative to the repository root, the tests'
// working directory.
#ifndef STREAMSCOPE_TESTS_ANALYZER_IMPORTERS_BUNDLED_TRACES_H_
#define STREAMSCOPE_TESTS_ANALYZER_IMPORTERS_BUNDLED_TRACES_H_

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace streamscope::testing {

// The files in `folders` whose names end in one of `suffixes`, sorted. A
// missing folder holds none.
inline std::vector<std::string> TraceFilesIn(std::initializer_list<std::string_view> folders,
                                             std::initializer_list<std::string_view> suffixes) {
  std::vector<std::string> out;
  for (std::string_view folder : folders) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(folder), ec)) {
      const std::string name = e.path().filename().string();
      for (std::string_view s : suffixes) {
        if (name.size() > s.size() && name.ends_with(s)) {
          out.push_back(e.path().string());
          break;
        }
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every bundled trace the importers read: streamscope's recordings (of the
// reference workloads and of NVIDIA's samples), the Nsight Systems exports
// and the torch.profiler traces (SQLite, JSON, gzip).
inline std::vector<std::string> BundledTraces() {
  return TraceFilesIn({"tests/data", "tests/data/nsys", "tests/data/torch", "tests/data/samples"},
                      {".sqlite", ".json.gz", ".json"});
}

// The bundled SQLite traces of `folders` (streamscope's and converted ones).
inline std::vector<std::string> BundledSqliteTraces(std::initializer_list<std::string_view> folders = {
                                                        "tests/data", "tests/data/nsys", "tests/data/torch",
                                                        "tests/data/samples"}) {
  return TraceFilesIn(folders, {".sqlite"});
}

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_IMPORTERS_BUNDLED_TRACES_H_
