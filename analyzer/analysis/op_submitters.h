// The API call that submitted each GPU op, looked up once for all ops.
//
// TraceModel::ApiForOp is a hash lookup per op (a cache miss each on large
// traces). CUPTI correlation ids are small, nearly consecutive integers, so
// when they are dense a flat table indexed by correlation id gives the same
// answer (the runtime call preferred over the driver call, as in
// TraceModel::Finalize) at a fraction of the cost; otherwise it falls back
// to ApiForOp. Immutable after construction; thread-safe to read.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_OP_SUBMITTERS_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_OP_SUBMITTERS_H_

#include <cstdint>
#include <vector>

#include "analyzer/model/trace_model.h"

namespace streamscope {

class OpSubmitters {
 public:
  // `model` must be finalized.
  explicit OpSubmitters(const TraceModel& model);
  // API index of the call that submitted op `op`, or -1.
  int32_t operator[](size_t op) const { return api_[op]; }

 private:
  std::vector<int32_t> api_;  // one per op
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_OP_SUBMITTERS_H_
