#include "analyzer/render/launch_stats_render.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/op_ref.h"
#include "analyzer/render/text_layout.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

constexpr const char* kLaunchBoundRule =
    "a kernel name (launched individually, with at least min_launches_for_launch_bound "
    "recorded launch calls) is launch-bound when its mean GPU duration is "
    "shorter than the mean duration of its launch call (api_slower_than_gpu), or when the "
    "device idled longer before its kernels than they ran in total, counting only idle time "
    "after the previous kernel on the same stream whose launch call had already begun before "
    "that kernel ended (launch_gaps_exceed_gpu)";

std::string NameOf(const TraceModel& m, StringId id) {
  return id >= 0 ? std::string(DisplayName(m.strings, id)) : std::string("(unnamed)");
}

// The kernel's name as recorded (mangled), beside the demangled `name`.
nlohmann::json MangledJson(const TraceModel& m, StringId id) {
  return id >= 0 ? nlohmann::json(std::string(m.strings.Get(id))) : nlohmann::json(nullptr);
}

int64_t StreamId(const TraceModel& m, int32_t s) {
  return s >= 0 && static_cast<size_t>(s) < m.streams.size() ? m.streams[s].id : -1;
}

nlohmann::json KernelJson(const TraceModel& m, int32_t op) {
  if (op < 0) return nullptr;
  const GpuOps& ops = m.ops;
  return {{"table", "kernel"},
          {"id", ops.source_id[op]},
          {"name", ops.name[op] >= 0 ? nlohmann::json(std::string(DisplayName(m.strings, ops.name[op])))
                                     : nlohmann::json(nullptr)},
          {"mangled_name", MangledJson(m, ops.name[op])},
          {"stream_id", StreamId(m, ops.stream[op])},
          {"device_id", ops.device_id[op]},
          {"start_ns", ops.start_ns[op]},
          {"end_ns", ops.end_ns[op]}};
}

nlohmann::json DistJson(const Distribution& d) {
  return {{"count", d.count}, {"min", d.min}, {"median", d.median}, {"p90", d.p90},
          {"p99", d.p99},     {"max", d.max}, {"mean", d.mean},     {"total", d.total}};
}

std::string Reasons(const KernelLaunchStats& k) {
  if (k.api_slower_than_gpu && k.launch_gaps_exceed_gpu) return "api_slower_than_gpu,launch_gaps_exceed_gpu";
  if (k.api_slower_than_gpu) return "api_slower_than_gpu";
  if (k.launch_gaps_exceed_gpu) return "launch_gaps_exceed_gpu";
  return "";
}

size_t Limit(const LaunchStatsResult& r) { return static_cast<size_t>(std::max(r.options.max_listed, 0)); }

}  // namespace

nlohmann::json LaunchStatsToJson(const LaunchStatsResult& r, const TraceModel& m) {
  nlohmann::json j;
  j["analysis"] = "launch_stats";
  j["window"] = {{"label", WindowLabel(r.window)},
                 {"start_ns", r.window.start_ns},
                 {"end_ns", r.window.end_ns},
                 {"length_ns", r.window.length()}};
  j["options"] = {{"max_listed", r.options.max_listed},
                  {"min_launches_for_launch_bound", r.options.min_launches_for_launch_bound}};
  j["launch_bound_rule"] = kLaunchBoundRule;
  j["kernels"] = r.kernel_count;
  j["graph_kernels"] = r.graph_kernel_count;
  j["no_api_kernels"] = r.no_api_count;
  j["launch_bound_kernels"] = r.launch_bound_kernels;
  nlohmann::json first = nlohmann::json::array();
  for (const FirstLaunchOutlier& f : r.first_launches) {
    first.push_back({{"name", NameOf(m, f.kernel)},
                     {"mangled_name", MangledJson(m, f.kernel)},
                     {"api_id", f.api >= 0 ? nlohmann::json(m.api.source_id[f.api]) : nlohmann::json(nullptr)},
                     {"call_ns", f.call_ns},
                     {"median_ns", f.median_ns},
                     {"excess_ns", f.excess_ns()}});
  }
  j["first_launch_outliers"] = first;
  j["graph_removable_ns"] = r.graph_removable_ns;
  j["graph_removable_gaps"] = r.graph_removable_gaps;
  j["graph_removable_share_of_window"] = ShareOf(r.graph_removable_ns, r.window.length());
  j["graph_kernel_gap_ns"] = r.graph_kernel_gap_ns;
  j["by_name"] = nlohmann::json::array();
  for (const KernelLaunchStats& k : r.kernels) {
    nlohmann::json reasons = nlohmann::json::array();
    if (k.api_slower_than_gpu) reasons.push_back("api_slower_than_gpu");
    if (k.launch_gaps_exceed_gpu) reasons.push_back("launch_gaps_exceed_gpu");
    j["by_name"].push_back({{"name", k.name >= 0 ? nlohmann::json(NameOf(m, k.name)) : nlohmann::json(nullptr)},
                            {"mangled_name", MangledJson(m, k.name)},
                            {"from_graph", k.from_graph},
                            {"count", k.count},
                            {"no_api_count", k.no_api_count},
                            {"api_ns", DistJson(k.api_ns)},
                            {"queue_ns", DistJson(k.queue_ns)},
                            {"gpu_ns", DistJson(k.gpu_ns)},
                            {"idle_before_ns", k.idle_before_ns},
                            {"idle_before_count", k.idle_before_count},
                            {"graph_removable_ns", k.graph_removable_ns},
                            {"graph_removable_gaps", k.graph_removable_gaps},
                            {"launch_bound", k.launch_bound()},
                            {"launch_bound_reasons", reasons},
                            {"first_op", KernelJson(m, k.first_op)},
                            {"max_queue_op", KernelJson(m, k.max_queue_op)},
                            {"started_during_call", k.started_during_call}});
  }
  j["worst_removable_gaps"] = nlohmann::json::array();
  for (const RemovableGap& g : r.worst_gaps) {
    nlohmann::json api = nullptr;
    if (g.api >= 0) {
      api = {{"id", m.api.source_id[g.api]},
             {"name", std::string(DisplayName(m.strings, m.api.name[g.api]))},
             {"tid", m.api.tid[g.api]},
             {"start_ns", m.api.start_ns[g.api]},
             {"end_ns", m.api.end_ns[g.api]}};
    }
    j["worst_removable_gaps"].push_back({{"prev_op", KernelJson(m, g.prev_op)},
                                         {"next_op", KernelJson(m, g.next_op)},
                                         {"idle_ns", g.idle_ns},
                                         {"api", api}});
  }
  j["streams"] = nlohmann::json::array();
  for (const StreamLaunchGaps& s : r.streams) {
    j["streams"].push_back({{"stream_id", StreamId(m, s.stream)},
                            {"device_id", s.device_id},
                            {"kernels", s.kernels},
                            {"idle_between_ns", s.idle_between_ns},
                            {"graph_removable_ns", s.graph_removable_ns},
                            {"graph_removable_gaps", s.graph_removable_gaps}});
  }
  return j;
}

void RenderLaunchStatsText(const LaunchStatsResult& r, const TraceModel& m, std::ostream& out) {
  out << "Launch statistics — window '" << WindowLabel(r.window) << "', " << FormatDuration(r.window.length()) << "\n";
  if (r.kernel_count == 0) {
    out << "  No kernels started in the window.\n";
    return;
  }
  out << "  " << r.kernel_count << " kernel(s) of " << r.kernels.size() << " name group(s); " << r.graph_kernel_count
      << " launched from CUDA graphs; " << r.no_api_count << " without a recorded launch call (unknown submitter).\n";
  if (r.graph_removable_gaps > 0) {
    out << "  A CUDA graph could remove up to " << FormatDuration(r.graph_removable_ns) << " of GPU idle "
        << "time (" << FormatWholePercent(ShareOf(r.graph_removable_ns, r.window.length()))
        << " of the window): " << r.graph_removable_gaps
        << " gap(s) between consecutive kernels on a stream whose launch call began before the "
           "previous kernel ended.\n";
  } else {
    out << "  No idle gaps between individually launched kernels that a CUDA graph could "
           "remove.\n";
  }
  if (r.graph_kernel_count > 0) {
    out << "  Kernels launched from graphs idled the GPU " << FormatDuration(r.graph_kernel_gap_ns)
        << " between consecutive graph kernels.\n";
  }
  for (const FirstLaunchOutlier& f : r.first_launches) {
    out << "  First-launch outlier (module loading, not counted as launch cost): '" << NameOf(m, f.kernel)
        << "' launch call took " << FormatDuration(f.call_ns) << " vs a median of " << FormatDuration(f.median_ns)
        << " (" << FormatDuration(f.excess_ns()) << " more).\n";
  }
  for (const KernelLaunchStats& k : r.kernels) {
    if (!k.launch_bound()) continue;
    out << "  Launch-bound: '" << ShortenName(NameOf(m, k.name)) << "' (" << k.count << " launches):";
    if (k.api_slower_than_gpu) {
      out << " median GPU time " << FormatDuration(k.gpu_ns.median) << " < median launch call "
          << FormatDuration(k.api_ns.median) << ";";
    }
    if (k.launch_gaps_exceed_gpu) {
      out << " GPU idle between launches already under way " << FormatDuration(k.graph_removable_ns)
          << " > their GPU time " << FormatDuration(k.gpu_ns.total) << ";";
    }
    if (k.first_op >= 0) out << " first: " << OpRef(m, k.first_op) << ".";
    out << "\n";
  }
  out << "  Per kernel name (by GPU time; median / p90 / max):\n";
  size_t listed = 0;
  for (const KernelLaunchStats& k : r.kernels) {
    if (listed++ == Limit(r)) {
      out << "    ... " << (r.kernels.size() - Limit(r)) << " more.\n";
      break;
    }
    out << "    '" << ShortenName(NameOf(m, k.name)) << "'" << (k.from_graph ? " [graph]" : "") << " x" << k.count
        << ": GPU " << FormatDuration(k.gpu_ns.median) << " / " << FormatDuration(k.gpu_ns.p90) << " / "
        << FormatDuration(k.gpu_ns.max);
    if (k.api_ns.count > 0) {
      out << "; launch call " << FormatDuration(k.api_ns.median) << " / " << FormatDuration(k.api_ns.p90) << " / "
          << FormatDuration(k.api_ns.max) << "; queue " << FormatDuration(k.queue_ns.median) << " / "
          << FormatDuration(k.queue_ns.p90) << " / " << FormatDuration(k.queue_ns.max);
      if (k.max_queue_op >= 0 && k.queue_ns.max > 0) out << " (longest: " << OpRef(m, k.max_queue_op) << ")";
      if (k.started_during_call > 0) out << "; " << k.started_during_call << " started during their launch call";
    }
    if (k.no_api_count > 0) out << "; " << k.no_api_count << " without launch call";
    out << ".\n";
  }
  bool header = false;
  size_t streams = 0;
  for (const StreamLaunchGaps& s : r.streams) {
    if (s.graph_removable_gaps == 0 || streams++ == Limit(r)) continue;
    if (!header) out << "  Graph-removable idle time per stream:\n";
    header = true;
    out << "    stream " << StreamId(m, s.stream) << " (GPU " << s.device_id
        << "): " << FormatDuration(s.graph_removable_ns) << " in " << s.graph_removable_gaps << " gap(s) among "
        << s.kernels << " kernels.\n";
  }
  constexpr size_t kTextGaps = 5;
  for (size_t g = 0; g < r.worst_gaps.size() && g < kTextGaps; ++g) {
    if (g == 0) out << "  Largest graph-removable gaps:\n";
    const RemovableGap& gap = r.worst_gaps[g];
    out << "    " << FormatDuration(gap.idle_ns) << " idle on stream " << StreamId(m, m.ops.stream[gap.next_op])
        << " between " << OpRef(m, gap.prev_op) << ", ended at +"
        << FormatDuration(m.ops.end_ns[gap.prev_op] - r.window.start_ns) << ", and " << OpNamedRef(m, gap.next_op)
        << ", whose launch " << CallRef(m, gap.api) << " began at +"
        << FormatDuration(m.api.start_ns[gap.api] - r.window.start_ns) << ".\n";
  }
}

std::vector<ResultTable> LaunchStatsToTables(const LaunchStatsResult& r, const TraceModel& m) {
  ResultTable t;
  t.name = "analysis_launch_stats";
  t.columns = {"window", "name", "mangled_name", "from_graph", "count", "no_api_count"};
  for (const char* prefix : {"api", "queue", "gpu"}) {
    for (const char* stat : {"min", "median", "p90", "p99", "max", "mean"}) {
      t.columns.push_back(absl::StrCat(prefix, "_", stat, "_ns"));
    }
  }
  for (const char* c : {"gpu_total_ns", "idle_before_ns", "graph_removable_ns", "graph_removable_gaps", "launch_bound",
                        "launch_bound_reason", "first_op_id", "max_queue_op_id", "started_during_call"}) {
    t.columns.push_back(c);
  }
  for (const KernelLaunchStats& k : r.kernels) {
    std::vector<ResultValue> row = {WindowLabel(r.window),
                                    k.name >= 0 ? ResultValue(NameOf(m, k.name)) : ResultValue(),
                                    k.name >= 0 ? ResultValue(std::string(m.strings.Get(k.name))) : ResultValue(),
                                    int64_t{k.from_graph ? 1 : 0},
                                    k.count,
                                    k.no_api_count};
    for (const Distribution* d : {&k.api_ns, &k.queue_ns, &k.gpu_ns}) {
      if (d->count == 0) {
        row.resize(row.size() + 6);  // NULLs
        continue;
      }
      for (int64_t v : {d->min, d->median, d->p90, d->p99, d->max}) row.emplace_back(v);
      row.emplace_back(d->mean);
    }
    row.push_back(k.gpu_ns.total);
    row.push_back(k.idle_before_ns);
    row.push_back(k.graph_removable_ns);
    row.push_back(k.graph_removable_gaps);
    row.push_back(int64_t{k.launch_bound() ? 1 : 0});
    row.push_back(Reasons(k));
    row.push_back(k.first_op >= 0 ? ResultValue(m.ops.source_id[k.first_op]) : ResultValue());
    row.push_back(k.max_queue_op >= 0 ? ResultValue(m.ops.source_id[k.max_queue_op]) : ResultValue());
    row.push_back(k.started_during_call);
    t.rows.push_back(std::move(row));
  }
  ResultTable s;
  s.name = "analysis_launch_stats_streams";
  s.columns = {"window",          "stream_id",          "device_id",           "kernels",
               "idle_between_ns", "graph_removable_ns", "graph_removable_gaps"};
  for (const StreamLaunchGaps& g : r.streams) {
    s.rows.push_back({WindowLabel(r.window), StreamId(m, g.stream), int64_t{g.device_id}, g.kernels, g.idle_between_ns,
                      g.graph_removable_ns, g.graph_removable_gaps});
  }
  ResultTable gaps;
  gaps.name = "analysis_launch_stats_gaps";
  gaps.columns = {"window",     "rank",          "stream_id", "device_id", "prev_op_id",   "prev_end_ns",
                  "next_op_id", "next_start_ns", "idle_ns",   "api_id",    "api_start_ns", "tid"};
  int64_t rank = 1;
  for (const RemovableGap& g : r.worst_gaps) {
    gaps.rows.push_back({WindowLabel(r.window), rank++, StreamId(m, m.ops.stream[g.next_op]),
                         int64_t{m.ops.device_id[g.next_op]}, m.ops.source_id[g.prev_op], m.ops.end_ns[g.prev_op],
                         m.ops.source_id[g.next_op], m.ops.start_ns[g.next_op], g.idle_ns, m.api.source_id[g.api],
                         m.api.start_ns[g.api], m.api.tid[g.api]});
  }
  return {std::move(t), std::move(s), std::move(gaps)};
}

}  // namespace streamscope
