#include "analyzer/commands/export_runner.h"

#include <algorithm>
#include <chrono>

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

}  // namespace

absl::Status RunExport(const ExportOptions& options, std::ostream& out) {
  const bool timeline = !options.perfetto_path.empty() || !options.perfetto_proto_path.empty();
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
  auto t0 = std::chrono::steady_clock::now();
  // Refuse unwritable outputs before the (long) load.
  std::unique_ptr<OutputFile> json_file, html_file, proto_file;
  for (auto [path, file] : {std::pair{&options.perfetto_path, &json_file}, std::pair{&options.html_path, &html_file},
                            std::pair{&options.perfetto_proto_path, &proto_file}}) {
    if (path->empty()) continue;
    absl::StatusOr<std::unique_ptr<OutputFile>> f = OutputFile::Create(*path, options.overwrite);
    if (!f.ok()) return Prefixed("export: ", f.status());
    *file = std::move(*f);
  }

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
  double load_s = Seconds(t0);
  MarkPhase("load");
  // The page's summary of each trace (once per trace).
  std::vector<PreparedTrace> prepared_traces(models.size());
  if (!options.html_path.empty()) {
    TracePreparation what;
    what.summary = true;
    for (size_t i = 0; i < models.size(); ++i) {
      absl::StatusOr<PreparedTrace> t = PrepareTrace(models[i], what);
      if (!t.ok()) return Prefixed("export: ", t.status());
      prepared_traces[i] = *std::move(t);
    }
  }

  struct Prepared {
    Window json_window, html_window;  // drawn
    Window view;                      // the analyses' window, which the page opens on
    AnalysisTracks json_tracks, html_tracks;
    std::string label;
    std::string json_note;  // what --max-ops left out of the timelines
  };
  std::vector<Prepared> prepared(models.size());
  std::vector<Window> analysis_windows(models.size()), json_analysis_windows(models.size());
  for (size_t i = 0; i < models.size(); ++i) {
    const TraceModel& m = models[i];
    absl::StatusOr<Window> w = ResolveExportWindow(m, options.window);
    if (!w.ok()) return Prefixed("export: ", w.status());
    NoteClippedWindows(m, {*w}, out);
    Prepared& p = prepared[i];
    p.label = models.size() > 1 ? absl::StrCat(m.path, " pid ", m.pid) : "";
    analysis_windows[i] = *w;
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
    json_analysis_windows[i] = analysis_windows[i];
    json_analysis_windows[i].end_ns = std::min(analysis_windows[i].end_ns, p.json_window.end_ns);
    if (p.json_window.end_ns != p.html_window.end_ns && timeline) {
      int64_t all = CountOpsInWindow(m, p.html_window);
      p.json_note = absl::StrCat("--max-ops ", options.json_max_ops, ": the JSON holds the first ",
                                 CountOpsInWindow(m, p.json_window), " of the window's ", all, " ops: it ends at +",
                                 FormatDuration(p.json_window.end_ns - p.html_window.start_ns), " instead of +",
                                 FormatDuration(p.html_window.length()));
    }
  }
  // A protobuf timeline alone writes its ops and host tracks while the
  // analyses run (on a thread of their own: they read only the models);
  // otherwise the analyses come first.
  const bool analyze_while_writing =
      ThreadsAllowed() && json_file == nullptr && html_file == nullptr && proto_file != nullptr;
  // The analyses of every trace, for the timelines and the page (errors
  // without the command's prefix).
  auto analyze = [&]() -> absl::Status {
    for (size_t i = 0; i < models.size(); ++i) {
      const TraceModel& m = models[i];
      Prepared& p = prepared[i];
      if (!analyze_while_writing) {
        ProgressPhase("analyzing " + m.path, static_cast<int64_t>(i),
                      models.size() > 1 ? static_cast<int64_t>(models.size()) : 0);
      }
      if (options.analyses) {
        if (!options.html_path.empty()) {
          absl::StatusOr<AnalysisTracks> tracks = AnalyzeForTimeline(m, analysis_windows[i], 200'000, &options.window);
          if (!tracks.ok()) return tracks.status();
          p.html_tracks = *std::move(tracks);
        }
        if (timeline) {
          if (!options.html_path.empty() && json_analysis_windows[i].end_ns == analysis_windows[i].end_ns) {
            p.json_tracks = p.html_tracks;
          } else {
            // Tracks for the Perfetto writers alone: their largest make
            // their slices while written, not all at once.
            absl::StatusOr<AnalysisTracks> tracks =
                AnalyzeForTimeline(m, json_analysis_windows[i], 200'000, nullptr, true);
            if (!tracks.ok()) return tracks.status();
            p.json_tracks = *std::move(tracks);
          }
        }
      }
      if (!p.json_note.empty()) p.json_tracks.notes.push_back(p.json_note);
    }
    return absl::OkStatus();
  };
  absl::Status analyzed = absl::OkStatus();
  TaskThreads analysis_thread(analyze_while_writing);  // joined on every way out
  analysis_thread.Start([&] { analyzed = analyze(); });
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
    for (const Prepared& p : prepared) {
      if (p.json_note.empty()) continue;
      ProgressIdle();
      out << "note: " << (p.label.empty() ? "" : p.label + ": ") << p.json_note << "\n";
    }
    return absl::OkStatus();
  };
  if (!analyze_while_writing) {
    if (absl::Status s = await_analyses(); !s.ok()) return Prefixed("export: ", s);
  }

  // One timeline (Perfetto JSON or protobuf: the same inputs and counts).
  auto write_timeline = [&](const std::string& path, OutputFile* file, auto writer, bool print_notes) -> absl::Status {
    auto t = std::chrono::steady_clock::now();
    std::vector<PerfettoTraceInput> inputs;
    for (size_t i = 0; i < models.size(); ++i) {
      inputs.push_back({&models[i], prepared[i].json_window, options.analyses ? &prepared[i].json_tracks : nullptr,
                        prepared[i].label});
    }
    PerfettoExportStats stats;
    ProgressPhase("writing " + path);
    PerfettoExportOptions writer_options;
    if (analyze_while_writing) writer_options.await_analyses = await_analyses;
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
  };
  if (json_file) {
    absl::Status s = write_timeline(options.perfetto_path, json_file.get(), WritePerfettoJson, true);
    if (!s.ok()) return s;
  }
#ifdef STREAMSCOPE_WITH_PERFETTO_PROTO
  if (proto_file) {
    // The JSON, when written too, printed the same notes.
    absl::Status s =
        write_timeline(options.perfetto_proto_path, proto_file.get(), WritePerfettoProto, json_file == nullptr);
    if (!s.ok()) return s;
  }
#endif
  if (html_file) {
    auto t = std::chrono::steady_clock::now();
    std::vector<HtmlTimelineInput> inputs;
    for (size_t i = 0; i < models.size(); ++i) {
      inputs.push_back({prepared[i].label, &models[i], prepared[i].html_window,
                        options.analyses ? &prepared[i].html_tracks : nullptr, prepared[i].view,
                        &prepared_traces[i].summary});
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
    absl::Status s = WriteHtmlReport(inputs, html_options, html_file.get(), &stats);
    ProgressIdle();
    if (!s.ok()) return Prefixed("export: ", s);
    out << absl::StrFormat(
        "wrote %s: %.1f MB, %d stream rows, %d of %d ops drawn individually, %d aggregate blocks, %d overlap "
        "intervals, %d gaps, %d markers in %.2f s\n",
        options.html_path, stats.bytes / 1e6, stats.stream_rows, stats.blocks_drawn - stats.aggregate_blocks,
        stats.ops_in_windows, stats.aggregate_blocks, stats.overlap_slices, stats.gap_slices, stats.markers,
        Seconds(t));
    for (const std::string& n : stats.notes) out << "note: " << n << "\n";
  }
  out << absl::StrFormat("load %.2f s, analyses %.2f s, total %.2f s\n", load_s, analyze_s, Seconds(t0));
  return absl::OkStatus();
}

}  // namespace streamscope
