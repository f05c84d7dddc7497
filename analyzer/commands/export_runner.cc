#include "analyzer/commands/export_runner.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/base/threads.h"
#include "analyzer/base/units.h"
#include "analyzer/commands/command_status.h"
#include "analyzer/commands/progress.h"
#include "analyzer/export/html_report.h"
#include "analyzer/export/output_file.h"
#include "analyzer/export/perfetto_json_writer.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/timeline_window.h"
#include "analyzer/importers/kernel_shapes.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/pipeline/phase_timer.h"
#include "analyzer/pipeline/prepared_trace.h"
#include "analyzer/render/window_label.h"
#ifdef STREAMSCOPE_WITH_PERFETTO_PROTO
#include "analyzer/export/perfetto_proto_writer.h"
#endif

namespace streamscope {

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// What one trace's export draws and analyses.
struct ExportPlan {
  Window json_window, html_window;  // drawn
  Window view;                      // the analyses' window, which the page opens on
  Window analysis_window, json_analysis_window;
  AnalysisTracks json_tracks, html_tracks;
  std::string label;
  std::string json_note;  // what --max-ops left out of the timelines
};

struct ExportFiles {
  std::unique_ptr<OutputFile> json, html, proto;
};

using TimelineWriter = absl::Status (*)(std::span<const PerfettoTraceInput>, const PerfettoExportOptions&, OutputFile*,
                                        PerfettoExportStats*);

absl::Status CheckExportOptions(const ExportOptions& options, bool timeline) {
  if (!timeline && options.html_path.empty()) {
    return UsageError(
        "export: nothing to write: pass --perfetto OUT.json, --perfetto-proto OUT.pftrace and/or --html OUT.html");
  }
  if (!options.perfetto_path.empty() && options.perfetto_path == options.html_path) {
    return UsageError("export: --perfetto and --html name the same file");
  }
  if (!options.perfetto_proto_path.empty() &&
      (options.perfetto_proto_path == options.perfetto_path || options.perfetto_proto_path == options.html_path)) {
    return UsageError("export: --perfetto-proto names the same file as another output");
  }
#ifndef STREAMSCOPE_WITH_PERFETTO_PROTO
  if (!options.perfetto_proto_path.empty()) {
    return UsageError(
        "export: --perfetto-proto: this streamscope was built without protobuf "
        "(install libprotobuf-dev and protobuf-compiler: tools/install_deps.sh, then rebuild)");
  }
#endif
  return absl::OkStatus();
}

// Refuses unwritable outputs before the (long) load.
absl::Status OpenOutputs(const ExportOptions& options, ExportFiles* files) {
  for (auto [path, file] :
       {std::pair{&options.perfetto_path, &files->json}, std::pair{&options.html_path, &files->html},
        std::pair{&options.perfetto_proto_path, &files->proto}}) {
    if (path->empty()) continue;
    absl::StatusOr<std::unique_ptr<OutputFile>> f = OutputFile::Create(*path, options.overwrite);
    if (!f.ok()) return Prefixed("export: ", f.status());
    *file = std::move(*f);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TraceModel>> LoadExportedTraces(const ExportOptions& options) {
  std::vector<TraceModel> models;
  for (const std::string& path : options.traces) {
    ProgressPhase("loading " + path);
    absl::StatusOr<std::vector<TraceModel>> loaded = LoadTraceFile(path);
    if (!loaded.ok()) return Prefixed("export: ", loaded.status());
    for (TraceModel& m : *loaded) models.push_back(std::move(m));
  }
  // Kernel shapes are args of the exported kernels (the importers skip them).
  for (TraceModel& m : models) {
    if (absl::Status s = AddKernelShapes(&m); !s.ok()) return Prefixed("export: ", s);
  }
  return models;
}

// The page's summary of each trace (once per trace).
absl::StatusOr<std::vector<PreparedTrace>> SummarizeForPage(const std::vector<TraceModel>& models,
                                                            const ExportOptions& options) {
  std::vector<PreparedTrace> prepared_traces(models.size());
  if (options.html_path.empty()) return prepared_traces;
  TracePreparation what;
  what.summary = true;
  for (size_t i = 0; i < models.size(); ++i) {
    absl::StatusOr<PreparedTrace> t = PrepareTrace(models[i], what);
    if (!t.ok()) return Prefixed("export: ", t.status());
    prepared_traces[i] = *std::move(t);
  }
  return prepared_traces;
}

// The windows one trace's timelines and page draw, and the note of what
// --max-ops leaves out.
absl::StatusOr<ExportPlan> PlanWindows(const TraceModel& m, const ExportOptions& options, bool timeline, bool several,
                                       std::ostream& out) {
  absl::StatusOr<Window> w = ResolveExportWindow(m, options.window);
  if (!w.ok()) return Prefixed("export: ", w.status());
  NoteClippedWindows(m, {*w}, out);
  ExportPlan p;
  p.label = several ? absl::StrCat(m.path, " pid ", m.pid) : "";
  p.analysis_window = *w;
  bool whole =
      options.window.kind == WindowSpec::Kind::kWholeTrace || options.window.kind == WindowSpec::Kind::kDefault;
  p.view = *w;
  // The default window: draw the whole trace (and its host annotations)
  // around it, so that zooming out shows what lies outside it.
  if (whole) {
    Window all = WholeTraceWindow(m);
    if (all.length() > 0) {
      all.start_ns = std::min(all.start_ns, w->start_ns);
      all.end_ns = std::max(all.end_ns, w->end_ns);
      all.origin = w->origin;
    } else {
      all = *w;
    }
    p.html_window = ExtendToHostItems(m, all);
  } else {
    p.html_window = *w;
  }
  p.json_window = CapWindowToOps(m, p.html_window, options.json_max_ops);
  p.json_analysis_window = p.analysis_window;
  p.json_analysis_window.end_ns = std::min(p.analysis_window.end_ns, p.json_window.end_ns);
  if (p.json_window.end_ns != p.html_window.end_ns && timeline) {
    int64_t all = CountOpsInWindow(m, p.html_window);
    p.json_note = absl::StrCat("--max-ops ", options.json_max_ops, ": the JSON holds the first ",
                               CountOpsInWindow(m, p.json_window), " of the window's ", all, " ops: it ends at +",
                               FormatDuration(p.json_window.end_ns - p.html_window.start_ns), " instead of +",
                               FormatDuration(p.html_window.length()));
  }
  return p;
}

// The analyses of every trace, for the timelines and the page (errors
// without the command's prefix).
absl::Status AnalyzeExportedTraces(const std::vector<TraceModel>& models, const ExportOptions& options, bool timeline,
                                   bool show_progress, std::vector<ExportPlan>* plans) {
  for (size_t i = 0; i < models.size(); ++i) {
    const TraceModel& m = models[i];
    ExportPlan& p = (*plans)[i];
    if (show_progress) {
      ProgressPhase("analyzing " + m.path, static_cast<int64_t>(i),
                    models.size() > 1 ? static_cast<int64_t>(models.size()) : 0);
    }
    if (options.analyses) {
      if (!options.html_path.empty()) {
        absl::StatusOr<AnalysisTracks> tracks = AnalyzeForTimeline(m, p.analysis_window, 200'000, &options.window);
        if (!tracks.ok()) return tracks.status();
        p.html_tracks = *std::move(tracks);
      }
      if (timeline) {
        if (!options.html_path.empty() && p.json_analysis_window.end_ns == p.analysis_window.end_ns) {
          p.json_tracks = p.html_tracks;
        } else {
          // Tracks for the Perfetto writers alone: their largest make
          // their slices while written, not all at once.
          absl::StatusOr<AnalysisTracks> tracks = AnalyzeForTimeline(m, p.json_analysis_window, 200'000, nullptr, true);
          if (!tracks.ok()) return tracks.status();
          p.json_tracks = *std::move(tracks);
        }
      }
    }
    if (!p.json_note.empty()) p.json_tracks.notes.push_back(p.json_note);
  }
  return absl::OkStatus();
}

// One timeline (Perfetto JSON or protobuf: the same inputs and counts).
absl::Status WriteTimeline(const std::string& path, OutputFile* file, TimelineWriter writer, bool print_notes,
                           const std::vector<TraceModel>& models, const std::vector<ExportPlan>& plans,
                           const ExportOptions& options, std::function<absl::Status()> await_analyses,
                           std::ostream& out) {
  auto t = std::chrono::steady_clock::now();
  std::vector<PerfettoTraceInput> inputs;
  for (size_t i = 0; i < models.size(); ++i) {
    inputs.push_back(
        {&models[i], plans[i].json_window, options.analyses ? &plans[i].json_tracks : nullptr, plans[i].label});
  }
  PerfettoExportStats stats;
  ProgressPhase("writing " + path);
  PerfettoExportOptions writer_options;
  writer_options.await_analyses = std::move(await_analyses);
  absl::Status s = writer(inputs, writer_options, file, &stats);
  ProgressIdle();
  MarkPhase("write timeline");  // STREAMSCOPE_PROFILE: the writer's CPU against its wall time
  if (!s.ok()) return Prefixed("export: ", s);
  out << absl::StrFormat(
      "wrote %s: %d events, %.1f MB (%d ops, %d API calls, %d NVTX ranges, %d flows, %d analysis slices, "
      "%d markers) in %.2f s\n",
      path, stats.events, stats.bytes / 1e6, stats.ops, stats.api_calls, stats.nvtx_ranges, stats.flows,
      stats.analysis_slices, stats.analysis_markers, Seconds(t));
  if (print_notes) {
    for (const std::string& n : stats.notes) out << "note: " << n << "\n";
  }
  return absl::OkStatus();
}

absl::Status WritePage(OutputFile* file, const std::vector<TraceModel>& models, const std::vector<ExportPlan>& plans,
                       const std::vector<PreparedTrace>& prepared_traces, const ExportOptions& options,
                       std::ostream& out) {
  auto t = std::chrono::steady_clock::now();
  std::vector<HtmlTimelineInput> inputs;
  for (size_t i = 0; i < models.size(); ++i) {
    inputs.push_back({plans[i].label, &models[i], plans[i].html_window,
                      options.analyses ? &plans[i].html_tracks : nullptr, plans[i].view, &prepared_traces[i].summary});
  }
  HtmlReportOptions html_options;
  html_options.max_ops = options.html_max_ops;
  if (!options.title.empty()) {
    html_options.title = options.title;
  } else if (models.size() == 1) {
    html_options.title = absl::StrCat("streamscope report: ", models[0].path);
  }
  html_options.generated_by = options.command_line;
  HtmlReportStats stats;
  ProgressPhase("writing " + options.html_path);
  absl::Status s = WriteHtmlReport(inputs, html_options, file, &stats);
  ProgressIdle();
  if (!s.ok()) return Prefixed("export: ", s);
  out << absl::StrFormat(
      "wrote %s: %.1f MB, %d stream rows, %d of %d ops drawn individually, %d aggregate blocks, %d overlap "
      "intervals, %d gaps, %d markers in %.2f s\n",
      options.html_path, stats.bytes / 1e6, stats.stream_rows, stats.blocks_drawn - stats.aggregate_blocks,
      stats.ops_in_windows, stats.aggregate_blocks, stats.overlap_slices, stats.gap_slices, stats.markers, Seconds(t));
  for (const std::string& n : stats.notes) out << "note: " << n << "\n";
  return absl::OkStatus();
}

}  // namespace

absl::Status RunExport(const ExportOptions& options, std::ostream& out) {
  const bool timeline = !options.perfetto_path.empty() || !options.perfetto_proto_path.empty();
  if (absl::Status s = CheckExportOptions(options, timeline); !s.ok()) return s;
  auto t0 = std::chrono::steady_clock::now();
  ExportFiles files;
  if (absl::Status s = OpenOutputs(options, &files); !s.ok()) return s;
  absl::StatusOr<std::vector<TraceModel>> loaded = LoadExportedTraces(options);
  if (!loaded.ok()) return loaded.status();
  const std::vector<TraceModel>& models = *loaded;
  double load_s = Seconds(t0);
  MarkPhase("load");
  absl::StatusOr<std::vector<PreparedTrace>> prepared_traces = SummarizeForPage(models, options);
  if (!prepared_traces.ok()) return prepared_traces.status();
  std::vector<ExportPlan> plans;
  for (const TraceModel& m : models) {
    absl::StatusOr<ExportPlan> p = PlanWindows(m, options, timeline, models.size() > 1, out);
    if (!p.ok()) return p.status();
    plans.push_back(*std::move(p));
  }

  // A protobuf timeline alone writes its ops and host tracks while the
  // analyses run (on a thread of their own: they read only the models);
  // otherwise the analyses come first.
  const bool analyze_while_writing =
      ThreadsAllowed() && files.json == nullptr && files.html == nullptr && files.proto != nullptr;
  absl::Status analyzed = absl::OkStatus();
  TaskThreads analysis_thread(analyze_while_writing);  // joined on every way out
  analysis_thread.Start(
      [&] { analyzed = AnalyzeExportedTraces(models, options, timeline, !analyze_while_writing, &plans); });
  if (!analyze_while_writing && !analyzed.ok()) return Prefixed("export: ", analyzed);
  // Joins the analyses (once); what the writers call before they read them.
  double analyze_s = 0;
  bool awaited = false;
  auto await_analyses = [&]() -> absl::Status {
    if (awaited) return analyzed;
    awaited = true;
    analysis_thread.Join();
    MarkPhase("analyses");
    analyze_s = Seconds(t0) - load_s;
    if (!analyzed.ok()) return analyzed;
    for (const ExportPlan& p : plans) {
      if (p.json_note.empty()) continue;
      ProgressIdle();
      out << "note: " << (p.label.empty() ? "" : p.label + ": ") << p.json_note << "\n";
    }
    return absl::OkStatus();
  };
  if (!analyze_while_writing) {
    if (absl::Status s = await_analyses(); !s.ok()) return Prefixed("export: ", s);
  }
  std::function<absl::Status()> writer_awaits;
  if (analyze_while_writing) writer_awaits = await_analyses;

  if (files.json) {
    absl::Status s = WriteTimeline(options.perfetto_path, files.json.get(), WritePerfettoJson, true, models, plans,
                                   options, writer_awaits, out);
    if (!s.ok()) return s;
  }
#ifdef STREAMSCOPE_WITH_PERFETTO_PROTO
  if (files.proto) {
    // The JSON, when written too, printed the same notes.
    absl::Status s = WriteTimeline(options.perfetto_proto_path, files.proto.get(), WritePerfettoProto,
                                   files.json == nullptr, models, plans, options, writer_awaits, out);
    if (!s.ok()) return s;
  }
#endif
  if (files.html) {
    absl::Status s = WritePage(files.html.get(), models, plans, *prepared_traces, options, out);
    if (!s.ok()) return s;
  }
  out << absl::StrFormat("load %.2f s, analyses %.2f s, total %.2f s\n", load_s, analyze_s, Seconds(t0));
  return absl::OkStatus();
}

}  // namespace streamscope
