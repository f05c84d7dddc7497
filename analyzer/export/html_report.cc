#include "analyzer/export/html_report.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/analysis/windows/trace_summary.h"
#include "analyzer/export/html_assets.h"
#include "analyzer/export/html_instances.h"
#include "analyzer/export/op_downsampler.h"
#include "analyzer/export/svg_histogram.h"
#include "analyzer/export/text_escape.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/trace_event_writer.h"
#include "analyzer/model/queue_delay.h"
#include "analyzer/render/op_ref.h"
#include "analyzer/render/trace_summary_render.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

constexpr double kHeadH = 20, kDevH = 18, kStreamH = 16, kOverlapH = 12, kGapH = 14, kSyncH = 12, kNvtxLaneH = 10,
                 kPathH = 12;
constexpr int kMaxNvtxLanes = 4;
constexpr size_t kMaxTitleName = 160;

std::string Esc(std::string_view s) { return HtmlEscaped(s); }

std::string Truncated(std::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  size_t cut = n;
  while (cut > 0 && (static_cast<uint8_t>(s[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return absl::StrCat(std::string(s.substr(0, cut)), "…");
}

struct Row {
  double y = 0, h = 0;
  std::string label, cls, title;
};

// Writes one timeline's rows and shapes.
class TimelineDrawer {
 public:
  TimelineDrawer(const HtmlTimelineInput& in, int index, const HtmlReportOptions& options,
                 const DownsampleResult& blocks, double y0, HtmlReportStats* stats)
      : in_(in),
        m_(*in.model),
        w_(in.window),
        index_(index),
        options_(options),
        blocks_(blocks),
        y_(y0),
        stats_(stats),
        names_(m_) {}

  void Draw() {
    std::string head = in_.label.empty() ? m_.path : absl::StrCat(in_.label, ": ", m_.path);
    AddRow(kHeadH, head, "head", absl::StrCat(head, "\nwindow: ", WindowLabel(w_), ", ", FormatDuration(w_.length())));
    std::map<int32_t, std::vector<const StreamBlocks*>> by_device;
    for (const StreamBlocks& sb : blocks_.streams) by_device[m_.streams[sb.stream].device_id].push_back(&sb);
    for (int32_t d : m_.op_devices) by_device[d];
    for (auto& [dev, streams] : by_device) {
      AddRow(kDevH, DeviceLabel(m_, dev), "dev", DeviceTitle(dev));
      for (const StreamBlocks* sb : streams) DrawStream(*sb);
      if (in_.analysis != nullptr) {
        for (const AnalysisTrack& t : in_.analysis->tracks) {
          if (t.device_id == dev) DrawAnalysisTrack(t);
        }
      }
    }
    DrawNvtx();
    if (in_.analysis != nullptr) {
      for (const AnalysisTrack& t : in_.analysis->tracks) {
        if (t.device_id < 0) DrawAnalysisTrack(t);
      }
    }
  }

  double y() const { return y_; }
  std::vector<Row>& rows() { return rows_; }
  std::string& shapes() { return g_; }
  std::vector<std::string>& notes() { return notes_; }

 private:
  void AddRow(double h, std::string label, std::string cls, std::string title = {}) {
    rows_.push_back({y_, h, std::move(label), std::move(cls), std::move(title)});
    y_ += h;
  }
  void X(int64_t t_ns) { AppendMicros(t_ns - w_.start_ns, &g_); }
  void Rect(std::string_view cls, int64_t s, int64_t e, double y, double h, std::string_view title,
            double opacity = -1) {
    absl::StrAppend(&g_, "<rect class=\"", std::string(cls), "\"");
    if (opacity >= 0) absl::StrAppend(&g_, " fill-opacity=\"", absl::StrFormat("%.2f", opacity), "\"");
    g_.append(" x=\"");
    X(s);
    g_.append("\" y=\"");
    absl::StrAppend(&g_, absl::StrFormat("%.1f", y), "\" width=\"");
    AppendMicros(std::max<int64_t>(e - s, 0), &g_);
    absl::StrAppend(&g_, "\" height=\"", absl::StrFormat("%.1f", h), "\"><title>");
    AppendHtmlEscaped(title, &g_);
    g_.append("</title></rect>\n");
  }

  std::string DeviceTitle(int32_t dev) const {
    const Device* d = m_.FindDevice(dev);
    if (d == nullptr) return DeviceLabel(m_, dev);
    return absl::StrCat(DeviceLabel(m_, dev), "\ncompute capability ", d->compute_major, ".", d->compute_minor, ", ",
                        d->sm_count, " SMs, copy engines ",
                        d->async_engine_count < 0 ? "?" : absl::StrCat(d->async_engine_count), ", concurrent kernels ",
                        d->concurrent_kernels < 0 ? "?" : (d->concurrent_kernels ? "yes" : "no"));
  }

  std::string OpTitle(int32_t i) {
    const GpuOps& ops = m_.ops;
    OpCategory c = ops.category[i];
    std::string t = Truncated(OpDisplayName(m_, i, names_), kMaxTitleName);
    absl::StrAppend(&t, "\n", StreamLabel(m_, ops.stream[i]), ", device ", ops.device_id[i]);
    absl::StrAppend(&t, "\nstart +", FormatDuration(ops.start_ns[i] - w_.start_ns), ", duration ",
                    FormatDuration(ops.end_ns[i] - ops.start_ns[i]));
    absl::StrAppend(&t, "\n", OpRef(m_, i), ", correlation ", ops.correlation_id[i]);
    if (c == OpCategory::kKernel) {
      if (m_.kernel_shapes.size() == ops.size()) {
        const KernelShape& k = m_.kernel_shapes[i];
        absl::StrAppend(&t, "\ngrid ", k.grid[0], "×", k.grid[1], "×", k.grid[2], ", block ", k.block[0], "×",
                        k.block[1], "×", k.block[2], ", ", k.registers, " regs, ", k.shared_bytes, " B shared");
      }
    } else {
      absl::StrAppend(&t, "\n", FormatBytes(ops.bytes[i]));
      if (c != OpCategory::kMemset) {
        absl::StrAppend(&t, " ", std::string(MemoryKindName(ops.src_kind[i])), "→",
                        std::string(MemoryKindName(ops.dst_kind[i])));
      }
      absl::StrAppend(&t, ops.is_async[i] ? ", async" : ", synchronous");
    }
    if (ops.graph_id[i] >= 0) absl::StrAppend(&t, "\ngraph ", ops.graph_id[i]);
    int32_t api = m_.ApiForOp(i);
    if (api >= 0) {
      absl::StrAppend(&t, "\nsubmitted by ", CallRef(m_, api), ", queue delay ",
                      FormatDuration(QueueDelayNs(ops.start_ns[i], m_.api.end_ns[api])),
                      StartedDuringCall(ops.start_ns[i], m_.api.end_ns[api]) ? " (started during the call)" : "");
    }
    return t;
  }

  void DrawStream(const StreamBlocks& sb) {
    const Stream& s = m_.streams[sb.stream];
    double base = y_;
    for (int lane = 0; lane < sb.lanes; ++lane) {
      std::string label = StreamLabel(m_, sb.stream);
      if (lane > 0) absl::StrAppend(&label, " overflow ", lane);
      AddRow(kStreamH, label, "stream",
             absl::StrCat(label, "\n", sb.ops, " ops in the window",
                          s.priority ? absl::StrCat(", priority ", *s.priority) : ""));
      ++stats_->stream_rows;
    }
    for (int lane = 0; lane < sb.lanes; ++lane) {
      absl::StrAppend(&g_, "<g class=\"stream-row\" data-timeline=\"", index_, "\" data-device=\"", s.device_id,
                      "\" data-stream=\"", s.id, "\" data-lane=\"", lane, "\">\n");
      for (const DrawBlock& b : sb.blocks) {
        if (b.lane != lane) continue;
        double y = base + lane * kStreamH + 2;
        if (b.count == 1) {
          Rect(absl::StrCat("op ", std::string(OpCategoryName(m_.ops.category[b.op]))), b.start_ns, b.end_ns, y,
               kStreamH - 4, OpTitle(b.op));
        } else {
          std::string title =
              absl::StrCat(b.count, " ops merged (shorter than ", FormatDuration(blocks_.resolution_ns), " each)");
          absl::StrAppend(&title, "\nstart +", FormatDuration(b.start_ns - w_.start_ns), ", span ",
                          FormatDuration(b.end_ns - b.start_ns), ", busy ", FormatDuration(b.busy_ns));
          for (int c = 0; c < kNumOpCategories; ++c) {
            if (b.by_category[c] > 0) {
              absl::StrAppend(&title, "\n", b.by_category[c], " ",
                              std::string(OpCategoryName(static_cast<OpCategory>(c))));
            }
          }
          // Paler the less of the block's span its ops kept the stream busy.
          double busy = b.end_ns > b.start_ns ? static_cast<double>(b.busy_ns) / (b.end_ns - b.start_ns) : 1;
          Rect(absl::StrCat("op agg ", std::string(OpCategoryName(b.dominant()))), b.start_ns, b.end_ns, y,
               kStreamH - 4, title, std::min(1.0, std::max(0.2, busy)));
        }
      }
      g_.append("</g>\n");
    }
  }

  // Merges depth-0 slices closer than a resolution (each block spanning at
  // most one resolution step) until the track fits; a merged gap block takes
  // the cause with the most time in it. Parts (depth 1) are dropped then.
  std::vector<AnalysisSlice> Reduce(const AnalysisTrack& t) {
    int64_t depth0 = 0;
    for (const AnalysisSlice& s : t.slices) depth0 += s.depth == 0 ? 1 : 0;
    int64_t limit = options_.max_analysis_slices_per_track;
    if (options_.max_ops >= 0 && limit >= 0) limit = std::min(limit, std::max<int64_t>(1000, options_.max_ops / 4));
    if (limit < 0 || depth0 <= limit) return t.slices;
    int64_t r = std::max<int64_t>(1, w_.length() / std::max<int64_t>(1, limit));
    std::vector<AnalysisSlice> out;
    for (int attempt = 0; attempt < 40; ++attempt, r *= 2) {
      out.clear();
      std::vector<std::map<std::string, int64_t>> cause_ns;
      std::vector<int64_t> merged;
      for (const AnalysisSlice& s : t.slices) {
        if (s.depth != 0) continue;
        int64_t len = s.end_ns - s.start_ns;
        if (!out.empty() && s.start_ns - out.back().end_ns < r && s.end_ns - out.back().start_ns <= r) {
          out.back().end_ns = std::max(out.back().end_ns, s.end_ns);
          cause_ns.back()[s.cause] += len;
          ++merged.back();
        } else {
          out.push_back(s);
          out.back().args = nlohmann::json::object();
          cause_ns.push_back({{s.cause, len}});
          merged.push_back(1);
        }
      }
      if (static_cast<int64_t>(out.size()) > limit) continue;
      for (size_t i = 0; i < out.size(); ++i) {
        if (merged[i] == 1) continue;
        AnalysisSlice& b = out[i];
        auto best = std::max_element(cause_ns[i].begin(), cause_ns[i].end(),
                                     [](auto& x, auto& y) { return x.second < y.second; });
        b.cause = best->first;
        b.name = absl::StrCat(merged[i], " ", t.group == "gaps" ? "gaps" : "intervals", " merged (blocks of ",
                              FormatDuration(r), ")");
        for (auto& [cause, ns] : cause_ns[i]) {
          b.args[cause.empty() ? std::string("time") : cause] = FormatDuration(ns);
        }
      }
      notes_.push_back(absl::StrCat("track '", t.name, "': ", depth0, " slices merged into ", out.size(),
                                    " blocks of at most ", FormatDuration(r)));
      return out;
    }
    return out;
  }

  void DrawAnalysisTrack(const AnalysisTrack& t) {
    if (t.slices.empty() && t.markers.empty()) return;
    if (t.group == "overlap" || t.group == "gaps" || t.group == "critical-path") {
      bool gaps = t.group == "gaps";
      bool path = t.group == "critical-path";
      double h = gaps ? kGapH : (path ? kPathH : kOverlapH);
      double y = y_;
      AddRow(h, t.name, gaps ? "gaps" : (path ? "path" : "overlap"),
             path ? "critical path: what decided the window's end (hover a segment)" : t.name);
      std::string pair = t.name.rfind("overlap ", 0) == 0 ? t.name.substr(8) : t.name;
      if (gaps) {
        g_.append("<g class=\"gap-row\">\n");
      } else if (path) {
        g_.append("<g class=\"cp-row\">\n");
      } else {
        absl::StrAppend(&g_, "<g class=\"overlap-row\" data-pair=\"", Esc(pair), "\">\n");
      }
      for (const AnalysisSlice& s : Reduce(t)) {
        std::string title = absl::StrCat(s.name, "\nstart +", FormatDuration(s.start_ns - w_.start_ns), ", length ",
                                         FormatDuration(s.end_ns - s.start_ns));
        for (auto& [k, v] : s.args.items()) {
          absl::StrAppend(
              &title, "\n", k, ": ",
              v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        }
        if (gaps) {
          std::string cls = absl::StrCat("gap", s.depth > 0 ? " part" : "", " cause-", s.cause);
          double yy = s.depth > 0 ? y + h / 2 : y + 1;
          double hh = s.depth > 0 ? h / 2 - 1 : (h - 2);
          Rect(cls, s.start_ns, s.end_ns, yy, hh, title);
          if (s.depth == 0) ++stats_->gap_slices;
        } else if (path) {
          std::string segment = s.args.contains("segment") && s.args["segment"].is_string()
                                    ? s.args["segment"].get<std::string>()
                                    : std::string("merged");
          Rect(absl::StrCat("cp seg-", Esc(segment)), s.start_ns, s.end_ns, y + 1, h - 2, title);
          ++stats_->critical_path_slices;
        } else {
          Rect("ovl", s.start_ns, s.end_ns, y + 1, h - 2, title);
          ++stats_->overlap_slices;
        }
      }
      g_.append("</g>\n");
    }
    if (!t.markers.empty()) {
      double y = y_;
      AddRow(kSyncH, t.name, "sync", t.name);
      g_.append("<g class=\"sync-row\">\n");
      size_t n = 0;
      for (const AnalysisMarker& mk : t.markers) {
        if (n++ == 5000) {
          notes_.push_back(
              absl::StrCat("track '", t.name, "': only the first 5000 of ", t.markers.size(), " markers drawn"));
          break;
        }
        std::string title =
            absl::StrCat(mk.name, "\n", mk.explanation, "\nat +", FormatDuration(mk.ts_ns - w_.start_ns));
        if (mk.end_ns > mk.ts_ns) Rect("hs", mk.ts_ns, mk.end_ns, y + 1, kSyncH - 2, title);
        absl::StrAppend(&g_, "<line class=\"hs-line mark ", Esc(mk.kind), "\" x1=\"");
        X(mk.ts_ns);
        g_.append("\" x2=\"");
        X(mk.ts_ns);
        absl::StrAppend(&g_, "\" y1=\"", y + 1, "\" y2=\"", y + kSyncH - 1, "\"><title>");
        AppendHtmlEscaped(title, &g_);
        g_.append("</title></line>\n");
        ++stats_->markers;
      }
      g_.append("</g>\n");
    }
  }

  void DrawNvtx() {
    int64_t open_end = std::max(w_.end_ns, WholeTraceWindow(m_).end_ns);
    std::map<int64_t, std::vector<const NvtxRange*>> by_tid;
    int64_t total = 0;
    for (const NvtxRange& r : m_.nvtx_ranges) {
      int64_t e = std::max(r.start_ns, r.end_ns.value_or(open_end));
      if (!InWindow(r.start_ns, e, w_)) continue;
      by_tid[r.tid].push_back(&r);
      ++total;
    }
    if (total == 0) return;
    int64_t min_len = 0;
    if (options_.max_nvtx_ranges >= 0 && total > options_.max_nvtx_ranges) {
      std::vector<int64_t> lens;
      for (auto& [tid, v] : by_tid) {
        for (const NvtxRange* r : v) lens.push_back(std::max(r->start_ns, r->end_ns.value_or(open_end)) - r->start_ns);
      }
      std::nth_element(lens.begin(), lens.end() - options_.max_nvtx_ranges, lens.end());
      min_len = *(lens.end() - options_.max_nvtx_ranges);
      notes_.push_back(absl::StrCat(total, " NVTX ranges in the window: only those at least ", FormatDuration(min_len),
                                    " long are drawn"));
    }
    for (auto& [tid, ranges] : by_tid) {
      int lanes = 1;
      for (const NvtxRange* r : ranges) lanes = std::max(lanes, std::min(kMaxNvtxLanes, r->depth + 1));
      double y = y_;
      std::string label = absl::StrCat("NVTX thread ", tid);
      if (auto n = m_.thread_names.find(tid); n != m_.thread_names.end() && !n->second.empty()) {
        absl::StrAppend(&label, " (", n->second, ")");
      }
      AddRow(lanes * kNvtxLaneH + 2, label, "nvtx", label);
      absl::StrAppend(&g_, "<g class=\"nvtx-row\" data-tid=\"", tid, "\">\n");
      for (const NvtxRange* r : ranges) {
        int64_t e = std::max(r->start_ns, r->end_ns.value_or(open_end));
        if (e - r->start_ns < min_len) continue;
        int lane = std::min(kMaxNvtxLanes - 1, std::max(0, r->depth));
        std::string title =
            absl::StrCat(std::string(m_.strings.Get(r->name)),
                         r->domain != kNoString ? absl::StrCat(" [", std::string(m_.strings.Get(r->domain)), "]") : "",
                         "\nstart +", FormatDuration(r->start_ns - w_.start_ns), ", length ",
                         FormatDuration(e - r->start_ns), r->end_ns ? "" : " (open at capture end)");
        Rect("nvtx", r->start_ns, e, y + 1 + lane * kNvtxLaneH, kNvtxLaneH - 1, title);
        ++stats_->nvtx_ranges;
      }
      g_.append("</g>\n");
    }
  }

  const HtmlTimelineInput& in_;
  const TraceModel& m_;
  Window w_;
  int index_;
  const HtmlReportOptions& options_;
  const DownsampleResult& blocks_;
  double y_;
  HtmlReportStats* stats_;
  KernelNames names_;
  std::vector<Row> rows_;
  std::string g_;
  std::vector<std::string> notes_;
};

void AppendSummary(const HtmlTimelineInput& in, const DownsampleResult& blocks, std::string* out) {
  const TraceModel& m = *in.model;
  absl::StrAppend(out, "<div class=\"summary\">");
  if (!in.label.empty()) absl::StrAppend(out, "<h3>", Esc(in.label), "</h3>");
  absl::StrAppend(out, "<table class=\"kv\">");
  auto kv = [&](std::string_view k, std::string_view v, std::string_view cls = {}) {
    absl::StrAppend(out, "<tr><th>", Esc(k), "</th><td",
                    cls.empty() ? "" : absl::StrCat(" class=\"", std::string(cls), "\""), ">", Esc(v), "</td></tr>");
  };
  kv("trace", m.path);
  kv("format", m.format);
  if (auto it = m.metadata.find("host"); it != m.metadata.end()) kv("host", it->second);
  kv("pid", absl::StrCat(m.pid));
  if (auto it = m.metadata.find("command_line"); it != m.metadata.end()) kv("command", Truncated(it->second, 300));
  if (in.summary != nullptr) {
    const TraceSummary& sum = *in.summary;
    if (!sum.capture_end.empty()) kv("capture end", sum.capture_end, sum.capture_abnormal ? "fail" : "");
    if (sum.has_workload || !sum.workload.variant.empty()) kv("workload", sum.workload.variant);
    for (auto& [k, v] : sum.workload.params) kv(absl::StrCat("param ", k), v);
    if (!sum.workload.validation.empty()) {
      kv("validation", sum.workload.validation, sum.workload.validation_failed() ? "fail" : "pass");
    }
  }
  // The analyses' window (the one the page opens on) and, when the page draws
  // more around it, the drawn span: their lengths must not be mixed up.
  const Window& view = in.view.length() > 0 ? in.view : in.window;
  kv("window", absl::StrCat(WindowLabel(view), " — ", FormatDuration(view.length())));
  if (view.start_ns != in.window.start_ns || view.end_ns != in.window.end_ns) {
    kv("drawn", absl::StrCat(FormatDuration(in.window.length()), ", ", blocks.ops,
                             " ops (zoom out to see what lies outside the window)"));
  }
  int64_t ops_in_view = 0;
  {
    auto [first, last] = m.OpRangeFor(view.start_ns, view.end_ns + 1);
    for (size_t i = first; i < last; ++i) ops_in_view += InWindow(m.ops.start_ns[i], m.ops.end_ns[i], view) ? 1 : 0;
  }
  kv("ops in window", absl::StrCat(ops_in_view));
  absl::StrAppend(out, "</table>");
  if (!m.devices.empty()) {
    absl::StrAppend(out,
                    "<table class=\"grid\"><tr><th>device</th><th>CC</th><th>SMs</th><th>copy engines</th>"
                    "<th>concurrent kernels</th><th>memory</th></tr>");
    for (const Device& d : m.devices) {
      absl::StrAppend(out, "<tr><td>", Esc(DeviceLabel(m, d.id)), "</td><td>", d.compute_major, ".", d.compute_minor,
                      "</td><td>", d.sm_count, "</td><td>",
                      d.async_engine_count < 0 ? "?" : absl::StrCat(d.async_engine_count), "</td><td>",
                      d.concurrent_kernels < 0 ? "?" : (d.concurrent_kernels ? "yes" : "no"), "</td><td>",
                      FormatBytes(d.global_memory_bytes), "</td></tr>");
    }
    absl::StrAppend(out, "</table>");
  }
  // Ops per category and stream in the window.
  std::array<int64_t, kNumOpCategories> cat{};
  std::array<int64_t, kNumOpCategories> cat_ns{};
  auto [first, last] = m.OpRangeFor(view.start_ns, view.end_ns + 1);
  for (size_t i = first; i < last; ++i) {
    if (!InWindow(m.ops.start_ns[i], m.ops.end_ns[i], view)) continue;
    int c = static_cast<int>(m.ops.category[i]);
    ++cat[c];
    cat_ns[c] += m.ops.end_ns[i] - m.ops.start_ns[i];
  }
  absl::StrAppend(out, "<table class=\"grid\"><tr><th>category</th><th>ops</th><th>summed time</th></tr>");
  for (int c = 0; c < kNumOpCategories; ++c) {
    if (cat[c] == 0) continue;
    absl::StrAppend(out, "<tr><td>", std::string(OpCategoryName(static_cast<OpCategory>(c))), "</td><td>", cat[c],
                    "</td><td>", FormatDuration(cat_ns[c]), "</td></tr>");
  }
  absl::StrAppend(out, "</table>");
  if (in.summary != nullptr) {
    for (const std::string& wmsg : TraceSummaryWarnings(*in.summary))
      absl::StrAppend(out, "<p class=\"fail\">", Esc(wmsg), "</p>");
  }
  absl::StrAppend(out, "</div>\n");
}

void AppendLegend(std::string* out) {
  absl::StrAppend(out, "<div class=\"legend\">");
  for (int c = 0; c < kNumOpCategories; ++c) {
    std::string name(OpCategoryName(static_cast<OpCategory>(c)));
    absl::StrAppend(out, "<span><svg width=\"12\" height=\"10\"><rect class=\"swatch ", name,
                    "\" width=\"12\" height=\"10\"/></svg>", name, "</span>");
  }
  absl::StrAppend(out,
                  "<span><svg width=\"12\" height=\"10\"><rect class=\"swatch ovl-swatch\" width=\"12\" "
                  "height=\"10\"/></svg>overlap</span>");
  for (std::string_view cause : {"round_trip", "host_blocked_in_call", "host_nvtx_range", "host_unannotated",
                                 "submission_latency", "dependency_other_stream", "queued_unexplained"}) {
    absl::StrAppend(out, "<span><svg width=\"12\" height=\"10\"><rect class=\"swatch cause-", std::string(cause),
                    "\" width=\"12\" height=\"10\"/></svg>gap: ", std::string(cause), "</span>");
  }
  absl::StrAppend(out,
                  "<span><svg width=\"12\" height=\"10\"><rect class=\"swatch cp\" width=\"12\" "
                  "height=\"10\"/></svg>critical path</span>");
  absl::StrAppend(out,
                  "<span><svg width=\"12\" height=\"10\"><rect class=\"swatch nvtx\" width=\"12\" "
                  "height=\"10\"/></svg>NVTX</span>");
  absl::StrAppend(out,
                  "<span><svg width=\"4\" height=\"10\"><line class=\"hs-line\" x1=\"2\" x2=\"2\" y1=\"0\" "
                  "y2=\"10\"/></svg>hidden sync</span>");
  absl::StrAppend(out, "</div>\n");
}

// The report's summary lines and the ranked diagnosis of each timeline,
// above everything else: what a reader needs first.
void AppendReportSummary(std::span<const HtmlTimelineInput> timelines, std::string* out) {
  bool any = false;
  for (const HtmlTimelineInput& t : timelines) any |= t.analysis != nullptr && !t.analysis->summary_lines.empty();
  if (!any) return;
  absl::StrAppend(out, "<h2>Summary and diagnosis</h2>\n");
  bool first = true;
  for (const HtmlTimelineInput& t : timelines) {
    if (t.analysis == nullptr || t.analysis->summary_lines.empty()) continue;
    if (!t.label.empty()) absl::StrAppend(out, "<h3>", Esc(t.label), "</h3>");
    absl::StrAppend(out, "<pre class=\"report-summary\"", first ? " id=\"report-summary\"" : "", ">");
    for (const std::string& line : t.analysis->summary_lines) absl::StrAppend(out, Esc(line), "\n");
    absl::StrAppend(out, "</pre>\n");
    if (t.analysis->diagnosis.empty()) {
      absl::StrAppend(out, "<p class=\"diagnosis-none\">Diagnosis: no significant finding in this window.</p>\n");
    } else {
      absl::StrAppend(out, "<ol class=\"diagnosis\"", first ? " id=\"diagnosis\"" : "", ">");
      for (size_t i = 0; i < t.analysis->diagnosis.size(); ++i) {
        const DiagnosisItem& d = t.analysis->diagnosis[i];
        absl::StrAppend(out, "<li class=\"finding", i == 0 ? " primary" : "", "\" data-cause=\"", Esc(d.cause),
                        "\"><b>", Esc(d.cause), "</b>", i == 0 ? " (primary)" : "", ": ", Esc(d.saving),
                        "<br><span class=\"finding-summary\">", Esc(d.summary),
                        "</span><br><span class=\"remedy\"><b>Fix:</b> ", Esc(d.remedy), "</span></li>\n");
      }
      absl::StrAppend(out, "</ol>\n");
    }
    first = false;
  }
}

std::vector<int64_t> QueueDelays(const TraceModel& m, const Window& w) {
  std::vector<int64_t> out;
  auto [first, last] = m.OpRangeFor(w.start_ns, w.end_ns + 1);
  for (size_t i = first; i < last; ++i) {
    if (!InWindow(m.ops.start_ns[i], m.ops.end_ns[i], w)) continue;
    int32_t api = m.ApiForOp(i);
    if (api >= 0) out.push_back(QueueDelayNs(m.ops.start_ns[i], m.api.end_ns[api]));
  }
  return out;
}

// Downsamples each timeline to its share of the op budget; `max_len` gets
// the longest window.
void DownsampleTimelines(std::span<const HtmlTimelineInput> timelines, const HtmlReportOptions& options,
                         std::vector<DownsampleResult>* blocks, int64_t* max_len, HtmlReportStats* stats) {
  int64_t budget =
      options.max_ops < 0 ? -1 : std::max<int64_t>(1, options.max_ops / static_cast<int64_t>(timelines.size()));
  for (const HtmlTimelineInput& t : timelines) {
    blocks->push_back(DownsampleToFit(*t.model, t.window, budget));
    const DownsampleResult& b = blocks->back();
    stats->ops_in_windows += b.ops;
    stats->blocks_drawn += b.blocks;
    stats->aggregate_blocks += b.aggregates;
    stats->ops_in_aggregates += b.ops_in_aggregates;
    stats->merge_resolution_ns = std::max(stats->merge_resolution_ns, b.resolution_ns);
    if (b.aggregates > 0) {
      stats->notes.push_back(absl::StrCat(
          t.label.empty() ? "" : absl::StrCat(t.label, ": "), "the window holds ", b.ops,
          " ops, more than the drawing budget of ", budget, " (--max-ops): ", b.ops_in_aggregates, " ops shorter than ",
          FormatDuration(b.resolution_ns), " were merged per stream into ", b.aggregates,
          " aggregate blocks (drawn paler; hover for counts). Narrow the window with --nvtx or --from/--to "
          "to see every op."));
    }
    *max_len = std::max(*max_len, t.window.length());
  }
}

// Draws the timelines below each other into `rows` and `shapes`; returns
// the height drawn.
double DrawTimelines(std::span<const HtmlTimelineInput> timelines, const HtmlReportOptions& options,
                     const std::vector<DownsampleResult>& blocks, std::vector<Row>* rows, std::string* shapes,
                     HtmlReportStats* stats) {
  double y = 0;
  for (size_t i = 0; i < timelines.size(); ++i) {
    TimelineDrawer drawer(timelines[i], static_cast<int>(i), options, blocks[i], y, stats);
    drawer.Draw();
    y = drawer.y();
    for (Row& r : drawer.rows()) rows->push_back(std::move(r));
    shapes->append(drawer.shapes());
    for (std::string& n : drawer.notes()) {
      stats->notes.push_back(timelines[i].label.empty() ? n : absl::StrCat(timelines[i].label, ": ", n));
    }
    if (timelines[i].analysis != nullptr) {
      for (const std::string& n : timelines[i].analysis->notes) stats->notes.push_back(n);
    }
  }
  return std::max(y, 1.0);
}

// The page up to the timeline: title, summaries, notes, findings, controls
// and legend.
void AppendPageHead(std::span<const HtmlTimelineInput> timelines, const std::vector<DownsampleResult>& blocks,
                    const HtmlReportOptions& options, const HtmlReportStats& stats, std::string* html) {
  absl::StrAppend(html, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>",
                  Esc(options.title), "</title>\n<meta name=\"generator\" content=\"streamscope export\">\n<style>",
                  std::string(HtmlReportCss()), "</style></head>\n<body data-render-ok=\"0\">\n<h1>",
                  Esc(options.title), "</h1>\n");
  AppendReportSummary(timelines, html);
  AppendInstanceChart(timelines, html);
  absl::StrAppend(html, "<h2>Trace</h2><div class=\"summaries\" id=\"summary\">\n");
  for (size_t i = 0; i < timelines.size(); ++i) AppendSummary(timelines[i], blocks[i], html);
  absl::StrAppend(html, "</div>\n");
  if (!stats.notes.empty()) {
    absl::StrAppend(html, "<div class=\"notes\" id=\"notes\"><b>What this report reduced or could not show</b>");
    for (const std::string& n : stats.notes) absl::StrAppend(html, "<p>", Esc(n), "</p>");
    absl::StrAppend(html, "</div>\n");
  }
  absl::StrAppend(html, "<h2>Findings</h2><div id=\"findings\">\n");
  for (const HtmlTimelineInput& t : timelines) {
    if (!t.label.empty()) absl::StrAppend(html, "<h3>", Esc(t.label), "</h3>");
    if (t.analysis == nullptr || t.analysis->findings.empty()) {
      absl::StrAppend(html, "<p>No analysis findings (the analyses did not run for this trace).</p>\n");
      continue;
    }
    absl::StrAppend(html, "<ul class=\"findings\">");
    for (const Finding& f : t.analysis->findings) {
      absl::StrAppend(html, "<li class=\"", Esc(f.severity), "\">", Esc(f.text), "</li>");
    }
    absl::StrAppend(html, "</ul>\n");
  }
  absl::StrAppend(html, "</div>\n<h2>Timeline</h2>\n");
  absl::StrAppend(html,
                  "<div class=\"controls\"><button id=\"zoom-in\" title=\"zoom in\">+</button>"
                  "<button id=\"zoom-out\" title=\"zoom out\">−</button>"
                  "<button id=\"zoom-reset\" title=\"back to the analysed window\">reset</button>"
                  "<button id=\"zoom-all\" title=\"everything drawn\">all</button>"
                  "<span>wheel: zoom · drag: pan · double-click: reset · hover: details</span>"
                  "<span id=\"view-range\"></span></div>\n");
  if (timelines.size() > 1) {
    absl::StrAppend(html, "<p>Timelines are drawn on one time axis that starts at each timeline's window start.</p>\n");
  }
  AppendLegend(html);
}

// The timeline's frame: the opening view, the row labels and the row
// backgrounds (the shapes go between it and the distributions).
void AppendTimelineFrame(std::span<const HtmlTimelineInput> timelines, const std::vector<Row>& rows, int64_t max_len,
                         double height, std::string* html) {
  std::string H = absl::StrFormat("%.1f", height);
  std::string W;
  AppendMicros(max_len, &W);
  // The opening view: the analysed windows (their union, on the shared axis).
  int64_t view_start = max_len, view_end = 0;
  for (const HtmlTimelineInput& t : timelines) {
    if (t.view.length() <= 0) {
      view_start = 0;
      view_end = max_len;
      continue;
    }
    view_start = std::min(view_start, std::clamp<int64_t>(t.view.start_ns - t.window.start_ns, 0, max_len));
    view_end = std::max(view_end, std::clamp<int64_t>(t.view.end_ns - t.window.start_ns, 0, max_len));
  }
  if (view_end <= view_start) {
    view_start = 0;
    view_end = max_len;
  }
  const Window first_view = timelines.front().view.length() > 0 ? timelines.front().view : timelines.front().window;
  std::string VS, VW;
  AppendMicros(view_start, &VS);
  AppendMicros(view_end - view_start, &VW);
  absl::StrAppend(html,
                  "<div class=\"tl\" id=\"timeline\"><div class=\"tl-labels\"><svg id=\"tl-axis-pad\" width=\"100%\" "
                  "height=\"22\"></svg>"
                  "<svg id=\"tl-labels\" width=\"100%\" height=\"",
                  H, "\">\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    absl::StrAppend(html, "<g class=\"row-label kind-", r.cls, "\"><title>", Esc(r.title.empty() ? r.label : r.title),
                    "</title><rect class=\"row-bg ",
                    r.cls == "head" || r.cls == "dev" ? "head" : (i % 2 ? "odd" : "even"), "\" x=\"0\" y=\"",
                    absl::StrFormat("%.1f", r.y), "\" width=\"100%\" height=\"", absl::StrFormat("%.1f", r.h),
                    "\"/><text class=\"", r.cls == "head" || r.cls == "dev" ? r.cls : "label", "\" x=\"",
                    r.cls == "head" ? 4 : (r.cls == "dev" ? 8 : 16), "\" y=\"",
                    absl::StrFormat("%.1f", r.y + std::min(r.h, 16.0) * 0.5 + 4), "\">", Esc(Truncated(r.label, 44)),
                    "</text></g>\n");
  }
  absl::StrAppend(html,
                  "</svg></div>\n<div class=\"tl-main\" id=\"tl-main\"><svg id=\"tl-axis\" height=\"22\"></svg>\n");
  absl::StrAppend(html, "<svg id=\"tl-svg\" width=\"100%\" height=\"", H, "\" viewBox=\"0 0 ", W, " ", H,
                  "\" preserveAspectRatio=\"none\" data-width=\"", W, "\" data-height=\"", H, "\" data-view-start=\"",
                  VS, "\" data-view-width=\"", VW, "\" data-view-start-ns=\"", first_view.start_ns,
                  "\" data-view-end-ns=\"", first_view.end_ns, "\">\n<g class=\"bg\">");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    absl::StrAppend(html, "<rect class=\"row-bg ",
                    r.cls == "head" || r.cls == "dev" ? "head" : (i % 2 ? "odd" : "even"), "\" x=\"0\" y=\"",
                    absl::StrFormat("%.1f", r.y), "\" width=\"", W, "\" height=\"", absl::StrFormat("%.1f", r.h),
                    "\"/>");
  }
  absl::StrAppend(html, "</g>\n");
}

// The distributions and the footer with the page's script.
void AppendDistributionsAndEnd(std::span<const HtmlTimelineInput> timelines, const HtmlReportOptions& options,
                               std::string* html) {
  absl::StrAppend(html, "</svg></div></div>\n<h2>Distributions</h2><div class=\"plots\" id=\"plots\">\n");
  for (const HtmlTimelineInput& t : timelines) {
    std::string prefix = t.label.empty() ? "" : absl::StrCat(t.label, ": ");
    std::vector<int64_t> delays = QueueDelays(*t.model, t.window);
    AppendSvgHistogram(
        absl::StrCat(prefix, "launch queue delay (op start − end of its API call; 0 when it started during the call)"),
        "delay", delays, html);
    if (t.analysis != nullptr && !t.analysis->gap_lengths_ns.empty()) {
      AppendSvgHistogram(absl::StrCat(prefix, "device idle gap length"), "gaps", t.analysis->gap_lengths_ns, html);
    }
  }
  absl::StrAppend(html, "</div>\n<footer>Generated by streamscope export",
                  options.generated_by.empty() ? "" : absl::StrCat(": ", Esc(options.generated_by)),
                  ". Self-contained: no network access needed.</footer>\n<script>", std::string(HtmlReportScript()),
                  "</script>\n</body></html>\n");
}

}  // namespace

absl::Status WriteHtmlReport(std::span<const HtmlTimelineInput> timelines, const HtmlReportOptions& options,
                             OutputFile* out, HtmlReportStats* stats) {
  HtmlReportStats local;
  if (stats == nullptr) stats = &local;
  *stats = HtmlReportStats{};
  if (timelines.empty()) return absl::InvalidArgumentError("no timeline to draw");

  std::vector<DownsampleResult> blocks;
  int64_t max_len = 1;
  DownsampleTimelines(timelines, options, &blocks, &max_len, stats);
  std::vector<Row> rows;
  std::string shapes;
  const double height = DrawTimelines(timelines, options, blocks, &rows, &shapes, stats);

  std::string html;
  html.reserve(shapes.size() + (1 << 16));
  AppendPageHead(timelines, blocks, options, *stats, &html);
  AppendTimelineFrame(timelines, rows, max_len, height, &html);
  out->Write(html);
  html.clear();
  out->Write(shapes);
  shapes.clear();
  shapes.shrink_to_fit();
  AppendDistributionsAndEnd(timelines, options, &html);
  out->Write(html);
  stats->bytes = out->bytes_written();
  return out->Commit();
}

}  // namespace streamscope
