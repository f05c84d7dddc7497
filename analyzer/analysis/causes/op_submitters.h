// The API call that submitted each GPU op.
//
// A thin view over TraceModel::ApiForOp: the model's correlation index is a
// flat table for CUPTI's dense correlation ids, so the lookup is two loads
// and needs no per-analysis copy (three analyses used to build one table of
// one entry per op each). Thread-safe to read; the model must outlive it.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_OP_SUBMITTERS_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_OP_SUBMITTERS_H_

#include <cstdint>

#include "analyzer/model/trace_model.h"

namespace streamscope {

class OpSubmitters {
 public:
  // `model` must be finalized.
  explicit OpSubmitters(const TraceModel& model) : model_(model) {}
  // API index of the call that submitted op `op`, or -1.
  int32_t operator[](size_t op) const { return model_.ApiForOp(op); }

 private:
  const TraceModel& model_;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_OP_SUBMITTERS_H_
