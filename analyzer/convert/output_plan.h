// Which files `streamscope convert` writes: one streamscope trace per
// process, named from the -o pattern ("%p" = pid). Decided before anything
// is written, so a refusal leaves no partial output. Pure apart from lstat.
#ifndef STREAMSCOPE_ANALYZER_CONVERT_OUTPUT_PLAN_H_
#define STREAMSCOPE_ANALYZER_CONVERT_OUTPUT_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace streamscope {

// One path per pid. INVALID_ARGUMENT if several processes and the pattern
// has no "%p" (or names collide); ALREADY_EXISTS if an output exists and
// !overwrite.
absl::StatusOr<std::vector<std::string>> PlanConvertOutputs(const std::vector<int64_t>& pids,
                                                            const std::string& pattern, bool overwrite);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_CONVERT_OUTPUT_PLAN_H_
