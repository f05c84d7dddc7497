#include "analyzer/cli/exit_codes.h"

namespace streamscope {

int ExitCodeFor(const absl::Status& status) {
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

}  // namespace streamscope
