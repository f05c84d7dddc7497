// Placeholder until the Nsight Systems importer lands (issue 9): detection
// says "no", so such files get the loader's "neither format" error.
#include "analyzer/importers/nsys_export_importer.h"

namespace streamscope {

bool LooksLikeNsysExport(SqliteDb&) { return false; }

absl::StatusOr<std::vector<TraceModel>> ImportNsysExport(SqliteDb&) {
  return absl::UnimplementedError("Nsight Systems exports are not supported yet");
}

}  // namespace streamscope
