#include "analyzer/render/report.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "analyzer/analysis/communication.h"
#include "analyzer/analysis/contention.h"
#include "analyzer/analysis/cross_rank.h"
#include "analyzer/analysis/idle_gaps.h"
#include "analyzer/analysis/overlap.h"
#include "analyzer/analysis/trace_summary.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/importers/trace_loader.h"
#include "analyzer/render/communication_render.h"
#include "analyzer/render/csv_writer.h"
#include "analyzer/render/diagnose_render.h"
#include "analyzer/analysis/hazards.h"
#include "analyzer/analysis/ownership.h"
#include "analyzer/analysis/timing_audit.h"
#include "analyzer/render/hazards_render.h"
#include "analyzer/render/timing_audit_render.h"
#include "analyzer/render/idle_gaps_render.h"
#include "analyzer/render/instances_render.h"
#include "analyzer/render/overlap_render.h"
#include "analyzer/render/trace_summary_render.h"
#include "analyzer/render/units.h"
#include "analyzer/storage/analysis_saver.h"
#include "nlohmann/json.hpp"

// INTEGRATION POINT (analyses 3-5, another engineer's files): each analysis
// joins the report as soon as its analysis and render headers exist.
#if __has_include("analyzer/analysis/gap_causes.h") && __has_include("analyzer/render/gap_causes_render.h")
#include "analyzer/analysis/gap_causes.h"
#include "analyzer/render/gap_causes_render.h"
#define STREAMSCOPE_REPORT_GAP_CAUSES 1
#endif
#if __has_include("analyzer/analysis/hidden_sync.h") && __has_include("analyzer/render/hidden_sync_render.h")
#include "analyzer/analysis/hidden_sync.h"
#include "analyzer/render/hidden_sync_render.h"
#define STREAMSCOPE_REPORT_HIDDEN_SYNC 1
#endif
#if __has_include("analyzer/analysis/launch_stats.h") && __has_include("analyzer/render/launch_stats_render.h")
#include "analyzer/analysis/launch_stats.h"
#include "analyzer/render/launch_stats_render.h"
#define STREAMSCOPE_REPORT_LAUNCH_STATS 1
#endif

namespace streamscope {
namespace {

// STREAMSCOPE_PROFILE=1 prints the time of each phase to stderr (for the
// benchmark: where the seconds go).
class PhaseTimer {
 public:
  PhaseTimer() : enabled_(std::getenv("STREAMSCOPE_PROFILE") != nullptr), last_(Clock::now()), last_cpu_(Cpu()) {}
  void Mark(const char* phase) {
    if (!enabled_) return;
    auto now = Clock::now();
    double cpu = Cpu();
    std::fprintf(stderr, "streamscope profile: %-14s %8.3f s wall %8.3f s cpu %7ld MiB peak\n", phase,
                 std::chrono::duration<double>(now - last_).count(), cpu - last_cpu_, PeakMiB());
    last_ = now;
    last_cpu_ = cpu;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static long PeakMiB() {
    rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
  }
  static double Cpu() {  // process CPU time, all threads
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  bool enabled_;
  Clock::time_point last_;
  double last_cpu_;
};
PhaseTimer& Timer() {
  static PhaseTimer timer;
  return timer;
}

struct WindowAnalysis {
  Window window;
  OverlapResult overlap;
  IdleGapsResult idle;
  CommunicationResult communication;
#ifdef STREAMSCOPE_REPORT_GAP_CAUSES
  GapCausesResult gap_causes;
#endif
#ifdef STREAMSCOPE_REPORT_HIDDEN_SYNC
  HiddenSyncResult hidden_sync;
#endif
#ifdef STREAMSCOPE_REPORT_LAUNCH_STATS
  LaunchStatsResult launch_stats;
  DiagnoseResult diagnose;  // computed once from the analyses above, rendered in text and JSON
#endif
  // Analyses 8-9 (issue 10): filled by AnalyzeMemory.
  OwnershipResult ownership;
  HazardsResult hazards;
  std::map<std::string, int64_t> order_stats;
  TimingAuditResult timing_audit;
};

// Per (trace, device) sums over the windows, for the combined summary.
struct DeviceTotals {
  std::string path;
  int64_t pid = 0;
  int32_t device_id = 0;
  int64_t window_ns = 0, busy_ns = 0, idle_ns = 0, compute_ns = 0, copy_ns = 0, exposed_copy_ns = 0;
  int64_t listed_gaps = 0, listed_gap_ns = 0;
};

struct TraceAnalysis {
  TraceModel model;
  TraceSummary summary;
  std::vector<Window> window_list;             // every window analyzed
  std::map<int32_t, DeviceTotals> by_device;   // sums over every window
  // Every window's results; in a text summary of many instances only the
  // longest instance's, and `instances` has the figures of all.
  std::vector<WindowAnalysis> windows;
  std::vector<InstanceFigures> instances;

  // Takes the next window's results: all of them; or, with `summarize`,
  // its figures, and its results only while it is the longest so far.
  void Add(WindowAnalysis w, bool summarize);
};

WindowAnalysis Analyze(const TraceModel& model, const Window& window, const ReportOptions& options) {
  WindowAnalysis w;
  w.window = window;
  // Analyses only read the finalized model: overlap and idle gaps run on a
  // second thread next to the others (the target machine has two cores).
  auto own_analyses = [&] {
    OverlapOptions overlap_options;
    // Tables (CSV, --save) carry every op of every interval.
    if (options.format == ReportOptions::Format::kCsv || options.save) {
      overlap_options.max_ops_per_interval = -1;
    } else {
      overlap_options.max_intervals_per_pair = std::max(options.top, 0);  // text and JSON list the longest
    }
    w.overlap = AnalyzeOverlap(model, window, overlap_options);
    IdleGapsOptions idle_options;
    idle_options.list_threshold_ns = options.gap_threshold_ns;
    w.idle = AnalyzeIdleGaps(model, window, idle_options);
    w.communication = AnalyzeCommunication(model, window);
  };
  // STREAMSCOPE_THREADS=1: everything on one thread (lower peak memory,
  // per-analysis profile figures).
  const char* threads = std::getenv("STREAMSCOPE_THREADS");
  const bool one_thread = threads != nullptr && std::string(threads) == "1";
  std::thread own;
#ifdef STREAMSCOPE_REPORT_LAUNCH_STATS
  // Diagnosis step 6 (contention) reads only the model: it starts first, on
  // a third thread, so that it fills the time the other two wait on each
  // other (two cores: the three threads share them).
  std::optional<DiagnoseFinding> contention;
  std::thread contention_thread;
  const bool contention_thread_used = !one_thread;
  if (contention_thread_used) contention_thread = std::thread([&] { contention = AnalyzeContention(model, window, {}); });
#endif
  if (one_thread) {
    own_analyses();
    Timer().Mark("overlap+gaps");
  } else {
    own = std::thread(own_analyses);
  }
#ifdef STREAMSCOPE_REPORT_GAP_CAUSES
  w.gap_causes = AnalyzeGapCauses(model, window, GapCausesOptions{});
  Timer().Mark("gap_causes");
#endif
#ifdef STREAMSCOPE_REPORT_HIDDEN_SYNC
  w.hidden_sync = AnalyzeHiddenSync(model, window, HiddenSyncOptions{});
  Timer().Mark("hidden_sync");
#endif
#ifdef STREAMSCOPE_REPORT_LAUNCH_STATS
  // Here, not on the other thread: at 10M ops gap causes + hidden syncs +
  // launch statistics cost about what overlap + idle gaps cost.
  w.launch_stats = AnalyzeLaunchStats(model, window, LaunchStatsOptions{});
  Timer().Mark("launch_stats");
#endif
  if (own.joinable()) {
    own.join();
    Timer().Mark("overlap+gaps");
  }
#ifdef STREAMSCOPE_REPORT_LAUNCH_STATS
  if (contention_thread.joinable()) {
    contention_thread.join();
    Timer().Mark("contention");
  }
  w.diagnose = AnalyzeDiagnose(model, window, {},
                               {&w.overlap, &w.gap_causes, &w.hidden_sync, &w.launch_stats,
                                contention_thread_used ? &contention : nullptr});
  Timer().Mark("diagnose");
#endif
  return w;
}

// Analyses 8-9 of one window, from the order and hazards built once per trace.
void AnalyzeMemory(WindowAnalysis& w, const TraceModel& model, const TraceHazards& hazards,
                   const ReportOptions& options) {
  const bool tables = options.format == ReportOptions::Format::kCsv || options.save;
  HazardOptions hazard_options;
  if (tables) hazard_options.max_listed = -1;  // tables carry every hazard
  w.ownership = AnalyzeOwnership(model, hazards.accesses, w.window);
  w.hazards = SummarizeHazards(model, hazards.all, w.window, hazard_options, hazards.stats);
  if (hazards.order) w.order_stats = hazards.order->stats();
  TimingAuditOptions audit_options;
  if (tables) audit_options.max_listed = INT32_MAX;
  w.timing_audit = AnalyzeTimingAudit(model, hazards.order ? &*hazards.order : nullptr, w.window, audit_options);
  Timer().Mark("hazards+audit");
}

InstanceFigures FiguresOf(const WindowAnalysis& w, size_t index, int64_t trace_start_ns) {
  InstanceFigures x;
  x.index = index;
  x.label = w.window.label;
  x.start_ns = w.window.start_ns - trace_start_ns;
  x.length_ns = w.window.length();
  for (const DeviceGaps& g : w.idle.devices) {
    x.device_ns += g.window_ns;
    x.busy_ns += g.busy_ns;
  }
  for (const DeviceOverlap& d : w.overlap.devices) {
    x.copy_ns += d.copy_ns;
    x.exposed_copy_ns += d.exposed_copy_ns;
  }
#ifdef STREAMSCOPE_REPORT_LAUNCH_STATS
  if (const DiagnoseFinding* f = w.diagnose.primary()) x.finding = f->summary;
#endif
  return x;
}

void TraceAnalysis::Add(WindowAnalysis w, bool summarize) {
  window_list.push_back(w.window);
  for (const DeviceOverlap& d : w.overlap.devices) {
    DeviceTotals& x = by_device[d.device_id];
    x.compute_ns += d.category_ns[static_cast<int>(OpCategory::kKernel)];
    x.copy_ns += d.copy_ns;
    x.exposed_copy_ns += d.exposed_copy_ns;
  }
  for (const DeviceGaps& g : w.idle.devices) {
    DeviceTotals& x = by_device[g.device_id];
    x.window_ns += g.window_ns;
    x.busy_ns += g.busy_ns;
    x.idle_ns += g.idle_ns;
    x.listed_gaps += g.listed_count;
    x.listed_gap_ns += g.listed_ns;
  }
  if (!summarize) {
    windows.push_back(std::move(w));
    return;
  }
  // Keep only the longest instance (the earliest among equals) in full.
  InstanceFigures x = FiguresOf(w, window_list.size() - 1, summary.whole.start_ns);
  if (windows.empty() || x.length_ns > windows.front().window.length()) windows = {std::move(w)};
  instances.push_back(std::move(x));
}

std::vector<DeviceTotals> Combine(const std::vector<TraceAnalysis>& traces) {
  std::vector<DeviceTotals> out;
  for (const TraceAnalysis& t : traces) {
    for (const auto& [id, totals] : t.by_device) {
      DeviceTotals x = totals;
      x.path = t.model.path;
      x.pid = t.model.pid;
      x.device_id = id;
      out.push_back(x);
    }
  }
  return out;
}

CrossRankResult CrossRank(const std::vector<TraceAnalysis>& traces, int top) {
  std::vector<RankInput> inputs;
  for (const TraceAnalysis& t : traces) {
    RankInput input{&t.model, t.window_list};
    inputs.push_back(std::move(input));
  }
  return AnalyzeCrossRank(inputs, top);
}

nlohmann::json TotalsJson(const DeviceTotals& x) {
  return {{"window_ns", x.window_ns}, {"busy_ns", x.busy_ns}, {"idle_ns", x.idle_ns},
          {"compute_ns", x.compute_ns}, {"copy_ns", x.copy_ns},
          {"copy_hidden_ns", x.copy_ns - x.exposed_copy_ns}, {"exposed_copy_ns", x.exposed_copy_ns},
          {"listed_gap_count", x.listed_gaps}, {"listed_gap_ns", x.listed_gap_ns}};
}

DeviceTotals Sum(const std::vector<DeviceTotals>& all) {
  DeviceTotals s;
  for (const DeviceTotals& x : all) {
    s.window_ns += x.window_ns; s.busy_ns += x.busy_ns; s.idle_ns += x.idle_ns;
    s.compute_ns += x.compute_ns; s.copy_ns += x.copy_ns; s.exposed_copy_ns += x.exposed_copy_ns;
    s.listed_gaps += x.listed_gaps; s.listed_gap_ns += x.listed_gap_ns;
  }
  return s;
}

nlohmann::json WindowSpecJson(const WindowSpec& spec) {
  switch (spec.kind) {
    case WindowSpec::Kind::kWholeTrace:
      return {{"kind", "whole"}};
    case WindowSpec::Kind::kNvtxRange:
      return {{"kind", "nvtx"}, {"nvtx_name", spec.nvtx_name},
              {"nvtx_instance", spec.nvtx_instance ? nlohmann::json(*spec.nvtx_instance) : nlohmann::json()}};
    case WindowSpec::Kind::kExplicit:
      return {{"kind", "explicit"}, {"from_ns", spec.start_ns}, {"to_ns", spec.end_ns},
              {"relative_to_trace_start", spec.relative_to_trace_start}};
  }
  return nullptr;
}

nlohmann::json WindowJson(const WindowAnalysis& w, size_t index, const TraceModel& model,
                          const RenderOptions& render) {
  nlohmann::json j = {{"index", index},
                      {"label", w.window.label},
                      {"start_ns", w.window.start_ns},
                      {"end_ns", w.window.end_ns},
                      {"length_ns", w.window.length()},
                      {"overlap", OverlapToJson(w.overlap, model, render)},
                      {"idle_gaps", IdleGapsToJson(w.idle, model, render)},
                      {"communication", CommunicationToJson(w.communication, model, render)}};
#ifdef STREAMSCOPE_REPORT_GAP_CAUSES
  j["gap_causes"] = GapCausesToJson(w.gap_causes, model);
#endif
#ifdef STREAMSCOPE_REPORT_HIDDEN_SYNC
  j["hidden_sync"] = HiddenSyncToJson(w.hidden_sync, model);
#endif
#ifdef STREAMSCOPE_REPORT_LAUNCH_STATS
  j["launch_stats"] = LaunchStatsToJson(w.launch_stats, model);
  j["diagnose"] = DiagnoseToJson(w.diagnose, model);
#endif
  j["ownership"] = OwnershipToJson(w.ownership, model, render.top);
  j["hazards"] = HazardsToJson(w.hazards, model, w.order_stats, render.top);
  j["timing_audit"] = TimingAuditToJson(w.timing_audit, model);
  return j;
}

// Writes `value` as report.dump(2) would print it `depth` levels deep.
void WriteJsonAt(std::ostream& out, const nlohmann::json& value, int depth) {
  // Names come from the trace and may not be UTF-8: replace, never throw.
  const std::string text = value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  size_t from = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    out.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from));
    out << pad;
    from = nl + 1;
  }
  out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

// The document is written piece by piece, one window at a time, in the
// exact layout of one dump(2) of the whole (keys in sorted order): a report
// of thousands of NVTX instances would otherwise build a DOM of gigabytes.
void RenderJson(const std::vector<TraceAnalysis>& traces, const ReportOptions& options,
                const RenderOptions& render, std::ostream& out) {
  std::vector<DeviceTotals> totals = Combine(traces);
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceTotals& x : totals) {
    nlohmann::json d = TotalsJson(x);
    d["path"] = x.path;
    d["pid"] = x.pid;
    d["device_id"] = x.device_id;
    devices.push_back(d);
  }
  nlohmann::json combined = {{"devices", devices}, {"total", TotalsJson(Sum(totals))}};
  if (traces.size() > 1) combined["ranks"] = CrossRankToJson(CrossRank(traces, options.top));
  out << "{\n  \"combined\": ";
  WriteJsonAt(out, combined, 1);
  out << ",\n  \"gap_threshold_ns\": " << nlohmann::json(options.gap_threshold_ns).dump()
      << ",\n  \"generator\": \"streamscope report\""
      << ",\n  \"schema_version\": " << nlohmann::json(kReportJsonSchemaVersion).dump()
      << ",\n  \"top\": " << nlohmann::json(options.top).dump() << ",\n  \"traces\": ";
  if (traces.empty()) out << "[]";
  for (size_t ti = 0; ti < traces.size(); ++ti) {
    const TraceAnalysis& t = traces[ti];
    out << (ti == 0 ? "[\n    {\n      \"format\": " : ",\n    {\n      \"format\": ");
    WriteJsonAt(out, t.model.format, 3);
    out << ",\n      \"path\": ";
    WriteJsonAt(out, t.model.path, 3);
    out << ",\n      \"pid\": " << nlohmann::json(t.model.pid).dump() << ",\n      \"summary\": ";
    WriteJsonAt(out, TraceSummaryToJson(t.summary, t.model), 3);
    out << ",\n      \"windows\": ";
    if (t.windows.empty()) out << "[]";
    for (size_t i = 0; i < t.windows.size(); ++i) {
      out << (i == 0 ? "[\n        " : ",\n        ");
      WriteJsonAt(out, WindowJson(t.windows[i], i, t.model, render), 4);
    }
    if (!t.windows.empty()) out << "\n      ]";
    out << "\n    }";
    if (ti + 1 == traces.size()) out << "\n  ]";
  }
  out << ",\n  \"window_spec\": ";
  WriteJsonAt(out, WindowSpecJson(options.window), 1);
  out << "\n}\n";
}

void RenderText(const std::vector<TraceAnalysis>& traces, const RenderOptions& render, std::ostream& out) {
  for (size_t ti = 0; ti < traces.size(); ++ti) {
    const TraceAnalysis& t = traces[ti];
    if (ti > 0) out << "\n";
    RenderTraceSummaryText(t.summary, t.model, out);
    auto render_window = [&](const WindowAnalysis& w) {
      out << "\nWindow " << w.window.label << ": " << FormatDuration(w.window.length()) << " at "
          << FormatOffset(w.window.start_ns - t.summary.whole.start_ns) << " from the trace start ["
          << w.window.start_ns << ", " << w.window.end_ns << ") ns\n";
      RenderOverlapText(w.overlap, t.model, render, out);
      RenderIdleGapsText(w.idle, t.model, render, out);
      RenderCommunicationText(w.communication, t.model, render, out);
#ifdef STREAMSCOPE_REPORT_GAP_CAUSES
      RenderGapCausesText(w.gap_causes, t.model, out);
#endif
#ifdef STREAMSCOPE_REPORT_HIDDEN_SYNC
      RenderHiddenSyncText(w.hidden_sync, t.model, out);
#endif
#ifdef STREAMSCOPE_REPORT_LAUNCH_STATS
      RenderLaunchStatsText(w.launch_stats, t.model, out);
      RenderDiagnoseText(w.diagnose, t.model, out);
#endif
      RenderHazardsText(w.hazards, w.ownership, t.model, render.top, out);
      RenderTimingAuditText(w.timing_audit, t.model, render.top, out);
    };
    if (t.instances.empty()) {
      for (const WindowAnalysis& w : t.windows) render_window(w);
      continue;
    }
    // Many instances of an NVTX range: their spread and the longest ones,
    // then the longest in full.
    RenderInstancesText(t.instances, render.top, out);
    out << "\nThe longest instance in full:\n";
    for (const WindowAnalysis& w : t.windows) render_window(w);
  }
  if (traces.size() > 1) {
    std::vector<DeviceTotals> totals = Combine(traces);
    out << "\nCombined over " << traces.size() << " processes:\n";
    for (const DeviceTotals& x : totals) {
      out << "  pid " << x.pid << " device " << x.device_id << ": busy " << FormatDuration(x.busy_ns) << " of "
          << FormatDuration(x.window_ns) << " (" << FormatShare(x.busy_ns, x.window_ns) << "), copies hidden "
          << FormatDuration(x.copy_ns - x.exposed_copy_ns) << " of " << FormatDuration(x.copy_ns) << " ("
          << FormatShare(x.copy_ns - x.exposed_copy_ns, x.copy_ns) << "), " << x.listed_gaps << " long gaps ("
          << FormatDuration(x.listed_gap_ns) << ")  [" << x.path << "]\n";
    }
    DeviceTotals s = Sum(totals);
    out << "  all: busy " << FormatDuration(s.busy_ns) << " of " << FormatDuration(s.window_ns) << " device time ("
        << FormatShare(s.busy_ns, s.window_ns) << "), copies hidden " << FormatDuration(s.copy_ns - s.exposed_copy_ns)
        << " of " << FormatDuration(s.copy_ns) << " (" << FormatShare(s.copy_ns - s.exposed_copy_ns, s.copy_ns)
        << ").\n";
    CrossRankResult ranks = CrossRank(traces, render.top);
    bool any_comm = false;
    for (const RankFigures& r : ranks.ranks) any_comm |= r.comm_ns > 0;
    if (any_comm) RenderCrossRankText(ranks, out);
  }
}

// All tables of one trace: the trace-level ones, then each per-window table
// with a leading window_index column, rows of all windows together.
std::vector<ResultTable> TraceTables(const TraceAnalysis& t) {
  std::vector<ResultTable> out;
  out.push_back(TraceSummaryToTable(t.summary));
  ResultTable windows{"analysis_window", {"window_index", "label", "start_ns", "end_ns", "length_ns"}, {}};
  std::vector<ResultTable> merged;
  auto merge = [&](int64_t index, std::vector<ResultTable> tables) {
    for (ResultTable& table : tables) {
      ResultTable* target = nullptr;
      for (ResultTable& m : merged) {
        if (m.name == table.name) target = &m;
      }
      if (target == nullptr) {
        merged.push_back({table.name, {"window_index"}, {}});
        target = &merged.back();
        target->columns.insert(target->columns.end(), table.columns.begin(), table.columns.end());
      }
      for (auto& row : table.rows) {
        row.insert(row.begin(), ResultValue(index));
        target->rows.push_back(std::move(row));
      }
      // A table's rows come all materialized or all generated, so the
      // windows' rows stay in window order either way.
      for (ResultTable::RowSource& source : table.sources) {
        source.prefix.insert(source.prefix.begin(), ResultValue(index));
        target->sources.push_back(std::move(source));
      }
    }
  };
  for (size_t i = 0; i < t.windows.size(); ++i) {
    const WindowAnalysis& w = t.windows[i];
    int64_t index = static_cast<int64_t>(i);
    windows.rows.push_back({index, w.window.label, w.window.start_ns, w.window.end_ns, w.window.length()});
    merge(index, OverlapToTables(w.overlap, t.model));
    merge(index, IdleGapsToTables(w.idle, t.model));
    merge(index, CommunicationToTables(w.communication));
#ifdef STREAMSCOPE_REPORT_GAP_CAUSES
    merge(index, GapCausesToTables(w.gap_causes, t.model));
#endif
#ifdef STREAMSCOPE_REPORT_HIDDEN_SYNC
    merge(index, HiddenSyncToTables(w.hidden_sync, t.model));
#endif
#ifdef STREAMSCOPE_REPORT_LAUNCH_STATS
    merge(index, LaunchStatsToTables(w.launch_stats, t.model));
#endif
    merge(index, HazardsToTables(w.hazards, w.ownership, t.model));
    merge(index, TimingAuditToTables(w.timing_audit, t.model));
  }
  out.push_back(std::move(windows));
  for (ResultTable& m : merged) out.push_back(std::move(m));
  return out;
}

void RenderCsv(const std::vector<TraceAnalysis>& traces, std::ostream& out) {
  for (const TraceAnalysis& t : traces) {
    for (const ResultTable& table : TraceTables(t)) {
      out << "# trace: " << t.model.path << "\n# table: " << table.name << "\n";
      WriteCsv(table, out);
      out << "\n";
    }
  }
}

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

int Fail(const absl::Status& status, std::ostream& err) {
  err << "streamscope: " << status.message() << "\n";
  return ExitCodeFor(status);
}

}  // namespace

int RunReport(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  if (options.traces.empty()) {
    err << "streamscope: report needs at least one trace file\n";
    return kExitUsage;
  }
  std::vector<TraceAnalysis> traces;
  for (const std::string& path : options.traces) {
    Timer().Mark("start");
    auto models = LoadTraceFile(path);
    if (!models.ok()) return Fail(models.status(), err);
    Timer().Mark("load");
    for (TraceModel& model : *models) {
      TraceAnalysis t;
      t.model = std::move(model);
      t.summary = SummarizeTrace(t.model);
      Timer().Mark("summary");
      auto windows = ResolveWindows(t.model, options.window);
      if (!windows.ok()) return Fail(windows.status(), err);
      TraceHazards hazards = PrepareHazards(t.model);
      // Text over many instances keeps only what its summary prints.
      const bool summarize = options.format == ReportOptions::Format::kText && !options.save &&
                             windows->size() > kFullTextWindows;
      for (const Window& w : *windows) {
        WindowAnalysis analysis = Analyze(t.model, w, options);
        AnalyzeMemory(analysis, t.model, hazards, options);
        t.Add(std::move(analysis), summarize);
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
        return Fail(absl::FailedPreconditionError(absl::StrCat(
                        t.model.path, ": holds ", per_file[t.model.path],
                        " processes; --save needs one process per file (convert it first)")),
                    err);
      }
      absl::Status s = SaveAnalysisTables(t.model.path, TraceTables(t));
      if (!s.ok()) return Fail(s, err);
    }
    Timer().Mark("save");
  }

  RenderOptions render;
  render.top = options.top;
  std::ostringstream buffer;
  std::ostream& sink = options.output_path.empty() ? out : buffer;
  switch (options.format) {
    case ReportOptions::Format::kText: RenderText(traces, render, sink); break;
    case ReportOptions::Format::kJson: RenderJson(traces, options, render, sink); break;
    case ReportOptions::Format::kCsv:
      if (!options.output_path.empty()) {  // a folder, one file per table (csv_writer.h)
        std::vector<std::vector<ResultTable>> tables;
        for (const TraceAnalysis& t : traces) tables.push_back(TraceTables(t));
        absl::Status s = WriteCsvFolder(options.output_path, tables, options.force);
        if (!s.ok()) return Fail(s, err);
        Timer().Mark("render");
        return kExitOk;
      }
      RenderCsv(traces, sink);
      break;
  }
  if (!options.output_path.empty()) {
    absl::Status s = WriteOutputFile(options.output_path, buffer.str(), options.traces);
    if (!s.ok()) return Fail(s, err);
  }
  Timer().Mark("render");
  return kExitOk;
}

}  // namespace streamscope
