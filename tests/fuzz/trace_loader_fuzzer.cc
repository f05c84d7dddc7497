// Fuzzes the trace loader and everything after it: fuzz input -> database
// file -> LoadTraceFile (analyzer/importers/trace_loader.h) -> `streamscope
// report` (every analysis; text, JSON, sometimes CSV and --save). An input
// starting with the SQLite header is the file itself; any other input is a
// program of edits to a real seed trace (trace_mutator.h).
//
// Invariants checked (abort = finding): no crash, hang, leak or UB (the
// sanitizers); every failure maps to a distinct exit code, never 1
// ("internal error"); a successful JSON report parses as JSON.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/cli/exit_codes.h"
#include "analyzer/commands/report_runner.h"
#include "analyzer/importers/trace_loader.h"
#include "nlohmann/json.hpp"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/trace_mutator.h"

namespace streamscope::fuzz {
namespace {

constexpr char kSqliteHeader[] = "SQLite format 3";  // with its NUL: 16 bytes

std::vector<SeedTrace>& Seeds() {
  static std::vector<SeedTrace> seeds;
  return seeds;
}

void Check(bool ok, const char* what, const std::string& detail) {
  if (ok) return;
  std::fprintf(stderr, "FUZZ INVARIANT BROKEN: %s: %s\n", what, detail.c_str());
  std::abort();
}

bool AllowedExitCode(int rc) {
  return rc == kExitOk || rc == kExitNotATrace || rc == kExitSchemaVersion || rc == kExitMissingTables ||
         rc == kExitWindowNotFound || rc == kExitInconsistentTrace;
}

// The report options an input asks for (its second byte and a few more).
ReportOptions OptionsFor(const std::string& path, FuzzInput& in) {
  ReportOptions options;
  options.traces = {path};
  uint8_t flags = in.Byte();
  switch (flags & 3) {
    case 0: break;
    case 1:
      options.window.kind = WindowSpec::Kind::kNvtxRange;
      options.window.nvtx_name = (flags & 4) ? in.String() : "measured";
      if (flags & 8) options.window.nvtx_instance = 1 + in.Byte() % 4;
      break;
    case 2:
      options.window.kind = WindowSpec::Kind::kExplicit;
      options.window.start_ns = in.Int64();
      options.window.end_ns = in.Int64();
      options.window.relative_to_trace_start = (flags & 4) != 0;
      break;
    default:
      options.window.kind = WindowSpec::Kind::kExplicit;
      options.window.start_ns = in.Byte() * int64_t{1000};
      options.window.end_ns = options.window.start_ns + 1 + in.Byte() * int64_t{100000};
      options.window.relative_to_trace_start = true;
  }
  options.gap_threshold_ns = (flags & 16) ? in.Byte() * int64_t{1000} : 10'000;
  options.top = (flags & 32) ? in.Byte() % 20 : 10;
  options.save = (flags & 64) != 0;
  return options;
}

void RunOneInput(const uint8_t* data, size_t size) {
  const std::string& path = ScratchPath("trace.sqlite");
  std::string file;
  FuzzInput in(data, size);
  if (size >= sizeof(kSqliteHeader) && std::memcmp(data, kSqliteHeader, sizeof(kSqliteHeader)) == 0) {
    file.assign(reinterpret_cast<const char*>(data), size);
    in = FuzzInput(nullptr, 0);  // default report options
  } else {
    if (Seeds().empty()) return;
    const SeedTrace& seed = Seeds()[in.Byte() % Seeds().size()];
    file = MutateTrace(seed, in);
  }
  WriteScratchFile(path, file);
  ReportOptions options = OptionsFor(path, in);

  auto models = LoadTraceFile(path);
  int load_rc = ExitCodeFor(models.status());
  Check(AllowedExitCode(load_rc), "loader status has no exit code of its own", models.status().ToString());

  // Text first (also runs --save when asked), then JSON on the same file.
  std::ostringstream out, err;
  int rc = ExitWith(RunReport(options, out, err), err);
  Check(AllowedExitCode(rc) || (options.save && rc == kExitOutputError), "report exit code", err.str());
  Check(models.ok() || rc != kExitOk, "report succeeded on a trace the loader rejected", err.str());

  options.save = false;
  options.format = ReportOptions::Format::kJson;
  std::ostringstream json_out, json_err;
  int json_rc = ExitWith(RunReport(options, json_out, json_err), json_err);
  Check(AllowedExitCode(json_rc), "JSON report exit code", json_err.str());
  if (json_rc == kExitOk) {
    Check(nlohmann::json::accept(json_out.str()), "JSON report is not valid JSON", json_out.str().substr(0, 200));
  }
  if (size % 4 == 0) {  // CSV now and then: it renders every table in full
    options.format = ReportOptions::Format::kCsv;
    std::ostringstream csv_out, csv_err;
    Check(AllowedExitCode(ExitWith(RunReport(options, csv_out, csv_err), csv_err)), "CSV report exit code",
          csv_err.str());
  }
}

}  // namespace
}  // namespace streamscope::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  streamscope::fuzz::InitScratch();
  streamscope::fuzz::Seeds() = streamscope::fuzz::LoadSeedTraces(streamscope::fuzz::SeedDir());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  streamscope::fuzz::RunOneInput(data, size);
  return 0;
}
