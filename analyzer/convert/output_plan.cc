#include "analyzer/convert/output_plan.h"

#include <sys/stat.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/convert/converted_trace_writer.h"

namespace streamscope {

absl::StatusOr<std::vector<std::string>> PlanConvertOutputs(const std::vector<int64_t>& pids,
                                                            const std::string& pattern, bool overwrite) {
  if (pids.size() > 1 && pattern.find("%p") == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("the input holds ", pids.size(), " processes (pids ", absl::StrJoin(pids, ", "),
                     ") and a streamscope trace holds one: give -o a name with %p, e.g. -o 'out-%p.sqlite', "
                     "to write one trace per process"));
  }
  std::vector<std::string> outputs;
  std::set<std::string> distinct;
  for (int64_t pid : pids) {
    outputs.push_back(ExpandOutputPattern(pattern, pid));
    if (!distinct.insert(outputs.back()).second) {
      return absl::InvalidArgumentError(absl::StrCat("output names collide (", outputs.back(), "); use %p in -o"));
    }
    struct stat st;
    if (!overwrite && lstat(outputs.back().c_str(), &st) == 0) {
      return absl::AlreadyExistsError(absl::StrCat(outputs.back(), ": exists; pass --force to replace it"));
    }
  }
  return outputs;
}

}  // namespace streamscope
