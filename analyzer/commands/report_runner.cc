#include "analyzer/commands/report_runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/base/threads.h"
#include "analyzer/commands/command_status.h"
#include "analyzer/commands/progress.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/pipeline/analysis_plan.h"
#include "analyzer/pipeline/phase_timer.h"
#include "analyzer/pipeline/prepared_trace.h"
#include "analyzer/pipeline/ranks.h"
#include "analyzer/pipeline/run_plan.h"
#include "analyzer/render/csv_writer.h"
#include "analyzer/render/instances_render.h"
#include "analyzer/render/render_options.h"
#include "analyzer/render/report_render.h"
#include "analyzer/render/trace_summary_render.h"
#include "analyzer/render/window_label.h"
#include "analyzer/storage/analysis_saver.h"

namespace streamscope {
namespace {

// Whether `path` may receive the report: never one of the input traces,
// an existing file only when `force`.
absl::Status CheckOutputTarget(const std::string& path, const std::vector<std::string>& inputs, bool force) {
  struct stat out_st;
  if (stat(path.c_str(), &out_st) != 0) return absl::OkStatus();
  for (const std::string& in : inputs) {
    struct stat in_st;
    if (stat(in.c_str(), &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
      return absl::AlreadyExistsError(absl::StrCat(path, ": is one of the input traces; refusing to overwrite it"));
    }
  }
  if (!force) return absl::AlreadyExistsError(absl::StrCat(path, ": exists; pass --force to replace it"));
  return absl::OkStatus();
}

// Writes `text` to `path`: never follows a symlink, never writes over one
// of the input traces, replaces an existing file only when `force`.
absl::Status WriteOutputFile(const std::string& path, const std::string& text, const std::vector<std::string>& inputs,
                             bool force) {
  if (absl::Status s = CheckOutputTarget(path, inputs, force); !s.ok()) return s;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | (force ? O_TRUNC : O_EXCL) | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST) {
    return absl::AlreadyExistsError(absl::StrCat(path, ": exists; pass --force to replace it"));
  }
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

// Loads one file and analyzes each of its processes into `out`. Marks
// phases only when `timed` (the phase timer is one per process, not per
// thread).
absl::Status AnalyzeFile(const std::string& path, const ReportOptions& options, const AnalysisPlan& plan, bool timed,
                         std::vector<TraceAnalysis>& out) {
  auto mark = [timed](const char* phase) {
    if (timed) MarkPhase(phase);
  };
  mark("start");
  if (timed) ProgressPhase("loading " + path);
  auto models = LoadTraceFile(path);
  if (!models.ok()) return models.status();
  mark("load");
  for (TraceModel& model : *models) {
    TraceAnalysis t;
    t.model = std::move(model);
    t.windows_are_steps = options.window.kind == WindowSpec::Kind::kNvtxRange && !options.window.nvtx_instance;
    TracePreparation what;
    what.summary = what.default_window = true;
    what.windows = &options.window;
    what.hazards = NeedsHazards(plan);
    what.dependency_graph_facts = plan.threads && NeedsDependencyGraph(plan);
    absl::StatusOr<PreparedTrace> prepared = PrepareTrace(t.model, what);
    if (!prepared.ok()) return prepared.status();
    t.summary = std::move(prepared->summary);
    t.default_window = std::move(prepared->default_window);
    mark("summary");
    const std::vector<Window>& windows = prepared->windows;
    const TraceHazards& hazards = prepared->hazards;
    // Text over many instances keeps only what its summary prints.
    const bool summarize =
        options.format == ReportOptions::Format::kText && !options.save && windows.size() > kFullTextWindows;
    // The instances' main findings print only in a summarized text.
    AnalysisPlan window_plan = plan;
    if (!summarize) window_plan.ranking_shown.primary = false;
    int64_t done = 0;
    for (const Window& w : windows) {
      if (timed) {
        ProgressPhase("analyzing " + path, done, windows.size() > 1 ? static_cast<int64_t>(windows.size()) : 0);
      }
      window_plan.last_window = ++done == static_cast<int64_t>(windows.size());
      absl::StatusOr<WindowResults> analysis = RunPlan(t.model, w, window_plan, &hazards);
      if (!analysis.ok()) return analysis.status();
      t.Add(*std::move(analysis), summarize);
    }
    out.push_back(std::move(t));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunReport(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  if (options.traces.empty()) return UsageError("report needs at least one trace file");
  if (options.jobs < 1) return UsageError("report: --jobs must be at least 1");
  if (!options.output_path.empty() && !options.output_is_folder) {  // refuse before the (long) load
    if (absl::Status s = CheckOutputTarget(options.output_path, options.traces, options.force); !s.ok()) return s;
  }
  const std::vector<std::string>& known = ReportSectionNames();
  for (const std::string& name : options.sections) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return UsageError(
          absl::StrCat("report: no section named '", name, "' (sections: ", absl::StrJoin(known, ", "), ")"));
    }
  }
  if (!options.sections.empty() && options.save) {
    return UsageError("report: --save writes every analysis table; it does not take --section or --summary");
  }
  // Sections restrict what is computed as well as what is written.
  const AnalysisPlan plan = ReportPlan(options.format == ReportOptions::Format::kCsv || options.save, options.top,
                                       options.gap_threshold_ns, options.sections);
  // One slot per file, filled by `jobs` threads; read in argument order, so
  // the result (and the first error reported) do not depend on --jobs.
  const size_t files = options.traces.size();
  std::vector<std::vector<TraceAnalysis>> per_file(files);
  std::vector<absl::Status> status(files);
  const size_t threads = std::min(files, static_cast<size_t>(options.jobs));
  if (threads <= 1) {
    for (size_t i = 0; i < files; ++i) {
      status[i] = AnalyzeFile(options.traces[i], options, plan, true, per_file[i]);
      if (!status[i].ok()) return status[i];
    }
  } else {
    std::atomic<size_t> next{0};
    TaskThreads pool;
    for (size_t k = 0; k < threads; ++k) {
      pool.Start([&] {
        for (size_t i = next++; i < files; i = next++) {
          status[i] = AnalyzeFile(options.traces[i], options, plan, false, per_file[i]);
        }
      });
    }
    pool.Join();
    for (const absl::Status& s : status) {
      if (!s.ok()) return s;
    }
    MarkPhase("analyze");
  }
  std::vector<TraceAnalysis> traces;
  for (std::vector<TraceAnalysis>& list : per_file) {
    for (TraceAnalysis& t : list) traces.push_back(std::move(t));
  }
  ProgressIdle();
  for (const TraceAnalysis& t : traces) {
    NoteClippedWindows(t.model, t.window_list, err);
    for (const std::string& w : TraceSummaryWarnings(t.summary))
      err << "streamscope: " << t.model.path << ": warning: " << w << "\n";
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

  // Many traces: their cross-rank merge, for the combined section of text
  // and JSON.
  std::optional<CrossRankResult> ranks;
  if (traces.size() > 1 && SectionShown(options.sections, "combined") &&
      options.format != ReportOptions::Format::kCsv) {
    std::vector<RankInput> inputs;
    for (const TraceAnalysis& t : traces) inputs.push_back({&t.model, t.window_list, t.windows_are_steps});
    absl::StatusOr<CrossRankResult> merged = RunCrossRank(inputs, options.top);
    if (!merged.ok()) return merged.status();
    ranks = *std::move(merged);
  }
  const CrossRankResult* ranks_shown = ranks ? &*ranks : nullptr;
  RenderOptions render;
  render.top = options.top;
  std::ostringstream buffer;
  std::ostream& sink = options.output_path.empty() ? out : buffer;
  switch (options.format) {
    case ReportOptions::Format::kText:
      RenderReportText(traces, render, sink, ReportTextOptions{options.sections, options.window, ranks_shown});
      break;
    case ReportOptions::Format::kJson:
      RenderReportJson(traces, {options.window, options.gap_threshold_ns, options.top, options.sections, ranks_shown},
                       render, sink);
      break;
    case ReportOptions::Format::kCsv:
      if (options.output_is_folder) {  // a folder, one file per table (csv_writer.h)
        std::vector<std::vector<ResultTable>> tables;
        for (const TraceAnalysis& t : traces) tables.push_back(ReportTables(t, options.sections));
        absl::Status s = WriteCsvFolder(options.output_path, tables, options.force);
        if (!s.ok()) return s;
        MarkPhase("render");
        return absl::OkStatus();
      }
      RenderReportCsv(traces, sink, options.sections);
      break;
  }
  if (!options.output_path.empty()) {
    absl::Status s = WriteOutputFile(options.output_path, buffer.str(), options.traces, options.force);
    if (!s.ok()) return s;
  }
  MarkPhase("render");
  return absl::OkStatus();
}

}  // namespace streamscope
