// OpSubmitters is header-only (a view over TraceModel::ApiForOp); this file
// keeps the library's source list stable.
#include "analyzer/analysis/op_submitters.h"
