#include "analyzer/commands/diagnose_runner.h"

#include <algorithm>
#include <utility>

#include "analyzer/analysis/trace_summary.h"
#include "analyzer/commands/command_status.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/pipeline/analysis_plan.h"
#include "analyzer/pipeline/run_plan.h"
#include "analyzer/render/diagnose_render.h"
#include "analyzer/render/instances_render.h"
#include "nlohmann/json.hpp"

namespace streamscope {

absl::Status RunDiagnose(const DiagnoseCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (options.traces.empty()) return UsageError("diagnose needs a trace file");
  const AnalysisPlan plan = DiagnosePlan(options.diagnose);
  nlohmann::json traces = nlohmann::json::array();
  bool first = true;
  for (const std::string& path : options.traces) {
    auto models = LoadTraceFile(path);
    if (!models.ok()) return models.status();
    for (const TraceModel& model : *models) {
      std::vector<Window> windows;
      if (options.window_given) {
        auto w = ResolveWindows(model, options.window);
        if (!w.ok()) return w.status();
        windows = *w;
      } else {
        bool has_measured = false;
        for (const NvtxRange& r : model.nvtx_ranges) has_measured |= model.strings.Get(r.name) == "measured";
        if (has_measured) {
          WindowSpec spec;
          spec.kind = WindowSpec::Kind::kNvtxRange;
          spec.nvtx_name = "measured";
          auto w = ResolveWindows(model, spec);
          if (!w.ok()) return w.status();
          windows = *w;
        } else if (model.ops.size() > 0) {
          Window w;
          w.start_ns = model.ops.start_ns.front();
          w.end_ns = w.start_ns + 1;
          for (int64_t e : model.ops.end_ns) w.end_ns = std::max(w.end_ns, e);
          w.label = "whole GPU activity";
          windows.push_back(w);
        } else {
          windows.push_back(WholeTraceWindow(model));
        }
      }
      TraceSummary summary = SummarizeTrace(model);
      nlohmann::json wj = nlohmann::json::array();
      if (options.format == DiagnoseCommandOptions::Format::kText) {
        if (!first) out << "\n";
        RenderDiagnoseTraceHeader(model, summary, out);
        for (const std::string& w : summary.warnings) err << "streamscope: " << model.path << ": warning: " << w << "\n";
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
          RenderDiagnoseText(result, model, out);
        } else {
          wj.push_back(DiagnoseToJson(result, model));
        }
      }
      if (summarize) causes.Render(model, out);
      if (options.format == DiagnoseCommandOptions::Format::kJson) {
        traces.push_back(DiagnoseTraceJson(model, summary, std::move(wj)));
      }
    }
  }
  if (options.format == DiagnoseCommandOptions::Format::kJson) {
    RenderDiagnoseDocument(std::move(traces), out);
  }
  return absl::OkStatus();
}

}  // namespace streamscope
