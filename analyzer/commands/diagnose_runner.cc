#include "analyzer/commands/diagnose_runner.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <utility>

#include "analyzer/commands/command_status.h"
#include "analyzer/export/output_file.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/pipeline/analysis_plan.h"
#include "analyzer/pipeline/prepared_trace.h"
#include "analyzer/pipeline/run_plan.h"
#include "analyzer/render/diagnose_render.h"
#include "analyzer/render/instances_render.h"
#include "analyzer/render/steady_state_render.h"
#include "analyzer/render/text_layout.h"
#include "analyzer/render/trace_summary_render.h"
#include "analyzer/render/window_label.h"
#include "nlohmann/json.hpp"

namespace streamscope {

absl::Status RunDiagnose(const DiagnoseCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (options.traces.empty()) return UsageError("diagnose needs a trace file");
  // An existing output is refused before the (long) load.
  std::unique_ptr<OutputFile> file;
  if (!options.output_path.empty()) {
    absl::StatusOr<std::unique_ptr<OutputFile>> f = OutputFile::Create(options.output_path, options.force);
    if (!f.ok()) return f.status();
    file = *std::move(f);
  }
  std::ostringstream buffer;
  std::ostream& sink = file ? buffer : out;
  const AnalysisPlan plan = DiagnosePlan(options.diagnose);
  nlohmann::json traces = nlohmann::json::array();
  bool first = true;
  for (const std::string& path : options.traces) {
    auto models = LoadTraceFile(path);
    if (!models.ok()) return models.status();
    for (const TraceModel& model : *models) {
      // Text lines wrap at the report's width (text_layout.h), one process
      // at a time so that its diagnosis shows as soon as it is ready.
      std::ostringstream text;
      // Not given: the default window of every command (window.h, kDefault).
      TracePreparation what;
      what.summary = what.default_window = true;
      what.windows = &options.window;
      absl::StatusOr<PreparedTrace> prepared = PrepareTrace(model, what);
      if (!prepared.ok()) return prepared.status();
      const std::vector<Window>& windows = prepared->windows;
      NoteClippedWindows(model, windows, err);
      const TraceSummary& summary = prepared->summary;
      nlohmann::json wj = nlohmann::json::array();
      if (options.format == DiagnoseCommandOptions::Format::kText) {
        if (!first) text << "\n";
        RenderDiagnoseTraceHeader(model, summary, text);
        if (prepared->default_window) RenderDefaultWindowText(*prepared->default_window, model, text);
        for (const std::string& w : TraceSummaryWarnings(summary))
          err << "streamscope: " << model.path << ": warning: " << w << "\n";
      }
      first = false;
      // Text over many instances of an NVTX range: the causes across them,
      // then the instance whose primary cause costs most, in full.
      const bool summarize =
          options.format == DiagnoseCommandOptions::Format::kText && windows.size() > kFullTextWindows;
      InstanceCauses causes;
      for (const Window& w : windows) {
        absl::StatusOr<WindowResults> results = RunPlan(model, w, plan);
        if (!results.ok()) return results.status();
        DiagnoseResult result = std::move(results->diagnose);
        if (summarize) {
          causes.Add(std::move(result));
        } else if (options.format == DiagnoseCommandOptions::Format::kText) {
          RenderDiagnoseText(result, model, text);
        } else {
          wj.push_back(DiagnoseToJson(result, model));
        }
      }
      if (summarize) causes.Render(model, text);
      sink << WrapLines(text.str(), kReportTextColumns);
      if (options.format == DiagnoseCommandOptions::Format::kJson) {
        nlohmann::json tj = DiagnoseTraceJson(model, summary, std::move(wj));
        if (prepared->default_window) tj["default_window"] = SteadyStateToJson(*prepared->default_window, model);
        traces.push_back(std::move(tj));
      }
    }
  }
  if (options.format == DiagnoseCommandOptions::Format::kJson) {
    RenderDiagnoseDocument(std::move(traces), sink);
  }
  if (!file) return absl::OkStatus();
  file->Write(buffer.str());
  return file->Commit();
}

}  // namespace streamscope
