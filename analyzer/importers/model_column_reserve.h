// Room for n rows in every column of a model's GPU ops or API calls, for the
// importers that know their row counts before reading (one allocation per
// column instead of a doubling series).
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_MODEL_COLUMN_RESERVE_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_MODEL_COLUMN_RESERVE_H_

#include <cstddef>

#include "analyzer/model/trace_model.h"

namespace streamscope {

inline void ReserveOpColumns(GpuOps& ops, size_t n) {
  ops.start_ns.reserve(n);
  ops.end_ns.reserve(n);
  ops.category.reserve(n);
  ops.device_id.reserve(n);
  ops.stream.reserve(n);
  ops.correlation_id.reserve(n);
  ops.name.reserve(n);
  ops.bytes.reserve(n);
  ops.src_kind.reserve(n);
  ops.dst_kind.reserve(n);
  ops.is_async.reserve(n);
  ops.peer_device.reserve(n);
  ops.graph_id.reserve(n);
  ops.source_id.reserve(n);
}

inline void ReserveApiColumns(ApiCalls& api, size_t n) {
  api.start_ns.reserve(n);
  api.end_ns.reserve(n);
  api.tid.reserve(n);
  api.name.reserve(n);
  api.domain.reserve(n);
  api.cbid.reserve(n);
  api.correlation_id.reserve(n);
  api.return_value.reserve(n);
  api.source_id.reserve(n);
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_MODEL_COLUMN_RESERVE_H_
