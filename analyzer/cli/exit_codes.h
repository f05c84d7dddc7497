// Exit codes of the `streamscope` CLI. Distinct per failure class so that
// scripts can tell bad input apart from analysis verdicts. Documented in
// README.md; never renumber.
#ifndef STREAMSCOPE_ANALYZER_CLI_EXIT_CODES_H_
#define STREAMSCOPE_ANALYZER_CLI_EXIT_CODES_H_

#include <ostream>

#include "absl/status/status.h"

namespace streamscope {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,            // internal error / unexpected
  kExitUsage = 2,              // bad command line
  kExitFileNotFound = 3,       // input file missing or unreadable
  kExitNotATrace = 4,          // not SQLite, truncated, corrupt
  kExitSchemaVersion = 5,      // older/newer/unknown schema or export version
  kExitMissingTables = 6,      // SQLite but not a trace we can read
  kExitWindowNotFound = 7,     // NVTX range / window selects nothing
  kExitInconsistentTrace = 8,  // records too inconsistent to analyze
  kExitOutputError = 9,        // cannot write an output file
  kExitVerdictFailed = 10,     // compare: optimization not verified
};

// Maps a command's Status to an exit code, as analyzer/commands/
// command_status.h defines (the one place that documents the mapping).
int ExitCodeFor(const absl::Status& status);

// What the CLI does with a command's result: prints "streamscope: <message>"
// to `err` for a failure that has a message, and returns ExitCodeFor.
int ExitWith(const absl::Status& status, std::ostream& err);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_CLI_EXIT_CODES_H_
