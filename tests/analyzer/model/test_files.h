// Reading a file the code under test wrote, whole.
#ifndef STREAMSCOPE_TESTS_ANALYZER_MODEL_TEST_FILES_H_
#define STREAMSCOPE_TESTS_ANALYZER_MODEL_TEST_FILES_H_

#include <fstream>
#include <iterator>
#include <string>

namespace streamscope::testing {

// The file's bytes; empty when it cannot be opened.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_MODEL_TEST_FILES_H_
