// How a command runner's absl::Status says how it failed. Runners (this
// folder) return a Status; only analyzer/cli/ turns it into an exit code
// (cli/exit_codes.cc) and prints "streamscope: <message>" for it. This is
// the one place that defines the mapping:
//   OK                                  -> 0
//   a kind payload (below)              -> its kind's exit code:
//     usage                             -> 2  (bad command line)
//     verdict                           -> 10 (compare: not verified; the
//                                              message is empty, nothing is
//                                              printed for it)
//   otherwise by status code:
//     NOT_FOUND                         -> 3  (input file missing)
//     DATA_LOSS                         -> 4  (not a trace)
//     FAILED_PRECONDITION               -> 5  (schema version)
//     INVALID_ARGUMENT                  -> 6  (missing tables / bad value)
//     OUT_OF_RANGE                      -> 7  (window selects nothing)
//     ABORTED                           -> 8  (inconsistent trace)
//     PERMISSION_DENIED, ALREADY_EXISTS -> 9  (cannot write an output)
//     anything else                     -> 1
#ifndef STREAMSCOPE_ANALYZER_COMMANDS_COMMAND_STATUS_H_
#define STREAMSCOPE_ANALYZER_COMMANDS_COMMAND_STATUS_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace streamscope {

enum class CommandFailure { kUsage, kVerdictFailed };

// The payload's type URL; its value is "usage" or "verdict".
inline constexpr char kCommandFailurePayload[] = "streamscope/command-failure";

// INVALID_ARGUMENT with the usage kind: the command line is wrong.
absl::Status UsageError(absl::string_view message);
// FAILED_PRECONDITION with the verdict kind and no message: the command
// ran and wrote its output, and its verdict is negative.
absl::Status VerdictFailed();
// The kind a status carries, if any.
std::optional<CommandFailure> CommandFailureOf(const absl::Status& status);
// `status` with `prefix` in front of its message; code and kind kept.
absl::Status Prefixed(absl::string_view prefix, const absl::Status& status);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_COMMANDS_COMMAND_STATUS_H_
