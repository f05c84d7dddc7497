#include "analyzer/analysis/causes/idle_partition.h"

#include <algorithm>

#include "analyzer/analysis/causes/api_names.h"

namespace streamscope {
namespace {

// A figure of the finding, as ns within [0, its measured cost].
int64_t FigureNs(const DiagnoseFinding& f, const char* name) {
  auto it = f.figures.find(name);
  return it == f.figures.end() ? 0 : std::clamp<int64_t>(static_cast<int64_t>(it->second), 0, f.impact_ns);
}

}  // namespace

int64_t IdleCostNs(const DiagnoseFinding& f) {
  switch (f.cause) {
    case DiagnoseCause::kRoundTrip:
    case DiagnoseCause::kSyncBetween:
    case DiagnoseCause::kImplicitSyncCall:
    case DiagnoseCause::kCpuStarvation:
    case DiagnoseCause::kSmallWork: return f.impact_ns;
    case DiagnoseCause::kEventWait: return FigureNs(f, "idle_ns");
    case DiagnoseCause::kPageableCopies: return FigureNs(f, "host_held_idle_ns");
    case DiagnoseCause::kCopyEngines:
    case DiagnoseCause::kNoConcurrentKernels:
    case DiagnoseCause::kSameStream:
    case DiagnoseCause::kLegacyDefaultStream:
    case DiagnoseCause::kHardwareQueue:
    case DiagnoseCause::kLazyLoading:
    case DiagnoseCause::kContention:
    case DiagnoseCause::kCopyBandwidthBound:
    case DiagnoseCause::kSmallGrid: return 0;
  }
  return 0;
}

int64_t BusyCostNs(const DiagnoseFinding& f) { return f.impact_ns - IdleCostNs(f); }

IdleAccount AccountIdle(const DiagnoseResult& diagnose) {
  IdleAccount a;
  a.idle_ns = diagnose.idle_ns;
  a.reported_apart_ns = diagnose.idle_apart_ns;
  for (const DiagnoseFinding& f : diagnose.findings) {
    a.idle_costs_ns += IdleCostNs(f);
    a.busy_costs_ns += BusyCostNs(f);
  }
  a.unclaimed_ns = a.idle_ns - a.reported_apart_ns - a.idle_costs_ns;
  return a;
}

int64_t BlockedInCallsNs(const TraceModel& model, const GapCausesResult& gaps,
                         const std::function<bool(std::string_view base_name)>& owns) {
  int64_t ns = 0;
  for (const GapCauseTotal& t : gaps.totals) {
    if (t.cause == GapCause::kHostBlockedInCall && t.detail >= 0 && owns(BaseApiName(model.strings.Get(t.detail)))) {
      ns += t.ns;
    }
  }
  return ns;
}

}  // namespace streamscope
