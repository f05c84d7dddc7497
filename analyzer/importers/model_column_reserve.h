// Room for n rows in every column of a model's GPU ops or API calls, for the
// importers that know their row counts before reading (one allocation per
// column instead of a doubling series).
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_MODEL_COLUMN_RESERVE_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_MODEL_COLUMN_RESERVE_H_

#include <cstddef>

#include "analyzer/model/trace_model.h"

namespace streamscope {

inline void ReserveOpColumns(GpuOps& ops, size_t n) {
  ForEachOpColumn([n](auto& column) { column.reserve(n); }, ops);
}

inline void ReserveApiColumns(ApiCalls& api, size_t n) {
  ForEachApiColumn([n](auto& column) { column.reserve(n); }, api);
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_MODEL_COLUMN_RESERVE_H_
