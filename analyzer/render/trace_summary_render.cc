#include "analyzer/render/trace_summary_render.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/analysis/causes/host_link_rate.h"
#include "analyzer/base/units.h"
#include "analyzer/render/host_link_render.h"

namespace streamscope {
namespace {

std::string CountName(int c) { return c == 0 ? "kernels" : std::string(OpCategoryName(static_cast<OpCategory>(c))); }

// "host link PCIe 5.0 x16 (63.0 GB/s per direction, a theoretical ceiling;
// gen 1 x16 when probed; from nvml)".
std::string HostLinkText(const Device::HostLink& l) {
  std::optional<HostLinkRate> rate = RateOfHostLink(l);
  if (!rate) return absl::StrCat("host link not readable (from ", l.source, ")");
  std::string s = absl::StrCat("host link ", HostLinkName(*rate), " (", absl::StrFormat("%.1f", rate->bytes_per_ns),
                               " GB/s per direction, a theoretical ceiling");
  if (l.c2c_enabled != 1 && l.pcie_gen_current > 0 && l.pcie_width_current > 0 &&
      (l.pcie_gen_current != l.pcie_gen_max || l.pcie_width_current != l.pcie_width_max)) {
    absl::StrAppend(&s, "; gen ", l.pcie_gen_current, " x", l.pcie_width_current, " when probed");
  }
  absl::StrAppend(&s, "; from ", l.source, ")");
  return s;
}

std::string DeviceText(const Device& d) {
  std::string s = absl::StrCat("device ", d.id, ": ", d.name.empty() ? "(unnamed)" : d.name);
  std::vector<std::string> facts;
  if (d.compute_major > 0) facts.push_back(absl::StrCat("cc ", d.compute_major, ".", d.compute_minor));
  if (d.sm_count > 0) facts.push_back(absl::StrCat(d.sm_count, " SMs"));
  facts.push_back(d.async_engine_count < 0
                      ? "copy engines unknown"
                      : absl::StrCat(d.async_engine_count, " copy engine", d.async_engine_count == 1 ? "" : "s"));
  facts.push_back(d.concurrent_kernels < 0   ? "concurrent kernels unknown"
                  : d.concurrent_kernels > 0 ? "concurrent kernels: yes"
                                             : "concurrent kernels: NO");
  if (d.global_memory_bytes > 0) facts.push_back(FormatBytes(d.global_memory_bytes));
  absl::StrAppend(&s, " (");
  for (size_t i = 0; i < facts.size(); ++i) absl::StrAppend(&s, i ? ", " : "", facts[i]);
  absl::StrAppend(&s, ")");
  if (d.link.recorded) absl::StrAppend(&s, "; ", HostLinkText(d.link));
  if (d.async_engine_count == 1)
    absl::StrAppend(&s, " -- one copy engine: H2D and D2H copies cannot overlap each other");
  if (d.async_engine_count == 0) absl::StrAppend(&s, " -- no copy engine: copies cannot overlap kernels");
  if (d.concurrent_kernels == 0) absl::StrAppend(&s, " -- kernels cannot run concurrently");
  return s;
}

// "key=value, key=value" of the import counters behind a warning.
std::string StatList(const std::vector<std::pair<std::string, int64_t>>& stats) {
  std::string out;
  for (const auto& [key, value] : stats) absl::StrAppend(&out, out.empty() ? "" : ", ", key, "=", value);
  return out;
}

// The host link as recorded (-1 figures as null); absent when not recorded.
void AddHostLinkJson(const Device& d, nlohmann::json* device) {
  if (!d.link.recorded) return;
  auto figure = [](int32_t v) { return v < 0 ? nlohmann::json() : nlohmann::json(v); };
  std::optional<HostLinkRate> rate = RateOfHostLink(d.link);
  (*device)["host_link"] = {
      {"source", d.link.source},
      {"pcie_gen_current", figure(d.link.pcie_gen_current)},
      {"pcie_width_current", figure(d.link.pcie_width_current)},
      {"pcie_gen_max", figure(d.link.pcie_gen_max)},
      {"pcie_width_max", figure(d.link.pcie_width_max)},
      {"c2c", d.link.c2c_enabled < 0 ? nlohmann::json() : nlohmann::json(d.link.c2c_enabled == 1)},
      {"label", rate ? nlohmann::json(HostLinkName(*rate)) : nlohmann::json()},
      {"bytes_per_ns_per_direction", rate ? nlohmann::json(rate->bytes_per_ns) : nlohmann::json()}};
}

}  // namespace

std::string TraceWarningText(const TraceWarning& w) {
  switch (w.kind) {
    case TraceWarning::Kind::kRecordsLeftOut:
      return absl::StrCat(w.count,
                          " records could not be placed on the timeline "
                          "and were left out of every analysis (",
                          StatList(w.stats), ")");
    case TraceWarning::Kind::kRecordsInconsistent:
      return absl::StrCat(w.count, " inconsistent records were kept (", StatList(w.stats), ")");
    case TraceWarning::Kind::kCollectorLostRecords:
      return absl::StrCat("the collector lost ", w.count, " records during capture: figures may miss work");
    case TraceWarning::Kind::kCaptureUnfinished:
      return "capture did not finish (capture_end='running'): the process was probably "
             "killed; the end of the trace may be missing";
    case TraceWarning::Kind::kCaptureAbnormal: return absl::StrCat("capture ended abnormally: ", w.value);
    case TraceWarning::Kind::kValidationFailed: return absl::StrCat("the workload's own validation failed: ", w.value);
  }
  return "";
}

std::vector<std::string> TraceSummaryWarnings(const TraceSummary& s) {
  std::vector<std::string> out;
  for (const TraceWarning& w : s.warnings) out.push_back(TraceWarningText(w));
  return out;
}

std::vector<std::string> TraceSummaryNotes(const TraceSummary& s) {
  std::vector<std::string> out = s.notes;
  if (s.ops_on_streams_before_recording > 0) {
    out.push_back(absl::StrCat(s.ops_on_streams_before_recording,
                               " ops ran on streams created before the recording started "
                               "(streamscope_record_start in a running process): their stream kind is "
                               "not recorded"));
  }
  return out;
}

nlohmann::json DeviceJson(const Device& d) {
  nlohmann::json j = {
      {"id", d.id},
      {"name", d.name},
      {"uuid", d.uuid},
      {"compute_capability", absl::StrCat(d.compute_major, ".", d.compute_minor)},
      {"sm_count", d.sm_count},
      {"copy_engines", d.async_engine_count < 0 ? nlohmann::json() : nlohmann::json(d.async_engine_count)},
      {"concurrent_kernels", d.concurrent_kernels < 0 ? nlohmann::json() : nlohmann::json(d.concurrent_kernels > 0)},
      {"global_memory_bytes", d.global_memory_bytes}};
  AddHostLinkJson(d, &j);
  return j;
}

nlohmann::json TraceSummaryToJson(const TraceSummary& s, const TraceModel& model) {
  nlohmann::json counts = {{"gpu_ops", s.gpu_ops},         {"api_calls", s.api_calls},   {"syncs", s.syncs},
                           {"nvtx_ranges", s.nvtx_ranges}, {"nvtx_marks", s.nvtx_marks}, {"streams", s.streams}};
  for (int c = 0; c < kNumOpCategories; ++c) counts[CountName(c)] = s.op_count[c];
  nlohmann::json workload;  // null without workload marks
  if (s.has_workload) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [k, v] : s.workload.params) params[k] = v;
    workload = {
        {"variant", s.workload.variant},
        {"params", params},
        {"validation", s.workload.validation.empty() ? nlohmann::json() : nlohmann::json(s.workload.validation)}};
  }
  nlohmann::json devices = nlohmann::json::array();
  for (const Device& d : model.devices) devices.push_back(DeviceJson(d));
  return {{"capture_end", s.capture_end},
          {"capture_abnormal", s.capture_abnormal},
          {"trace_start_ns", s.whole.start_ns},
          {"trace_end_ns", s.whole.end_ns},
          {"duration_ns", s.whole.length()},
          {"workload", workload},
          {"devices", devices},
          {"counts", counts},
          {"records_dropped", s.records_dropped},
          {"records_inconsistent", s.records_inconsistent},
          {"collector_dropped", s.collector_dropped},
          {"import_stats", s.import_stats},
          {"collector_stats", model.collector_stats},
          {"warnings", TraceSummaryWarnings(s)},
          {"notes", TraceSummaryNotes(s)}};
}

void RenderTraceSummaryText(const TraceSummary& s, const TraceModel& model, std::ostream& out) {
  out << "Trace " << s.path << " (" << s.format;
  if (s.pid) out << ", pid " << s.pid;
  out << ")\n";
  for (const std::string& w : TraceSummaryWarnings(s)) out << "  WARNING: " << w << "\n";
  out << "  Capture: " << (s.capture_end.empty() ? "end unknown" : s.capture_end) << ", "
      << FormatDuration(s.whole.length()) << " from the first to the last GPU op or API call.\n";
  if (s.has_workload) {
    out << "  Workload: " << (s.workload.variant.empty() ? "(unnamed)" : s.workload.variant);
    for (size_t i = 0; i < s.workload.params.size(); ++i) {
      out << (i ? ", " : " (") << s.workload.params[i].first << "=" << s.workload.params[i].second;
    }
    if (!s.workload.params.empty()) out << ")";
    out << "; validation " << (s.workload.validation.empty() ? "not recorded" : s.workload.validation) << ".\n";
  }
  out << "  Records: " << s.gpu_ops << " GPU ops (";
  bool first = true;
  for (int c = 0; c < kNumOpCategories; ++c) {
    if (s.op_count[c] == 0) continue;
    out << (first ? "" : ", ") << s.op_count[c] << " " << CountName(c);
    first = false;
  }
  if (first) out << "none";
  out << "), " << s.api_calls << " API calls, " << s.syncs << " syncs, " << s.nvtx_ranges << " NVTX ranges, "
      << s.streams << " streams.\n";
  for (const Device& d : model.devices) out << "  " << DeviceText(d) << "\n";
  for (const std::string& n : TraceSummaryNotes(s)) out << "  Note: " << n << "\n";
}

ResultTable TraceSummaryToTable(const TraceSummary& s) {
  ResultTable t{"analysis_trace_summary", {"key", "value"}, {}};
  auto add = [&](std::string key, std::string value) { t.rows.push_back({std::move(key), std::move(value)}); };
  add("path", s.path);
  add("format", s.format);
  add("pid", absl::StrCat(s.pid));
  add("capture_end", s.capture_end);
  add("trace_start_ns", absl::StrCat(s.whole.start_ns));
  add("trace_end_ns", absl::StrCat(s.whole.end_ns));
  if (s.has_workload) {
    add("workload", s.workload.variant);
    for (const auto& [k, v] : s.workload.params) add("param:" + k, v);
    add("validation", s.workload.validation);
  }
  for (int c = 0; c < kNumOpCategories; ++c) add("count:" + CountName(c), absl::StrCat(s.op_count[c]));
  add("count:api_calls", absl::StrCat(s.api_calls));
  add("count:syncs", absl::StrCat(s.syncs));
  add("count:nvtx_ranges", absl::StrCat(s.nvtx_ranges));
  add("count:nvtx_marks", absl::StrCat(s.nvtx_marks));
  add("count:streams", absl::StrCat(s.streams));
  add("records_dropped", absl::StrCat(s.records_dropped));
  add("collector_dropped", absl::StrCat(s.collector_dropped));
  for (const auto& [k, v] : s.import_stats) add("import:" + k, absl::StrCat(v));
  const std::vector<std::string> warnings = TraceSummaryWarnings(s), notes = TraceSummaryNotes(s);
  for (size_t i = 0; i < warnings.size(); ++i) add(absl::StrCat("warning:", i + 1), warnings[i]);
  for (size_t i = 0; i < notes.size(); ++i) add(absl::StrCat("note:", i + 1), notes[i]);
  return t;
}

}  // namespace streamscope
