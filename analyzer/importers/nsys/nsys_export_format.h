// Nsight Systems SQLite exports as a TraceImporter: recognized by their
// tables (LooksLikeNsysExport), imported by ImportNsysExport
// (nsys_export_importer.h), one model per process.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_NSYS_EXPORT_FORMAT_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_NSYS_EXPORT_FORMAT_H_

#include "analyzer/importers/trace_importer.h"

namespace streamscope {

class NsysExportFormat final : public TraceImporter {
 public:
  bool Recognizes(TraceFile& file) const override;
  absl::StatusOr<std::vector<TraceModel>> Import(TraceFile& file) const override;
  // From CUPTI_ACTIVITY_KIND_KERNEL (AddNsysKernelShapes).
  absl::Status AddKernelShapes(TraceFile& file, TraceModel* model) const override;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_NSYS_EXPORT_FORMAT_H_
