// `streamscope upgrade`: brings a streamscope trace of an older schema
// version to this build's, in place (schema::UpgradeSql: enumeration names,
// views and both version stamps; no table or row changes, so no analysis
// result changes). Not thread-safe per file.
#ifndef STREAMSCOPE_ANALYZER_STORAGE_TRACE_UPGRADE_H_
#define STREAMSCOPE_ANALYZER_STORAGE_TRACE_UPGRADE_H_

#include <string>

#include "absl/status/statusor.h"

namespace streamscope {

struct TraceUpgrade {
  int from_version = 0;
  int to_version = 0;  // == from_version when there was nothing to do
};

// Upgrades the trace at `path` in one transaction. NOT_FOUND: no such file;
// INVALID_ARGUMENT: not a streamscope trace (an Nsight Systems export, a
// torch.profiler trace: `streamscope convert` writes those as traces);
// FAILED_PRECONDITION: a version this build cannot read (older than the
// oldest readable one, or newer than this build); PERMISSION_DENIED: the
// file cannot be written (a symlink is refused). The trace is left unchanged
// on any error.
absl::StatusOr<TraceUpgrade> UpgradeTraceInPlace(const std::string& path);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_STORAGE_TRACE_UPGRADE_H_
