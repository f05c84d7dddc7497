// Runs a step with the analyzer's threads on or off (STREAMSCOPE_THREADS),
// for tests that check a step gives the same on one thread as on several.
#ifndef STREAMSCOPE_TESTS_ANALYZER_BASE_ANALYZER_THREADS_ENV_H_
#define STREAMSCOPE_TESTS_ANALYZER_BASE_ANALYZER_THREADS_ENV_H_

#include <stdlib.h>

#include <cstdint>

#include "analyzer/base/threads.h"

namespace streamscope::testing {

// Returns f() run with threads on (STREAMSCOPE_THREADS unset) or off (set
// to 1), and leaves the variable unset; `started`, when not null, gets how
// many threads TaskThreads started meanwhile.
template <typename F>
auto WithAnalyzerThreads(bool on, F&& f, int64_t* started = nullptr) {
  if (on) {
    unsetenv("STREAMSCOPE_THREADS");
  } else {
    setenv("STREAMSCOPE_THREADS", "1", 1);
  }
  const int64_t before = TaskThreads::Started();
  auto result = f();
  if (started != nullptr) *started = TaskThreads::Started() - before;
  unsetenv("STREAMSCOPE_THREADS");
  return result;
}

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_BASE_ANALYZER_THREADS_ENV_H_
