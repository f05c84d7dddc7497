// Helpers for the torch.profiler importer's tests: files in the test's
// temporary folder, plain or gzip. Header-only; not thread-safe.
#ifndef STREAMSCOPE_TESTS_ANALYZER_IMPORTERS_TORCH_TEST_UTIL_H_
#define STREAMSCOPE_TESTS_ANALYZER_IMPORTERS_TORCH_TEST_UTIL_H_

#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/analyzer/model/test_files.h"

namespace streamscope::testing {

// A hand-written Kineto trace with known answers (see its test).
inline constexpr char kSyntheticTorchTrace[] = "tests/data/torch/synthetic_two_streams.json";

inline std::string TempPath(const std::string& name) {
  static std::atomic<int> counter{0};
  return absl::StrCat(::testing::TempDir(), "/streamscope_torch_", getpid(), "_", counter++, "_", name);
}

inline void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

inline bool WriteGzip(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  bool ok =
      text.empty() || gzwrite(f, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size());
  return gzclose(f) == Z_OK && ok;
}

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_IMPORTERS_TORCH_TEST_UTIL_H_
