// make_export_trace OUT.sqlite [ITERATIONS] [--no-jitter] [--legacy-tail] [--sequential]: writes the export
// fixture trace (export_fixture_trace.h); 4 GPU ops per iteration, so
// 250000 iterations make a 1M-op trace for bench/export.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/analyzer/export/export_fixture_trace.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: make_export_trace OUT.sqlite [ITERATIONS] [--no-jitter] [--legacy-tail] [--sequential]\n");
    return 2;
  }
  streamscope::testing::FixtureOptions options;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-jitter") == 0) {
      options.jitter = false;
    } else if (std::strcmp(argv[i], "--sequential") == 0) {
      options.sequential = true;
    } else if (std::strcmp(argv[i], "--legacy-tail") == 0) {
      options.legacy_tail = true;
    } else {
      options.iterations = std::strtoll(argv[i], nullptr, 10);
      if (options.iterations <= 0) {
        std::fprintf(stderr, "make_export_trace: bad iteration count %s\n", argv[i]);
        return 2;
      }
    }
  }
  std::string error = streamscope::testing::WriteFixtureTrace(argv[1], options);
  if (!error.empty()) {
    std::fprintf(stderr, "make_export_trace: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
