// The HTML report's colours: every meaning has its own colour, and every two
// colours (and each against the row backgrounds) differ by at least
// kMinPaletteDeltaE00 in CIEDE2000 (Sharma, Wu, Dalal 2005), computed here
// from sRGB through CIE XYZ (D65) to CIELAB.
#include <cmath>
#include <numbers>
#include <set>
#include <string>

#include "analyzer/export/html_palette.h"
#include "gtest/gtest.h"

namespace streamscope {
namespace {

struct Lab {
  double l, a, b;
};

Lab LabOf(std::string_view rgb) {  // "#rrggbb"
  auto channel = [&](int i) {
    double c = std::stoi(std::string(rgb.substr(1 + 2 * i, 2)), nullptr, 16) / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  };
  double r = channel(0), g = channel(1), b = channel(2);
  double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
  double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
  double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
  auto f = [](double t) { return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116; };
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

double Rad(double deg) { return deg * std::numbers::pi / 180; }

double DeltaE00(Lab p, Lab q) {
  double c1 = std::hypot(p.a, p.b), c2 = std::hypot(q.a, q.b), cm = (c1 + c2) / 2;
  double g = 0.5 * (1 - std::sqrt(std::pow(cm, 7) / (std::pow(cm, 7) + std::pow(25.0, 7))));
  double a1 = (1 + g) * p.a, a2 = (1 + g) * q.a;
  double c1p = std::hypot(a1, p.b), c2p = std::hypot(a2, q.b);
  auto hue = [](double b, double a) {
    double h = std::atan2(b, a) * 180 / std::numbers::pi;
    return h < 0 ? h + 360 : h;
  };
  double h1 = c1p == 0 ? 0 : hue(p.b, a1), h2 = c2p == 0 ? 0 : hue(q.b, a2);
  double dl = q.l - p.l, dc = c2p - c1p, dh = 0;
  if (c1p * c2p != 0) {
    dh = h2 - h1;
    if (dh > 180) dh -= 360;
    if (dh < -180) dh += 360;
  }
  double dhh = 2 * std::sqrt(c1p * c2p) * std::sin(Rad(dh / 2));
  double lm = (p.l + q.l) / 2, cmp = (c1p + c2p) / 2, hm = h1 + h2;
  if (c1p * c2p != 0) {
    hm = std::abs(h1 - h2) <= 180 ? (h1 + h2) / 2 : (h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2);
  }
  double t = 1 - 0.17 * std::cos(Rad(hm - 30)) + 0.24 * std::cos(Rad(2 * hm)) + 0.32 * std::cos(Rad(3 * hm + 6)) -
             0.20 * std::cos(Rad(4 * hm - 63));
  double dtheta = 30 * std::exp(-std::pow((hm - 275) / 25, 2));
  double rc = 2 * std::sqrt(std::pow(cmp, 7) / (std::pow(cmp, 7) + std::pow(25.0, 7)));
  double sl = 1 + 0.015 * (lm - 50) * (lm - 50) / std::sqrt(20 + (lm - 50) * (lm - 50));
  double sc = 1 + 0.045 * cmp, sh = 1 + 0.015 * cmp * t;
  double rt = -std::sin(Rad(2 * dtheta)) * rc;
  return std::sqrt(std::pow(dl / sl, 2) + std::pow(dc / sc, 2) + std::pow(dhh / sh, 2) + rt * (dc / sc) * (dhh / sh));
}

TEST(Ciede2000, MatchesThePublishedTestPairs) {
  // Pairs 1, 7, 17, 25 and 32 of Sharma et al.'s table.
  EXPECT_NEAR(DeltaE00({50, 2.6772, -79.7751}, {50, 0, -82.7485}), 2.0425, 1e-4);
  EXPECT_NEAR(DeltaE00({50, 0, 0}, {50, -1, 2}), 2.3669, 1e-4);
  EXPECT_NEAR(DeltaE00({50, 2.5, 0}, {73, 25, -18}), 27.1492, 1e-4);
  EXPECT_NEAR(DeltaE00({60.2574, -34.0099, 36.2677}, {60.4626, -34.1751, 39.4387}), 1.2644, 1e-4);
  EXPECT_NEAR(DeltaE00({22.7233, 20.0904, -46.6940}, {23.0331, 14.9730, -42.5619}), 2.0373, 1e-4);
}

TEST(HtmlPalette, EveryTwoMeaningsHaveColoursFarApart) {
  auto palette = HtmlPalette();
  ASSERT_GE(palette.size(), 20u);
  for (size_t i = 0; i < palette.size(); ++i) {
    for (size_t j = i + 1; j < palette.size(); ++j) {
      EXPECT_GE(DeltaE00(LabOf(palette[i].rgb), LabOf(palette[j].rgb)), kMinPaletteDeltaE00)
          << palette[i].meaning << " " << palette[i].rgb << " looks like " << palette[j].meaning << " "
          << palette[j].rgb;
    }
    for (std::string_view bg : HtmlPaletteBackgrounds()) {
      EXPECT_GE(DeltaE00(LabOf(palette[i].rgb), LabOf(bg)), kMinPaletteDeltaE00)
          << palette[i].meaning << " " << palette[i].rgb << " is hard to see on " << bg;
    }
  }
}

TEST(HtmlPalette, TheIssuesLookAlikesAreNowFarApart) {
  auto colour = [](std::string_view meaning) {
    for (const PaletteEntry& e : HtmlPalette()) {
      if (e.meaning == meaning) return LabOf(e.rgb);
    }
    ADD_FAILURE() << "no colour for " << meaning;
    return Lab{};
  };
  EXPECT_GE(DeltaE00(colour("overlap"), colour("gap: host_nvtx_range")), kMinPaletteDeltaE00);
  EXPECT_GE(DeltaE00(colour("D2H"), colour("gap: host_unannotated")), kMinPaletteDeltaE00);
}

TEST(HtmlPalette, OneColourPerMeaningAndEveryRuleIsWritten) {
  std::set<std::string_view> meanings, colours;
  std::string css = HtmlPaletteCss();
  for (const PaletteEntry& e : HtmlPalette()) {
    EXPECT_TRUE(meanings.insert(e.meaning).second) << "meaning twice: " << e.meaning;
    EXPECT_TRUE(colours.insert(e.rgb).second) << "colour twice: " << e.rgb;
    EXPECT_NE(css.find(std::string(e.selectors) + " { fill: " + std::string(e.rgb)), std::string::npos) << e.meaning;
  }
  std::string legend;
  AppendHtmlLegend(&legend);
  for (const PaletteEntry& e : HtmlPalette()) EXPECT_NE(legend.find(std::string(e.meaning)), std::string::npos);
}

}  // namespace
}  // namespace streamscope
