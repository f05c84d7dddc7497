#include "analyzer/analysis/causes/copy_bound.h"

#include <algorithm>
#include <optional>
#include <string>

#include "analyzer/analysis/causes/diagnose_support.h"
#include "analyzer/analysis/causes/host_link_rate.h"
#include "analyzer/model/saturating.h"

namespace streamscope {
namespace {

bool IsPinnedCopy(const TraceModel& m, int32_t op) {
  MemoryKind s = m.ops.src_kind[op], d = m.ops.dst_kind[op];
  return s != MemoryKind::kPageable && d != MemoryKind::kPageable &&
         (s == MemoryKind::kPinned || d == MemoryKind::kPinned);
}

// 90th percentile of `rates` (reordered); 0 when empty.
double HighRate(std::vector<double>& rates) {
  if (rates.empty()) return 0;
  auto at = rates.begin() + static_cast<std::ptrdiff_t>((rates.size() - 1) * 9 / 10);
  std::nth_element(rates.begin(), at, rates.end());
  return *at;
}

}  // namespace

std::vector<DiagnoseFinding> FindCopyBandwidthBound(const TraceModel& m, const OverlapResult& overlap, OpIndexRange ops,
                                                    int64_t gpu_span_ns, const DiagnoseOptions& o) {
  std::vector<DiagnoseFinding> findings;
  if (gpu_span_ns <= 0) return findings;
  for (const DeviceOverlap& d : overlap.devices) {
    for (OpCategory c : {OpCategory::kHtoD, OpCategory::kDtoH}) {
      const int ci = static_cast<int>(c);
      const int64_t busy = d.category_ns[ci];
      const int64_t compute = d.category_ns[static_cast<int>(OpCategory::kKernel)];
      if (static_cast<double>(busy) < o.copy_bound_min_busy_share * static_cast<double>(gpu_span_ns) ||
          static_cast<double>(busy) < o.copy_bound_min_compute_ratio * static_cast<double>(compute)) {
        continue;
      }
      int64_t copies = 0, bytes = 0, ns = 0, big_bytes = 0, big_ns = 0;
      std::vector<double> pinned_rates;
      std::vector<int32_t> cited;
      for (int32_t op : ops) {
        if (m.ops.device_id[op] != d.device_id || m.ops.category[op] != c) continue;
        const int64_t dur = SaturatingSub(m.ops.end_ns[op], m.ops.start_ns[op]);
        const int64_t b = m.ops.bytes[op];
        copies += 1;
        bytes += b;
        ns += dur;
        if (b < o.latency_bound_copy_bytes || dur <= 0) continue;
        big_bytes += b;
        big_ns += dur;
        if (IsPinnedCopy(m, op)) pinned_rates.push_back(static_cast<double>(b) / static_cast<double>(dur));
        if (cited.size() < static_cast<size_t>(o.max_evidence)) cited.push_back(op);
      }
      // Mostly latency-bound copies: their rate says nothing about the link.
      if (big_ns <= 0 || 2 * big_ns < ns) continue;
      const double achieved = static_cast<double>(big_bytes) / static_cast<double>(big_ns);
      std::optional<HostLinkRate> link = DeviceLinkRate(m, d.device_id);
      CopyBoundFacts facts;
      if (double high = HighRate(pinned_rates); high > 0) {
        facts.reference = CopyBoundFacts::Reference::kThisTrace;
        facts.reference_bytes_per_ns = high;
      } else if (link) {
        facts.reference = CopyBoundFacts::Reference::kDeviceLink;
        facts.reference_bytes_per_ns = link->bytes_per_ns;
      } else {
        continue;  // nothing says what "near the limit" is
      }
      if (achieved < o.copy_bound_min_rate_share * facts.reference_bytes_per_ns) continue;
      facts.device_id = d.device_id;
      facts.category = c;
      facts.copies = copies;
      facts.bytes = bytes;
      facts.busy_ns = busy;
      facts.span_ns = gpu_span_ns;
      facts.compute_ns = compute;
      facts.exposed_ns = d.exposed_ns[ci];
      facts.achieved_bytes_per_ns = achieved;
      if (link) {
        facts.link = link;
        facts.link_bytes_per_ns = link->bytes_per_ns;
        facts.link_floor_ns = static_cast<int64_t>(static_cast<double>(bytes) / link->bytes_per_ns);
      }
      if (const Device* dev = m.FindDevice(d.device_id)) facts.copy_engines = dev->async_engine_count;
      DiagnoseFinding f;
      f.cause = DiagnoseCause::kCopyBandwidthBound;
      f.impact_ns = facts.exposed_ns;
      const std::string cat(OpCategoryName(c));
      f.figures = {{"device_id", d.device_id},
                   {cat + "_copies", static_cast<double>(copies)},
                   {cat + "_bytes", static_cast<double>(bytes)},
                   {cat + "_busy_ns", static_cast<double>(busy)},
                   {cat + "_busy_share", static_cast<double>(busy) / static_cast<double>(gpu_span_ns)},
                   {cat + "_exposed_ns", static_cast<double>(facts.exposed_ns)},
                   {"achieved_gbps", achieved},
                   {"reference_gbps", facts.reference_bytes_per_ns},
                   {"compute_ns", static_cast<double>(compute)}};
      if (link) f.figures["link_gbps"] = link->bytes_per_ns;
      for (int32_t op : cited) diagnose_support::CiteOp(f, op, o.max_evidence);
      f.facts = std::move(facts);
      findings.push_back(std::move(f));
    }
  }
  return findings;
}

}  // namespace streamscope
