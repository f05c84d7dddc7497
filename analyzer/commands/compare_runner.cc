#include "analyzer/commands/compare_runner.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "analyzer/commands/command_status.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/render/compare_render.h"

namespace streamscope {

absl::StatusOr<TraceModel> LoadSingleProcessTrace(const std::string& path) {
  auto models = LoadTraceFile(path);
  if (!models.ok()) return models.status();
  int with_ops = 0, chosen = 0;
  for (size_t i = 0; i < models->size(); ++i) {
    if ((*models)[i].ops.size() > 0) {
      with_ops += 1;
      chosen = static_cast<int>(i);
    }
  }
  if (with_ops > 1) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": holds ", with_ops,
                     " processes with GPU work; compare needs one per file (split it with "
                     "streamscope convert)"));
  }
  if (models->empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": holds no process"));
  return std::move((*models)[chosen]);
}

absl::Status RunCompare(const CompareCommandOptions& options, std::ostream& out) {
  if (options.control.empty() || options.variant.empty()) {
    return UsageError("compare needs at least one control and one variant trace (CONTROL... -- VARIANT...)");
  }
  std::vector<std::unique_ptr<TraceModel>> models;
  std::vector<const TraceModel*> control, variant;
  for (int side = 0; side < 2; ++side) {
    for (const std::string& path : side == 0 ? options.control : options.variant) {
      auto m = LoadSingleProcessTrace(path);
      if (!m.ok()) return m.status();
      models.push_back(std::make_unique<TraceModel>(std::move(*m)));
      (side == 0 ? control : variant).push_back(models.back().get());
    }
  }
  auto result = Compare(control, variant, options.compare);
  if (!result.ok()) return result.status();
  if (options.format == CompareCommandOptions::Format::kJson) {
    out << CompareToJson(*result).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
        << "\n";  // names may not be UTF-8
  } else {
    RenderCompareText(*result, out);
  }
  return result->verdict == CompareVerdict::kVerified ? absl::OkStatus() : VerdictFailed();
}

}  // namespace streamscope
