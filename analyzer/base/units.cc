#include "analyzer/base/units.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace streamscope {
namespace {
std::string ThreeDigits(double v, const char* unit) {
  double a = std::fabs(v);
  if (a >= 100) return absl::StrFormat("%.0f %s", v, unit);
  if (a >= 10) return absl::StrFormat("%.1f %s", v, unit);
  return absl::StrFormat("%.2f %s", v, unit);
}
}  // namespace

std::string FormatDuration(int64_t ns) {
  double a = std::fabs(static_cast<double>(ns));
  if (a < 1e3) return absl::StrFormat("%d ns", ns);
  if (a < 1e6 - 0.5e3) return ThreeDigits(ns / 1e3, "us");
  if (a < 1e9 - 0.5e6) return ThreeDigits(ns / 1e6, "ms");
  return ThreeDigits(ns / 1e9, "s");
}

std::string FormatOffset(int64_t ns) { return (ns < 0 ? "-" : "+") + FormatDuration(ns < 0 ? -ns : ns); }

double ShareOf(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string FormatWholePercent(double fraction) { return absl::StrFormat("%.0f%%", fraction * 100.0); }

std::string FormatShare(double share) {
  double pct = share * 100;
  if (pct >= 10 || pct == 0) return absl::StrFormat("%.0f%%", pct);
  if (pct >= 1) return absl::StrFormat("%.1f%%", pct);
  return absl::StrFormat("%.2f%%", pct);
}

std::string FormatShare(int64_t part, int64_t whole) {
  if (whole <= 0) return "-";
  return FormatShare(static_cast<double>(part) / static_cast<double>(whole));
}

std::string FormatBytes(int64_t bytes) {
  double b = static_cast<double>(bytes);
  if (b < 1024) return absl::StrFormat("%d B", bytes);
  if (b < 1024.0 * 1024) return absl::StrFormat("%.2f KiB", b / 1024);
  if (b < 1024.0 * 1024 * 1024) return absl::StrFormat("%.2f MiB", b / (1024.0 * 1024));
  return absl::StrFormat("%.2f GiB", b / (1024.0 * 1024 * 1024));
}

}  // namespace streamscope
