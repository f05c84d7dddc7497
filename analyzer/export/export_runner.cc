#include "analyzer/export/export_runner.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/analysis/gap_causes.h"
#include "analyzer/analysis/hidden_sync.h"
#include "analyzer/analysis/launch_stats.h"
#include "analyzer/analysis/overlap.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/export/analysis_adapters.h"
#include "analyzer/export/html_report.h"
#include "analyzer/export/output_file.h"
#include "analyzer/export/perfetto_json_writer.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/importers/kernel_shapes.h"
#include "analyzer/importers/trace_loader.h"
#ifdef STREAMSCOPE_WITH_PERFETTO_PROTO
#include "analyzer/export/perfetto_proto_writer.h"
#endif

namespace streamscope {

absl::StatusOr<Window> ResolveExportWindow(const TraceModel& model, const WindowSpec& spec) {
  absl::StatusOr<std::vector<Window>> windows = ResolveWindows(model, spec);
  if (!windows.ok()) return windows.status();
  if (windows->empty()) return absl::OutOfRangeError(absl::StrCat(model.path, ": the window selects nothing"));
  if (windows->size() == 1) return windows->front();
  Window span = windows->front();
  for (const Window& w : *windows) {
    span.start_ns = std::min(span.start_ns, w.start_ns);
    span.end_ns = std::max(span.end_ns, w.end_ns);
  }
  span.label = absl::StrCat("NVTX '", spec.nvtx_name, "' #1 to #", windows->size(), " (their span)");
  return span;
}

Window ExtendToHostItems(const TraceModel& model, const Window& window) {
  Window w = window;
  bool empty = model.ops.size() == 0 && model.api.size() == 0;
  for (const NvtxRange& r : model.nvtx_ranges) {
    w.start_ns = empty ? r.start_ns : std::min(w.start_ns, r.start_ns);
    if (r.end_ns) w.end_ns = std::max(w.end_ns, *r.end_ns);
    empty = false;
  }
  for (const NvtxMark& m : model.nvtx_marks) {
    w.start_ns = empty ? m.ts_ns : std::min(w.start_ns, m.ts_ns);
    w.end_ns = std::max(w.end_ns, m.ts_ns);
    empty = false;
  }
  return w;
}

AnalysisTracks AnalyzeForTimeline(const TraceModel& model, const Window& window, int64_t max_gaps) {
  AnalysisTracks tracks;
  OverlapOptions overlap_options;
  overlap_options.max_ops_per_interval = 8;
  AddOverlapTracks(model, AnalyzeOverlap(model, window, overlap_options), &tracks);
  GapCausesOptions gap_options;
  gap_options.max_listed_gaps = static_cast<int>(std::min<int64_t>(max_gaps, INT32_MAX));
  AddGapCauseTracks(model, AnalyzeGapCauses(model, window, gap_options), &tracks);
  AddHiddenSyncMarkers(model, AnalyzeHiddenSync(model, window), &tracks);
  AddLaunchStatsFindings(model, AnalyzeLaunchStats(model, window), &tracks);
  return tracks;
}

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int RunExport(const ExportOptions& options, std::ostream& out, std::ostream& err) {
  const bool timeline = !options.perfetto_path.empty() || !options.perfetto_proto_path.empty();
  if (!timeline && options.html_path.empty()) {
    err << "streamscope: export: nothing to write: pass --perfetto OUT.json, --perfetto-proto OUT.pftrace "
           "and/or --html OUT.html\n";
    return kExitUsage;
  }
  if (!options.perfetto_path.empty() && options.perfetto_path == options.html_path) {
    err << "streamscope: export: --perfetto and --html name the same file\n";
    return kExitUsage;
  }
  if (!options.perfetto_proto_path.empty() &&
      (options.perfetto_proto_path == options.perfetto_path || options.perfetto_proto_path == options.html_path)) {
    err << "streamscope: export: --perfetto-proto names the same file as another output\n";
    return kExitUsage;
  }
#ifndef STREAMSCOPE_WITH_PERFETTO_PROTO
  if (!options.perfetto_proto_path.empty()) {
    err << "streamscope: export: --perfetto-proto: this streamscope was built without protobuf "
           "(install libprotobuf-dev and protobuf-compiler: tools/install_deps.sh, then rebuild)\n";
    return kExitUsage;
  }
#endif
  auto t0 = std::chrono::steady_clock::now();
  // Refuse unwritable outputs before the (long) load.
  std::unique_ptr<OutputFile> json_file, html_file, proto_file;
  for (auto [path, file] : {std::pair{&options.perfetto_path, &json_file}, std::pair{&options.html_path, &html_file},
                            std::pair{&options.perfetto_proto_path, &proto_file}}) {
    if (path->empty()) continue;
    absl::StatusOr<std::unique_ptr<OutputFile>> f = OutputFile::Create(*path, options.overwrite);
    if (!f.ok()) {
      err << "streamscope: export: " << f.status().message() << "\n";
      return ExitCodeFor(f.status());
    }
    *file = std::move(*f);
  }

  std::vector<TraceModel> models;
  for (const std::string& path : options.traces) {
    absl::StatusOr<std::vector<TraceModel>> loaded = LoadTraceFile(path);
    if (!loaded.ok()) {
      err << "streamscope: export: " << loaded.status().message() << "\n";
      return ExitCodeFor(loaded.status());
    }
    for (TraceModel& m : *loaded) models.push_back(std::move(m));
  }
  // Kernel shapes are args of the exported kernels (the importers skip them).
  for (TraceModel& m : models) {
    if (absl::Status s = AddKernelShapes(&m); !s.ok()) {
      err << "streamscope: export: " << s.message() << "\n";
      return ExitCodeFor(s);
    }
  }
  double load_s = Seconds(t0);

  struct Prepared {
    Window json_window, html_window;  // drawn
    AnalysisTracks json_tracks, html_tracks;
    std::string label;
  };
  std::vector<Prepared> prepared(models.size());
  for (size_t i = 0; i < models.size(); ++i) {
    const TraceModel& m = models[i];
    absl::StatusOr<Window> w = ResolveExportWindow(m, options.window);
    if (!w.ok()) {
      err << "streamscope: export: " << w.status().message() << "\n";
      return ExitCodeFor(w.status());
    }
    Prepared& p = prepared[i];
    p.label = models.size() > 1 ? absl::StrCat(m.path, " pid ", m.pid) : "";
    Window analysis_window = *w;
    bool whole = options.window.kind == WindowSpec::Kind::kWholeTrace;
    p.html_window = whole ? ExtendToHostItems(m, *w) : *w;
    p.json_window = CapWindowToOps(m, p.html_window, options.json_max_ops);
    Window json_analysis_window = analysis_window;
    json_analysis_window.end_ns = std::min(analysis_window.end_ns, p.json_window.end_ns);
    if (options.analyses) {
      if (!options.html_path.empty()) p.html_tracks = AnalyzeForTimeline(m, analysis_window);
      if (timeline) {
        if (!options.html_path.empty() && json_analysis_window.end_ns == analysis_window.end_ns) {
          p.json_tracks = p.html_tracks;
        } else {
          p.json_tracks = AnalyzeForTimeline(m, json_analysis_window);
        }
      }
    }
    if (p.json_window.end_ns != p.html_window.end_ns && timeline) {
      int64_t all = CountOpsInWindow(m, p.html_window);
      std::string note = absl::StrCat(
          "--max-ops ", options.json_max_ops, ": the JSON holds the first ", CountOpsInWindow(m, p.json_window),
          " of the window's ", all, " ops: it ends at +", FormatDuration(p.json_window.end_ns - p.html_window.start_ns),
          " instead of +", FormatDuration(p.html_window.length()));
      p.json_tracks.notes.push_back(note);
      out << "note: " << (p.label.empty() ? "" : p.label + ": ") << note << "\n";
    }
  }
  double analyze_s = Seconds(t0) - load_s;

  if (json_file) {
    auto t = std::chrono::steady_clock::now();
    std::vector<PerfettoTraceInput> inputs;
    for (size_t i = 0; i < models.size(); ++i) {
      inputs.push_back({&models[i], prepared[i].json_window, options.analyses ? &prepared[i].json_tracks : nullptr,
                        prepared[i].label});
    }
    PerfettoExportStats stats;
    absl::Status s = WritePerfettoJson(inputs, PerfettoExportOptions{}, json_file.get(), &stats);
    if (!s.ok()) {
      err << "streamscope: export: " << s.message() << "\n";
      return ExitCodeFor(s);
    }
    out << absl::StrFormat(
        "wrote %s: %d events, %.1f MB (%d ops, %d API calls, %d NVTX ranges, %d flows, %d analysis slices, "
        "%d markers) in %.2f s\n",
        options.perfetto_path, stats.events, stats.bytes / 1e6, stats.ops, stats.api_calls, stats.nvtx_ranges,
        stats.flows, stats.analysis_slices, stats.analysis_markers, Seconds(t));
    for (const std::string& n : stats.notes) out << "note: " << n << "\n";
  }
#ifdef STREAMSCOPE_WITH_PERFETTO_PROTO
  if (proto_file) {
    auto t = std::chrono::steady_clock::now();
    std::vector<PerfettoTraceInput> inputs;
    for (size_t i = 0; i < models.size(); ++i) {
      inputs.push_back({&models[i], prepared[i].json_window, options.analyses ? &prepared[i].json_tracks : nullptr,
                        prepared[i].label});
    }
    PerfettoExportStats stats;
    absl::Status s = WritePerfettoProto(inputs, PerfettoExportOptions{}, proto_file.get(), &stats);
    if (!s.ok()) {
      err << "streamscope: export: " << s.message() << "\n";
      return ExitCodeFor(s);
    }
    out << absl::StrFormat(
        "wrote %s: %d events, %.1f MB (%d ops, %d API calls, %d NVTX ranges, %d flows, %d analysis slices, "
        "%d markers) in %.2f s\n",
        options.perfetto_proto_path, stats.events, stats.bytes / 1e6, stats.ops, stats.api_calls,
        stats.nvtx_ranges, stats.flows, stats.analysis_slices, stats.analysis_markers, Seconds(t));
    if (json_file == nullptr) {
      for (const std::string& n : stats.notes) out << "note: " << n << "\n";
    }
  }
#endif
  if (html_file) {
    auto t = std::chrono::steady_clock::now();
    std::vector<HtmlTimelineInput> inputs;
    for (size_t i = 0; i < models.size(); ++i) {
      inputs.push_back({prepared[i].label, &models[i], prepared[i].html_window,
                        options.analyses ? &prepared[i].html_tracks : nullptr});
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
    absl::Status s = WriteHtmlReport(inputs, html_options, html_file.get(), &stats);
    if (!s.ok()) {
      err << "streamscope: export: " << s.message() << "\n";
      return ExitCodeFor(s);
    }
    out << absl::StrFormat(
        "wrote %s: %.1f MB, %d stream rows, %d of %d ops drawn individually, %d aggregate blocks, %d overlap "
        "intervals, %d gaps, %d markers in %.2f s\n",
        options.html_path, stats.bytes / 1e6, stats.stream_rows, stats.blocks_drawn - stats.aggregate_blocks,
        stats.ops_in_windows, stats.aggregate_blocks, stats.overlap_slices, stats.gap_slices, stats.markers,
        Seconds(t));
    for (const std::string& n : stats.notes) out << "note: " << n << "\n";
  }
  out << absl::StrFormat("load %.2f s, analyses %.2f s, total %.2f s\n", load_s, analyze_s, Seconds(t0));
  return kExitOk;
}

}  // namespace streamscope
