// Kernel launch shapes (grid, block, registers, shared memory) for the
// exporters. The importers leave them out (no analysis needs them and they
// would cost every command memory and load time); the timeline exports add
// them to each kernel's args, so they read them afterwards, from the file the
// model was loaded from.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_KERNEL_SHAPES_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_KERNEL_SHAPES_H_

#include "absl/status/status.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// Fills model->kernel_shapes (one per op; zero for non-kernels and kernels
// without a recorded shape) from model->path: a streamscope trace's kernel
// table or an Nsight Systems export's CUPTI_ACTIVITY_KIND_KERNEL. Other
// files leave kernel_shapes empty. Errors if the file cannot be read.
absl::Status AddKernelShapes(TraceModel* model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_KERNEL_SHAPES_H_
