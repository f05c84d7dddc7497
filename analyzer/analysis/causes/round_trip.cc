#include "analyzer/analysis/causes/round_trip.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analyzer/analysis/causes/api_names.h"
#include "analyzer/analysis/causes/diagnose_support.h"
#include "analyzer/analysis/causes/lower_median.h"

namespace streamscope {

using diagnose_support::CiteOp;

bool IsPyTorchTrace(const TraceModel& model) {
  for (size_t i = 0; i < model.strings.size(); ++i) {
    std::string_view s = model.strings.Get(static_cast<StringId>(i));
    // aten operators (torch.profiler), ATen kernels demangled (torch.profiler,
    // Nsight) or mangled as CUPTI reports them (streamscope: "_ZN2at6native...").
    if (s.rfind("aten::", 0) == 0 || s.find("at::native::") != std::string_view::npos ||
        s.find("2at6native") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

std::optional<DiagnoseFinding> FindRoundTrip(const TraceModel& model, const GapCausesResult& gaps, int max_evidence) {
  const int64_t idle = gaps.cause_ns[static_cast<int>(GapCause::kRoundTrip)];
  if (idle <= 0) return std::nullopt;
  DiagnoseFinding f;
  f.cause = DiagnoseCause::kRoundTrip;
  f.impact_ns = idle;
  RoundTripFacts facts;
  facts.idle_ns = idle;
  std::map<std::string, int64_t> by_name;
  for (const GapCauseTotal& t : gaps.totals) {
    if (t.cause != GapCause::kRoundTrip) continue;
    facts.iterations += t.gaps;
    by_name[std::string(BaseApiName(model.strings.Get(t.detail)))] += t.gaps;
    if (t.tid >= 0 && std::find(f.tids.begin(), f.tids.end(), t.tid) == f.tids.end()) f.tids.push_back(t.tid);
  }
  for (auto& [name, n] : by_name) facts.calls.push_back({name, n});
  std::vector<int64_t> bytes;
  for (const GapFinding& g : gaps.worst_gaps) {
    int64_t part_ns = 0;
    int32_t call = -1;
    for (const GapPart& p : g.parts) {
      if (p.cause != GapCause::kRoundTrip) continue;
      part_ns += p.length();
      call = p.api;
    }
    if (part_ns == 0) continue;
    if (g.prev_op >= 0) {
      bytes.push_back(model.ops.bytes[g.prev_op]);
      CiteOp(f, g.prev_op, max_evidence);
    }
    if (call >= 0 && static_cast<int>(f.calls.size()) < max_evidence) f.calls.push_back(call);
    if (g.next_op >= 0) CiteOp(f, g.next_op, max_evidence);
  }
  facts.per_iteration_ns = facts.iterations > 0 ? idle / facts.iterations : 0;
  facts.readback_bytes = bytes.empty() ? 0 : LowerMedian(std::move(bytes));
  facts.pytorch = IsPyTorchTrace(model);
  f.figures = {{"iterations", static_cast<double>(facts.iterations)},
               {"idle_ns", static_cast<double>(idle)},
               {"readback_bytes", static_cast<double>(facts.readback_bytes)}};
  f.facts = std::move(facts);
  return f;
}

}  // namespace streamscope
