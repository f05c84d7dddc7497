// One trace format behind one small interface: recognise a file by its
// content, import it into models. trace_loader.cc holds the one registry of
// formats (streamscope/, nsys/, torch/) and tries them in order.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_TRACE_IMPORTER_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_TRACE_IMPORTER_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analyzer/importers/trace_file.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

class TraceImporter {
 public:
  virtual ~TraceImporter() = default;

  // True if `file` is in this format (by content, never by name). A file
  // that is not readable is no format's.
  virtual bool Recognizes(TraceFile& file) const = 0;
  // The file's models, one per process, not yet finalized (the loader sets
  // their path and finalizes them). Called only for a recognized file.
  virtual absl::StatusOr<std::vector<TraceModel>> Import(TraceFile& file) const = 0;
  // Fills model->kernel_shapes (one per op) for a model this format made
  // from `file`; a format that records no shapes leaves them empty.
  virtual absl::Status AddKernelShapes(TraceFile& file, TraceModel* model) const {
    (void)file;
    (void)model;
    return absl::OkStatus();
  }
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_TRACE_IMPORTER_H_
