#include "analyzer/commands/command_status.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/types/optional.h"

namespace streamscope {
namespace {

absl::Status WithKind(absl::Status status, absl::string_view kind) {
  status.SetPayload(kCommandFailurePayload, absl::Cord(kind));
  return status;
}

}  // namespace

absl::Status UsageError(absl::string_view message) { return WithKind(absl::InvalidArgumentError(message), "usage"); }

absl::Status VerdictFailed() { return WithKind(absl::FailedPreconditionError(""), "verdict"); }

std::optional<CommandFailure> CommandFailureOf(const absl::Status& status) {
  absl::optional<absl::Cord> kind = status.GetPayload(kCommandFailurePayload);
  if (!kind) return std::nullopt;
  if (*kind == "usage") return CommandFailure::kUsage;
  if (*kind == "verdict") return CommandFailure::kVerdictFailed;
  return std::nullopt;
}

absl::Status Prefixed(absl::string_view prefix, const absl::Status& status) {
  if (status.ok()) return status;
  absl::Status out(status.code(), absl::StrCat(prefix, status.message()));
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& value) { out.SetPayload(url, value); });
  return out;
}

}  // namespace streamscope
