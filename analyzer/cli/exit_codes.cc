#include "analyzer/cli/exit_codes.h"

#include "analyzer/commands/command_status.h"

namespace streamscope {

int ExitCodeFor(const absl::Status& status) {
  if (std::optional<CommandFailure> kind = CommandFailureOf(status)) {
    return *kind == CommandFailure::kUsage ? kExitUsage : kExitVerdictFailed;
  }
  switch (status.code()) {
    case absl::StatusCode::kOk: return kExitOk;
    case absl::StatusCode::kNotFound: return kExitFileNotFound;
    case absl::StatusCode::kDataLoss: return kExitNotATrace;
    case absl::StatusCode::kFailedPrecondition: return kExitSchemaVersion;
    case absl::StatusCode::kInvalidArgument: return kExitMissingTables;
    case absl::StatusCode::kOutOfRange: return kExitWindowNotFound;
    case absl::StatusCode::kAborted: return kExitInconsistentTrace;
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kAlreadyExists: return kExitOutputError;
    default: return kExitFailure;
  }
}

int ExitWith(const absl::Status& status, std::ostream& err) {
  if (status.ok()) return kExitOk;
  if (!status.message().empty()) err << "streamscope: " << status.message() << "\n";
  return ExitCodeFor(status);
}

}  // namespace streamscope
