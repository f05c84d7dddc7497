#include "analyzer/export/html_report.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/export/html_assets.h"
#include "analyzer/export/html_instances.h"
#include "analyzer/export/html_page_sections.h"
#include "analyzer/export/html_palette.h"
#include "analyzer/export/html_timeline_data.h"
#include "analyzer/export/op_downsampler.h"
#include "analyzer/export/text_escape.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/trace_event_writer.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

constexpr double kHeadH = 20, kDevH = 18, kStreamH = 22, kApiH = 18, kOverlapH = 12, kGapH = 18, kSyncH = 12,
                 kNvtxLaneH = 10, kPathH = 12;
constexpr int kMaxNvtxLanes = 4;

struct Row {
  double y = 0, h = 0;
  std::string label, cls, title;
};

// Writes one timeline's rows and shapes.
class TimelineDrawer {
 public:
  TimelineDrawer(const HtmlTimelineInput& in, int index, const HtmlReportOptions& options,
                 const DownsampleResult& blocks, double y0, TimelineData* data, HtmlReportStats* stats)
      : in_(in),
        m_(*in.model),
        w_(in.window),
        index_(index),
        options_(options),
        blocks_(blocks),
        y_(y0),
        data_(data),
        stats_(stats) {}

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
    DrawApiCalls();
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
    // The ops are drawn by the page's script from the timeline data.
    for (int lane = 0; lane < sb.lanes; ++lane) {
      absl::StrAppend(&g_, "<g class=\"stream-row\" data-timeline=\"", index_, "\" data-device=\"", s.device_id,
                      "\" data-stream=\"", s.id, "\" data-lane=\"", lane, "\" data-row=\"", data_->rows(), "\"></g>\n");
      data_->AddOpRow(m_, w_, sb, lane, base + lane * kStreamH + 2, kStreamH - 4);
    }
  }

  // A row per host thread and API-call nesting depth (runtime calls, the
  // driver calls inside them), drawn by the script like the ops.
  void DrawApiCalls() {
    std::vector<ApiLanes> threads = ApiCallLanes(m_, w_);
    int64_t calls = 0, lanes = 0;
    for (const ApiLanes& t : threads) {
      for (const auto& l : t.lanes) calls += static_cast<int64_t>(l.size());
      lanes += static_cast<int64_t>(t.lanes.size());
    }
    int64_t resolution = 0;
    if (options_.max_ops >= 0 && calls > options_.max_ops) {
      resolution =
          std::max<int64_t>(1, w_.length() / std::max<int64_t>(1, options_.max_ops / std::max<int64_t>(1, lanes)));
      notes_.push_back(absl::StrCat(calls, " API calls in the window, more than the drawing budget of ",
                                    options_.max_ops, " (--max-ops): calls shorter than ", FormatDuration(resolution),
                                    " were merged per thread into blocks"));
    }
    for (const ApiLanes& t : threads) {
      std::string label = absl::StrCat("thread ", t.tid);
      if (auto n = m_.thread_names.find(t.tid); n != m_.thread_names.end() && !n->second.empty()) {
        absl::StrAppend(&label, " (", n->second, ")");
      }
      for (size_t depth = 0; depth < t.lanes.size(); ++depth) {
        std::string row = depth == 0 ? absl::StrCat(label, " API calls") : absl::StrCat(label, " nested calls ", depth);
        double y = y_;
        AddRow(kApiH, row, "api", absl::StrCat(row, "\n", t.lanes[depth].size(), " calls in the window"));
        absl::StrAppend(&g_, "<g class=\"api-row\" data-timeline=\"", index_, "\" data-tid=\"", t.tid,
                        "\" data-depth=\"", depth, "\" data-row=\"", data_->rows(), "\"></g>\n");
        data_->AddApiRow(m_, w_, t.tid, t.lanes[depth], resolution, y + 2, kApiH - 4);
        ++stats_->api_rows;
      }
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
    // The finest resolution that fits: from far below the drawn window's
    // share per block (the page opens on a view that may be a small part of
    // it) up, doubling; counting blocks is cheap, merging is done once.
    auto blocks_at = [&](int64_t r) {
      int64_t n = 0, start = 0, end = 0;
      for (const AnalysisSlice& s : t.slices) {
        if (s.depth != 0) continue;
        if (n > 0 && s.start_ns - end < r && s.end_ns - start <= r) {
          end = std::max(end, s.end_ns);
        } else {
          ++n;
          start = s.start_ns;
          end = s.end_ns;
        }
      }
      return n;
    };
    int64_t r = std::max<int64_t>(1, w_.length() / std::max<int64_t>(1, limit) / 1024);
    for (int attempt = 0; attempt < 52 && blocks_at(r) > limit; ++attempt) r *= 2;
    std::vector<AnalysisSlice> out;
    {
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
          cause_ns.push_back({{s.cause, len}});
          merged.push_back(1);
        }
      }
      for (size_t i = 0; i < out.size(); ++i) {
        if (merged[i] == 1) continue;
        AnalysisSlice& b = out[i];
        b.args = nlohmann::json::object();
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
        absl::StrAppend(&g_, "<g class=\"overlap-row\" data-pair=\"", HtmlEscaped(pair), "\">\n");
      }
      // Drawn by the page's script from the timeline data (parts of gaps
      // on a second lane in the row's lower half).
      std::vector<DataSlice> lanes[2];
      for (const AnalysisSlice& s : Reduce(t)) {
        std::string title = s.name;
        for (auto& [k, v] : s.args.items()) {
          // The script writes the length; an op or call as an object
          // repeats what the slice's name says of it.
          if (k == "length_ns" || v.is_object()) continue;
          absl::StrAppend(
              &title, "\n", k, ": ",
              v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        }
        std::string cls;
        if (gaps) {
          cls = absl::StrCat("gap", s.depth > 0 ? " part" : "", " cause-", s.cause);
          if (s.depth == 0) ++stats_->gap_slices;
        } else if (path) {
          std::string segment = s.args.contains("segment") && s.args["segment"].is_string()
                                    ? s.args["segment"].get<std::string>()
                                    : std::string("merged");
          cls = absl::StrCat("cp seg-", HtmlEscaped(segment));
          ++stats_->critical_path_slices;
        } else {
          cls = "ovl";
          ++stats_->overlap_slices;
        }
        lanes[gaps && s.depth > 0 ? 1 : 0].push_back({s.start_ns, s.end_ns, std::move(cls), std::move(title)});
      }
      for (int lane = 0; lane < 2; ++lane) {
        if (lane == 1 && lanes[1].empty()) break;
        double yy = lane == 1 ? y + h / 2 : y + 1;
        double hh = lane == 1 ? h / 2 - 1 : (gaps && !lanes[1].empty() ? h / 2 - 1 : h - 2);
        absl::StrAppend(&g_, "<g data-row=\"", data_->rows(), "\"></g>");
        data_->AddSliceRow(w_, t.name, std::move(lanes[lane]), yy, hh);
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
        absl::StrAppend(&g_, "<line class=\"hs-line mark ", HtmlEscaped(mk.kind), "\" x1=\"");
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
      // A data row per nesting depth, drawn by the page's script.
      std::vector<std::vector<DataSlice>> by_lane(lanes);
      for (const NvtxRange* r : ranges) {
        int64_t e = std::max(r->start_ns, r->end_ns.value_or(open_end));
        if (e - r->start_ns < min_len) continue;
        int lane = std::min(lanes - 1, std::max(0, r->depth));
        std::string title =
            absl::StrCat(std::string(m_.strings.Get(r->name)),
                         r->domain != kNoString ? absl::StrCat(" [", std::string(m_.strings.Get(r->domain)), "]") : "",
                         r->end_ns ? "" : "\nopen at capture end");
        by_lane[lane].push_back({r->start_ns, e, "nvtx", std::move(title)});
        ++stats_->nvtx_ranges;
      }
      absl::StrAppend(&g_, "<g class=\"nvtx-row\" data-tid=\"", tid, "\">");
      for (int lane = 0; lane < lanes; ++lane) {
        absl::StrAppend(&g_, "<g data-row=\"", data_->rows(), "\"></g>");
        data_->AddSliceRow(w_, label, std::move(by_lane[lane]), y + 1 + lane * kNvtxLaneH, kNvtxLaneH - 1);
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
  TimelineData* data_;
  HtmlReportStats* stats_;
  std::vector<Row> rows_;
  std::string g_;
  std::vector<std::string> notes_;
};

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
                     TimelineData* data, HtmlReportStats* stats) {
  double y = 0;
  for (size_t i = 0; i < timelines.size(); ++i) {
    TimelineDrawer drawer(timelines[i], static_cast<int>(i), options, blocks[i], y, data, stats);
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

// The first screen up to the timeline: title, the report's summary and
// diagnosis, the zoom controls and the legend.
void AppendPageHead(std::span<const HtmlTimelineInput> timelines, const HtmlReportOptions& options, std::string* html) {
  absl::StrAppend(
      html, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", HtmlEscaped(options.title),
      "</title>\n<meta name=\"generator\" content=\"streamscope export\">\n<style>", std::string(HtmlReportCss()),
      HtmlPaletteCss(), "</style></head>\n<body data-render-ok=\"0\">\n<h1>", HtmlEscaped(options.title), "</h1>\n");
  AppendHtmlAnswer(timelines, html);
  absl::StrAppend(html,
                  "<div class=\"controls\"><b>Timeline</b><button id=\"zoom-in\" title=\"zoom in\">+</button>"
                  "<button id=\"zoom-out\" title=\"zoom out\">−</button>"
                  "<button id=\"zoom-reset\" title=\"back to the analysed window\">reset</button>"
                  "<button id=\"zoom-all\" title=\"everything drawn\">all</button>"
                  "<span>wheel: zoom · drag: pan · double-click: reset · hover: details · dense rows show the busy "
                  "share per pixel until zoomed in</span>"
                  "<span id=\"view-range\"></span></div>\n");
  if (timelines.size() > 1) {
    absl::StrAppend(html, "<p>Timelines are drawn on one time axis that starts at each timeline's window start.</p>\n");
  }
  AppendHtmlLegend(html);
}

// Below the timeline: what was reduced, the traces, the findings, the
// distributions, then the timeline data and the page's script.
void AppendPageTail(std::span<const HtmlTimelineInput> timelines, const std::vector<DownsampleResult>& blocks,
                    const HtmlReportOptions& options, const HtmlReportStats& stats, std::string_view data,
                    OutputFile* out) {
  std::string html = "</svg></div></div>\n";
  // The per-instance chart right below the timeline it zooms (above it,
  // it would push the timeline off the first screen).
  AppendInstanceChart(timelines, &html);
  AppendHtmlNotes(stats.notes, &html);
  AppendHtmlTraceSummaries(timelines, blocks, &html);
  AppendHtmlFindings(timelines, &html);
  AppendHtmlDistributions(timelines, &html);
  absl::StrAppend(&html, "<footer>Generated by streamscope export",
                  options.generated_by.empty() ? "" : absl::StrCat(": ", HtmlEscaped(options.generated_by)),
                  ". Self-contained: no network access needed.</footer>\n"
                  "<script type=\"application/json\" id=\"tl-data\">");
  out->Write(html);
  out->Write(data);
  html = absl::StrCat("</script>\n<script>", std::string(HtmlTimelineRowsScript()), std::string(HtmlReportScript()),
                      "</script>\n</body></html>\n");
  out->Write(html);
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
                  "<div id=\"tl-tip\"></div><div class=\"tl\" id=\"timeline\"><div class=\"tl-labels\"><svg "
                  "id=\"tl-axis-pad\" width=\"100%\" "
                  "height=\"22\"></svg>"
                  "<svg id=\"tl-labels\" width=\"100%\" height=\"",
                  H, "\">\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    absl::StrAppend(html, "<g class=\"row-label kind-", r.cls, "\"><title>",
                    HtmlEscaped(r.title.empty() ? r.label : r.title), "</title><rect class=\"row-bg ",
                    r.cls == "head" || r.cls == "dev" ? "head" : (i % 2 ? "odd" : "even"), "\" x=\"0\" y=\"",
                    absl::StrFormat("%.1f", r.y), "\" width=\"100%\" height=\"", absl::StrFormat("%.1f", r.h),
                    "\"/><text class=\"", r.cls == "head" || r.cls == "dev" ? r.cls : "label", "\" x=\"",
                    r.cls == "head" ? 4 : (r.cls == "dev" ? 8 : 16), "\" y=\"",
                    absl::StrFormat("%.1f", r.y + std::min(r.h, 16.0) * 0.5 + 4), "\">",
                    HtmlEscaped(TruncatedUtf8(r.label, 44)), "</text></g>\n");
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
  TimelineData data;
  const double height = DrawTimelines(timelines, options, blocks, &rows, &shapes, &data, stats);
  stats->data_items = data.items();

  std::string html;
  html.reserve(1 << 16);
  AppendPageHead(timelines, options, &html);
  AppendTimelineFrame(timelines, rows, max_len, height, &html);
  out->Write(html);
  html.clear();
  out->Write(shapes);
  shapes.clear();
  shapes.shrink_to_fit();
  AppendPageTail(timelines, blocks, options, *stats, data.Finish(), out);
  stats->bytes = out->bytes_written();
  return out->Commit();
}

}  // namespace streamscope
