// OpSubmitters is header-only (a view over TraceModel::ApiForOp); this file
// keeps the library's source list stable.
#include "analyzer/analysis/causes/op_submitters.h"
