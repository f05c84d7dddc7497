#include "analyzer/render/instances_render.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"

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

}  // namespace

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
  out << "\nInstances of " << name << ": " << instances.size() << ", " << FormatDuration(total) << " in all; each one "
      << DurationSpread(lengths) << ".\n";
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
    out << "    #" << x.index + 1 << " " << FormatDuration(x.length_ns) << " at " << FormatOffset(x.start_ns)
        << ": GPU busy " << FormatShare(x.busy_ns, x.device_ns);
    if (x.copy_ns > 0) out << ", copies hidden " << FormatShare(x.copy_ns - x.exposed_copy_ns, x.copy_ns);
    out << (x.finding.empty() ? ", no significant finding" : ", main finding: " + Shortened(x.finding)) << "\n";
  }
  out << "  One instance in full: --nvtx-instance K; every instance in full: --format json or csv.\n";
}

}  // namespace streamscope
