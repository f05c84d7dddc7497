#include "analyzer/commands/report_runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "analyzer/analysis/hazards.h"
#include "analyzer/analysis/steady_state.h"
#include "analyzer/analysis/trace_summary.h"
#include "analyzer/commands/command_status.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/pipeline/analysis_plan.h"
#include "analyzer/pipeline/phase_timer.h"
#include "analyzer/pipeline/run_plan.h"
#include "analyzer/render/instances_render.h"
#include "analyzer/render/render_options.h"
#include "analyzer/render/csv_writer.h"
#include "analyzer/render/report_render.h"
#include "analyzer/storage/analysis_saver.h"

namespace streamscope {
namespace {

// Writes `text` to `path`: never follows a symlink, never writes over one
// of the input traces.
absl::Status WriteOutputFile(const std::string& path, const std::string& text,
                             const std::vector<std::string>& inputs) {
  struct stat out_st;
  if (stat(path.c_str(), &out_st) == 0) {
    for (const std::string& in : inputs) {
      struct stat in_st;
      if (stat(in.c_str(), &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
        return absl::AlreadyExistsError(absl::StrCat(path, ": is one of the input traces; refusing to overwrite it"));
      }
    }
  }
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot write the report: ", std::strerror(errno)));
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      close(fd);
      return absl::PermissionDeniedError(absl::StrCat(path, ": cannot write the report: ", std::strerror(e)));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot write the report: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunReport(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  if (options.traces.empty()) return UsageError("report needs at least one trace file");
  const AnalysisPlan plan = ReportPlan(options.format == ReportOptions::Format::kCsv || options.save, options.top,
                                       options.gap_threshold_ns);
  std::vector<TraceAnalysis> traces;
  for (const std::string& path : options.traces) {
    MarkPhase("start");
    auto models = LoadTraceFile(path);
    if (!models.ok()) return models.status();
    MarkPhase("load");
    for (TraceModel& model : *models) {
      TraceAnalysis t;
      t.model = std::move(model);
      t.summary = SummarizeTrace(t.model);
      if (options.window.kind == WindowSpec::Kind::kDefault) t.default_window = DefaultSteadyState(t.model);
      MarkPhase("summary");
      auto windows = ResolveWindows(t.model, options.window);
      if (!windows.ok()) return windows.status();
      TraceHazards hazards = PrepareHazards(t.model);
      // Text over many instances keeps only what its summary prints.
      const bool summarize = options.format == ReportOptions::Format::kText && !options.save &&
                             windows->size() > kFullTextWindows;
      for (const Window& w : *windows) {
        absl::StatusOr<WindowResults> analysis = RunPlan(t.model, w, plan, &hazards);
        if (!analysis.ok()) return analysis.status();
        t.Add(*std::move(analysis), summarize);
      }
      traces.push_back(std::move(t));
    }
  }
  for (const TraceAnalysis& t : traces) {
    for (const std::string& w : t.summary.warnings) err << "streamscope: " << t.model.path << ": warning: " << w << "\n";
  }

  if (options.save) {
    std::map<std::string, int> per_file;
    for (const TraceAnalysis& t : traces) ++per_file[t.model.path];
    for (const TraceAnalysis& t : traces) {
      if (per_file[t.model.path] > 1) {
        return absl::FailedPreconditionError(absl::StrCat(t.model.path, ": holds ", per_file[t.model.path],
                                                          " processes; --save needs one process per file "
                                                          "(convert it first)"));
      }
      absl::Status s = SaveAnalysisTables(t.model.path, ReportTables(t));
      if (!s.ok()) return s;
    }
    MarkPhase("save");
  }

  RenderOptions render;
  render.top = options.top;
  std::ostringstream buffer;
  std::ostream& sink = options.output_path.empty() ? out : buffer;
  switch (options.format) {
    case ReportOptions::Format::kText: RenderReportText(traces, render, sink); break;
    case ReportOptions::Format::kJson:
      RenderReportJson(traces, {options.window, options.gap_threshold_ns, options.top}, render, sink);
      break;
    case ReportOptions::Format::kCsv:
      if (!options.output_path.empty()) {  // a folder, one file per table (csv_writer.h)
        std::vector<std::vector<ResultTable>> tables;
        for (const TraceAnalysis& t : traces) tables.push_back(ReportTables(t));
        absl::Status s = WriteCsvFolder(options.output_path, tables, options.force);
        if (!s.ok()) return s;
        MarkPhase("render");
        return absl::OkStatus();
      }
      RenderReportCsv(traces, sink);
      break;
  }
  if (!options.output_path.empty()) {
    absl::Status s = WriteOutputFile(options.output_path, buffer.str(), options.traces);
    if (!s.ok()) return s;
  }
  MarkPhase("render");
  return absl::OkStatus();
}

}  // namespace streamscope
