#include "analyzer/export/html_palette.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace streamscope {
namespace {

// Op categories keep their usual hues (compute blue, H2D green, D2H red);
// gap causes that are host-side time are reds and pinks darker or lighter
// than D2H; the critical path is purple (GPU), lilac (host), yellow (launch).
constexpr std::array<PaletteEntry, 23> kPalette{{
    {"compute", ".compute", "#4b77b0"},
    {"H2D", ".H2D", "#5f9f52"},
    {"D2H", ".D2H", "#e45657"},
    {"D2D", ".D2D", "#a97198"},
    {"P2P", ".P2P", "#9c755f"},
    {"memset", ".memset", "#d7b651"},
    {"other_copy", ".other_copy", "#b9aca8"},
    {"overlap", ".ovl", "#f28c2b"},
    // A gap's cause class outranks the plain .gap (unexplained) rule.
    {"gap: round_trip", ".gap.cause-round_trip, .gap.cause-sync_wait", "#7e3844"},
    {"gap: host_blocked_in_call", ".gap.cause-host_blocked_in_call", "#b80008"},
    {"gap: host_nvtx_range", ".gap.cause-host_nvtx_range", "#35dcb1"},
    {"gap: host_unannotated", ".gap.cause-host_unannotated", "#fea6b8"},
    {"gap: submission_latency", ".gap.cause-submission_latency", "#97e156"},
    {"gap: dependency",
     ".gap.cause-dependency_event_wait, .gap.cause-dependency_host_callback, .gap.cause-dependency_other_stream",
     "#1b5e20"},
    {"gap: unexplained", ".gap", "#91ada6"},
    {"gap: window edge", ".gap.cause-window_start, .gap.cause-window_end", "#b0d6fc"},
    {"NVTX range", ".nvtx", "#1eb0db"},
    {"hidden sync", ".hs, .hs-line", "#000000", true},
    {"critical path: GPU work", ".cp", "#4b2a7b"},
    {"critical path: host", ".cp.seg-host_work, .cp.seg-api_call, .cp.seg-sync_return", "#c7b3e5"},
    {"critical path: launch, GPU wait", ".cp.seg-launch, .cp.seg-gpu_wait", "#fffc00"},
    {"API call", ".api", "#6b7070"},
    {"API call: synchronize", ".api.sync", "#47301d"},
}};

constexpr std::array<std::string_view, 2> kBackgrounds{"#ffffff", "#f4f6f9"};

}  // namespace

std::span<const PaletteEntry> HtmlPalette() { return kPalette; }
std::span<const std::string_view> HtmlPaletteBackgrounds() { return kBackgrounds; }

std::string HtmlPaletteCss() {
  std::string css;
  for (const PaletteEntry& e : kPalette) {
    absl::StrAppend(&css, std::string(e.selectors), " { fill: ", std::string(e.rgb), "; stroke: ", std::string(e.rgb),
                    "; }\n");
  }
  return css;
}

void AppendHtmlLegend(std::string* out) {
  absl::StrAppend(out, "<div class=\"legend\" id=\"legend\">");
  for (const PaletteEntry& e : kPalette) {
    absl::StrAppend(out, "<span><svg width=\"12\" height=\"10\">");
    if (e.line) {
      absl::StrAppend(out, "<line x1=\"6\" x2=\"6\" y1=\"0\" y2=\"10\" stroke-width=\"2\" stroke=\"",
                      std::string(e.rgb), "\"/>");
    } else {
      absl::StrAppend(out, "<rect width=\"12\" height=\"10\" fill=\"", std::string(e.rgb), "\"/>");
    }
    absl::StrAppend(out, "</svg>", std::string(e.meaning), "</span>");
  }
  absl::StrAppend(out, "</div>\n");
}

}  // namespace streamscope
