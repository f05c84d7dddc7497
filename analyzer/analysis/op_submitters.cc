#include "analyzer/analysis/op_submitters.h"

#include <algorithm>
#include <limits>

namespace streamscope {

OpSubmitters::OpSubmitters(const TraceModel& model) {
  const ApiCalls& api = model.api;
  const GpuOps& ops = model.ops;
  api_.assign(ops.size(), -1);
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = -1;
  for (int64_t c : api.correlation_id) {
    if (c < 0) continue;
    lo = std::min(lo, c);
    hi = std::max(hi, c);
  }
  if (hi < 0) return;  // no call has a correlation id
  // Dense enough for a table of at most a few entries per call.
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  if (span > 4 * static_cast<uint64_t>(api.size()) + 4096) {
    for (size_t i = 0; i < ops.size(); ++i) api_[i] = model.ApiForOp(i);
    return;
  }
  std::vector<int32_t> table(span, -1);
  for (size_t i = 0; i < api.size(); ++i) {
    int64_t c = api.correlation_id[i];
    if (c < 0) continue;
    int32_t& slot = table[static_cast<size_t>(c - lo)];
    // Same preference as TraceModel::Finalize: the first call, unless a
    // later one is the runtime call above a driver call.
    if (slot < 0 || (api.domain[i] == ApiDomain::kRuntime && api.domain[slot] != ApiDomain::kRuntime)) {
      slot = static_cast<int32_t>(i);
    }
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    int64_t c = ops.correlation_id[i];
    if (c >= lo && c <= hi) api_[i] = table[static_cast<size_t>(c - lo)];
  }
}

}  // namespace streamscope
