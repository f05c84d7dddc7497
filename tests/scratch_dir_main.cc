// The main() of every GoogleTest binary: runs the tests with TEST_TMPDIR and
// TMPDIR pointing at a folder of this process's own, and removes it when
// every test passed. Tests write traces, exports and CSV folders through
// ::testing::TempDir() and std::filesystem::temp_directory_path() (and the
// CLI they start inherits TMPDIR): without this, each run of the suite left
// thousands of files in /tmp. After a failure the folder is kept and named,
// so that what the failing test wrote can be inspected.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include "gtest/gtest.h"

namespace {

// A new folder under the caller's temporary folder ($TMPDIR or /tmp); empty
// when it cannot be made (the tests then use the caller's folder as before).
std::string MakeScratchDir() {
  const char* parent = getenv("TMPDIR");
  std::string tmpl = std::string(parent != nullptr && parent[0] != '\0' ? parent : "/tmp") + "/streamscope-test-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) return "";
  return tmpl;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const std::string scratch = MakeScratchDir();
  if (!scratch.empty()) {
    setenv("TEST_TMPDIR", scratch.c_str(), 1);
    setenv("TMPDIR", scratch.c_str(), 1);
  }
  const int result = RUN_ALL_TESTS();
  if (scratch.empty()) return result;
  if (result != 0) {
    std::fprintf(stderr, "streamscope tests: kept the scratch folder %s (a test failed)\n", scratch.c_str());
    return result;
  }
  std::error_code ignored;
  std::filesystem::remove_all(scratch, ignored);
  return result;
}
