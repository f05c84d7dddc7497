#include "analyzer/render/instances_render.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/analysis/causes/lower_median.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/text_layout.h"

namespace streamscope {
namespace {

// Nearest-rank percentile of `v` (sorted ascending, not empty).
template <typename T>
T Percentile(const std::vector<T>& v, int pct) {
  size_t rank = (static_cast<size_t>(pct) * v.size() + 99) / 100;
  return v[rank == 0 ? 0 : rank - 1];
}

// "median 1.85 ms, p90 2.10 ms, max 3.21 ms"
std::string DurationSpread(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return absl::StrCat("median ", FormatDuration(Percentile(v, 50)), ", p90 ", FormatDuration(Percentile(v, 90)),
                      ", max ", FormatDuration(v.back()));
}

// "median 82%, p10 71%, min 40%" (low is bad: the spread goes down).
std::string ShareSpread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return absl::StrCat("median ", FormatShare(Percentile(v, 50)), ", p10 ", FormatShare(Percentile(v, 10)), ", min ",
                      FormatShare(v.front()));
}

// At most 160 bytes, cut at a character boundary, "..." when cut.
std::string Shortened(const std::string& text) {
  constexpr size_t kMax = 160;
  if (text.size() <= kMax) return text;
  size_t cut = kMax - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 continuation byte
  return text.substr(0, cut) + "...";
}

// The call's name (host_blocked_in_call, first_launch, round_trip,
// sync_wait) or the NVTX range's (host_nvtx_range), as gap causes name them.
bool TopIsApiName(GapCause c) {
  return c == GapCause::kHostBlockedInCall || c == GapCause::kFirstLaunch || IsHostDrain(c);
}
bool TopIsNvtxName(GapCause c) { return c == GapCause::kHostNvtxRange; }

// "3.00 ms host_nvtx_range 'prepare'", "-" without idle time; at most
// `columns` wide (the name cut at its end).
std::string TopCauseText(const InstanceRow& x, const TraceModel& model, size_t columns) {
  if (!x.has_cause) return "-";
  std::string text = absl::StrCat(FormatDuration(x.top_cause_ns), " ", std::string(GapCauseName(x.top_cause)));
  if (x.top_detail >= 0 && (TopIsNvtxName(x.top_cause) || TopIsApiName(x.top_cause))) {
    const std::string_view name = DisplayName(model.strings, x.top_detail);
    const size_t room = columns > text.size() + 3 ? columns - text.size() - 3 : 8;
    absl::StrAppend(&text, TopIsNvtxName(x.top_cause) ? " '" : " ", ShortenName(name, std::max<size_t>(room, 8)),
                    TopIsNvtxName(x.top_cause) ? "'" : "");
  }
  return text;
}

// Every row within kReportTextColumns: the cause is cut to what is left.
constexpr char kRowFormat[] = "  %5s %8s %8s %4s %8s %-15s %4s %s\n";
constexpr size_t kCauseColumns = kReportTextColumns - 67;

std::string RowText(const InstanceRow& x, const TraceModel& model, int64_t trace_start_ns) {
  const std::string overlap = x.overlap_possible_ns > 0 ? absl::StrCat(FormatShare(x.overlap_ns, x.overlap_possible_ns),
                                                                       " of ", FormatDuration(x.overlap_possible_ns))
                                                        : "-";
  return absl::StrFormat(kRowFormat, absl::StrCat(x.index + 1), FormatOffset(x.start_ns - trace_start_ns),
                         FormatDuration(x.length()), FormatWholePercent(ShareOf(x.busy_ns, x.device_ns)),
                         FormatDuration(x.idle_ns), overlap, x.slow ? "SLOW" : "",
                         TopCauseText(x, model, kCauseColumns));
}

std::string SourceText(const StepBreakdown& s, const TraceModel& model) {
  if (s.source == InstanceSource::kProfilerStep) return "torch.profiler steps (ProfilerStep#N)";
  if (s.source == InstanceSource::kNvtxRange) {
    return absl::StrCat("NVTX range '", ShortenName(DisplayName(model.strings, s.nvtx_name)), "'");
  }
  return absl::StrCat("a sequence of ", s.period_kernels, s.period_kernels == 1 ? " kernel" : " kernels");
}

}  // namespace

void RenderInstanceRowsText(const StepBreakdown& s, const TraceModel& model, int64_t trace_start_ns, bool compact,
                            std::ostream& out) {
  if (s.rows.empty()) return;
  out << "Instances of " << SourceText(s, model) << ": " << s.rows.size() << ", median " << FormatDuration(s.median_ns)
      << ", " << s.slow_count << " slow (> " << kSlowInstanceFactor << "x the median duration).\n";
  std::vector<const InstanceRow*> shown;
  const bool all = !compact || s.rows.size() <= kCompactInstanceRows;
  if (all) {
    for (const InstanceRow& x : s.rows) shown.push_back(&x);
  } else {
    // The median instance and the slowest ones, in time order.
    const InstanceRow* median = nullptr;
    std::vector<const InstanceRow*> slow;
    for (const InstanceRow& x : s.rows) {
      if (median == nullptr && x.length() == s.median_ns) median = &x;
      if (x.slow) slow.push_back(&x);
    }
    std::stable_sort(slow.begin(), slow.end(),
                     [](const InstanceRow* a, const InstanceRow* b) { return a->length() > b->length(); });
    if (slow.size() > kCompactInstanceRows - 1) slow.resize(kCompactInstanceRows - 1);
    if (median != nullptr) shown.push_back(median);
    shown.insert(shown.end(), slow.begin(), slow.end());
    std::sort(shown.begin(), shown.end(),
              [](const InstanceRow* a, const InstanceRow* b) { return a->index < b->index; });
  }
  if (!all && shown.size() == 1) out << "  The median one:\n";
  if (!all && shown.size() > 1) out << "  The median one and the " << shown.size() - 1 << " slowest, in time order:\n";
  out << absl::StrFormat(kRowFormat, "#", "start", "duration", "busy", "idle", "overlap", "", "largest idle cause");
  for (const InstanceRow* x : shown) out << RowText(*x, model, trace_start_ns);
  if (!all) {
    out << "  " << s.rows.size() - shown.size() << " more; every instance: report --section instances.\n";
  }
  if (s.outside_ns > 0) {
    out << "  Between the instances: " << FormatDuration(s.outside_ns) << " of the window, "
        << FormatDuration(s.outside_idle_ns) << " device idle (in no row).\n";
  }
}

nlohmann::json InstanceRowsToJson(const StepBreakdown& s, const TraceModel& model) {
  nlohmann::json rows = nlohmann::json::array();
  for (const InstanceRow& x : s.rows) {
    auto name = [&](bool applies) {
      return x.has_cause && applies && x.top_detail >= 0
                 ? nlohmann::json(std::string(DisplayName(model.strings, x.top_detail)))
                 : nlohmann::json(nullptr);
    };
    rows.push_back(
        {{"instance", x.index + 1},
         {"start_ns", x.start_ns},
         {"end_ns", x.end_ns},
         {"duration_ns", x.length()},
         {"device_ns", x.device_ns},
         {"busy_ns", x.busy_ns},
         {"idle_ns", x.idle_ns},
         {"compute_ns", x.compute_ns},
         {"copy_ns", x.copy_ns},
         {"overlap_ns", x.overlap_ns},
         {"overlap_possible_ns", x.overlap_possible_ns},
         {"nvtx_range_id", x.nvtx >= 0 ? nlohmann::json(model.nvtx_ranges[x.nvtx].source_id) : nlohmann::json(nullptr)},
         {"top_cause", x.has_cause ? nlohmann::json(std::string(GapCauseName(x.top_cause))) : nlohmann::json(nullptr)},
         {"top_api_name", name(TopIsApiName(x.top_cause))},
         {"top_nvtx_name", name(TopIsNvtxName(x.top_cause))},
         {"top_cause_ns", x.has_cause ? nlohmann::json(x.top_cause_ns) : nlohmann::json(nullptr)},
         {"slow", x.slow}});
  }
  return {{"source", std::string(InstanceSourceName(s.source))},
          {"nvtx_name", s.nvtx_name >= 0 ? nlohmann::json(std::string(DisplayName(model.strings, s.nvtx_name)))
                                         : nlohmann::json(nullptr)},
          {"period_kernels",
           s.source == InstanceSource::kKernelSequence ? nlohmann::json(s.period_kernels) : nlohmann::json(nullptr)},
          {"slow_factor", kSlowInstanceFactor},
          {"median_ns", s.median_ns},
          {"slow_count", s.slow_count},
          {"outside_ns", s.outside_ns},
          {"outside_idle_ns", s.outside_idle_ns},
          {"idle_ns", s.idle_ns},
          {"rows", std::move(rows)}};
}

std::vector<ResultTable> InstanceRowsToTables(const StepBreakdown& s, const TraceModel& model) {
  ResultTable t{"analysis_instances",
                {"instance", "start_ns", "end_ns", "duration_ns", "device_ns", "busy_ns", "idle_ns", "busy_share",
                 "compute_ns", "copy_ns", "overlap_ns", "overlap_possible_ns", "nvtx_range_id", "top_cause",
                 "top_api_name", "top_nvtx_name", "top_cause_ns", "slow"}};
  for (const InstanceRow& x : s.rows) {
    auto name = [&](bool applies) {
      return x.has_cause && applies && x.top_detail >= 0
                 ? ResultValue(std::string(DisplayName(model.strings, x.top_detail)))
                 : ResultValue();
    };
    t.rows.push_back({int64_t{x.index + 1}, x.start_ns, x.end_ns, x.length(), x.device_ns, x.busy_ns, x.idle_ns,
                      ShareOf(x.busy_ns, x.device_ns), x.compute_ns, x.copy_ns, x.overlap_ns, x.overlap_possible_ns,
                      x.nvtx >= 0 ? ResultValue(model.nvtx_ranges[x.nvtx].source_id) : ResultValue(),
                      x.has_cause ? ResultValue(std::string(GapCauseName(x.top_cause))) : ResultValue(),
                      name(TopIsApiName(x.top_cause)), name(TopIsNvtxName(x.top_cause)),
                      x.has_cause ? ResultValue(x.top_cause_ns) : ResultValue(), int64_t{x.slow ? 1 : 0}});
  }
  return {std::move(t)};
}

std::string InstancesName(const std::string& window_label) {
  size_t hash = window_label.rfind(" #");
  return hash == std::string::npos ? window_label : window_label.substr(0, hash);
}

void RenderInstancesText(const std::vector<InstanceFigures>& instances, int top, std::ostream& out) {
  if (instances.empty()) return;
  const std::string name = InstancesName(instances.front().label);
  std::vector<int64_t> lengths;
  std::vector<double> busy, hidden;
  int64_t total = 0, copy = 0, exposed = 0;
  for (const InstanceFigures& x : instances) {
    lengths.push_back(x.length_ns);
    busy.push_back(ShareOf(x.busy_ns, x.device_ns));
    if (x.copy_ns > 0) hidden.push_back(ShareOf(x.copy_ns - x.exposed_copy_ns, x.copy_ns));
    total += x.length_ns;
    copy += x.copy_ns;
    exposed += x.exposed_copy_ns;
  }
  // Slow: the per-instance rows' rule (step_breakdown.h), over these windows.
  const int64_t median = LowerMedian(lengths);
  auto slow = [&](const InstanceFigures& x) {
    return static_cast<double>(x.length_ns) > kSlowInstanceFactor * static_cast<double>(median);
  };
  const auto slow_count = std::count_if(instances.begin(), instances.end(), slow);
  out << "\nInstances of " << name << ": " << instances.size() << ", " << FormatDuration(total) << " in all; each one "
      << DurationSpread(lengths) << ".\n";
  out << "  Slow (> " << kSlowInstanceFactor << "x the median duration): " << slow_count << ".\n";
  out << "  GPU busy per instance: " << ShareSpread(busy) << ".\n";
  if (!hidden.empty()) {
    out << "  Copy time hidden behind compute per instance: " << ShareSpread(hidden) << " ("
        << FormatDuration(copy - exposed) << " of " << FormatDuration(copy) << " in all).\n";
  }
  std::vector<const InstanceFigures*> longest;
  for (const InstanceFigures& x : instances) longest.push_back(&x);
  size_t shown = std::min(longest.size(), static_cast<size_t>(std::max(top, 1)));
  std::partial_sort(longest.begin(), longest.begin() + static_cast<std::ptrdiff_t>(shown), longest.end(),
                    [](const InstanceFigures* a, const InstanceFigures* b) {
                      return a->length_ns != b->length_ns ? a->length_ns > b->length_ns : a->index < b->index;
                    });
  out << "  The " << shown << " longest:\n";
  for (size_t i = 0; i < shown; ++i) {
    const InstanceFigures& x = *longest[i];
    out << "    #" << x.index + 1 << " " << FormatDuration(x.length_ns) << (slow(x) ? " (slow)" : "") << " at "
        << FormatOffset(x.start_ns) << ": GPU busy " << FormatShare(x.busy_ns, x.device_ns);
    if (x.copy_ns > 0) out << ", copies hidden " << FormatShare(x.copy_ns - x.exposed_copy_ns, x.copy_ns);
    out << (x.finding.empty() ? ", no significant finding" : ", main finding: " + Shortened(x.finding)) << "\n";
  }
  out << "  One instance in full: --nvtx-instance K; every instance in full: --format json or csv.\n";
}

}  // namespace streamscope
