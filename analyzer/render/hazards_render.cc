#include "analyzer/render/hazards_render.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analyzer/base/units.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {
namespace {

std::string Hex(uint64_t v) { return absl::StrFormat("0x%x", v); }

bool ValidAllocation(const TraceModel& m, int64_t a) { return a >= 0 && static_cast<size_t>(a) < m.allocations.size(); }

nlohmann::json AllocationJson(const TraceModel& m, int64_t a) {
  if (!ValidAllocation(m, a)) return nullptr;
  const Allocation& x = m.allocations[a];
  return {{"id", x.source_id},      {"kind", x.kind},
          {"address", x.address},   {"address_hex", Hex(x.address)},
          {"bytes", x.bytes},       {"device_id", x.device_id},
          {"alloc_ns", x.alloc_ns}, {"free_ns", x.free_ns ? nlohmann::json(*x.free_ns) : nlohmann::json(nullptr)}};
}

const char* ClassName(bool certain) { return certain ? "certain" : "possible"; }

nlohmann::json HazardJson(const TraceModel& m, const Hazard& h) {
  return {{"class", ClassName(h.certain)},
          {"allocation", AllocationJson(m, h.allocation)},
          {"range", {{"start", h.lo}, {"end", h.hi}, {"bytes", h.hi - h.lo}, {"start_hex", Hex(h.lo)}}},
          {"observed_concurrent", h.observed_concurrent},
          {"a", {{"op", OpRefJson(m, h.op_a)}, {"access", AccessName(h.access_a)}}},
          {"b", {{"op", OpRefJson(m, h.op_b)}, {"access", AccessName(h.access_b)}}},
          {"sentence", HazardSentence(m, h)}};
}

std::string Verb(MemoryAccess::Access a) {
  switch (a) {
    case MemoryAccess::Access::kRead: return "reads";
    case MemoryAccess::Access::kWrite: return "writes";
    case MemoryAccess::Access::kUnknown: return "may read or write (kernel argument)";
  }
  return "touches";
}

size_t Cap(size_t n, int top) { return top < 0 ? n : std::min(n, static_cast<size_t>(top)); }

}  // namespace

std::string AllocationLabel(const TraceModel& m, int64_t a) {
  if (!ValidAllocation(m, a)) return "memory outside recorded allocations";
  const Allocation& x = m.allocations[a];
  return absl::StrCat("allocation ", x.source_id, " ", x.kind, " ", FormatBytes(static_cast<int64_t>(x.bytes)), " at ",
                      Hex(x.address));
}

std::string HazardSentence(const TraceModel& m, const Hazard& h) {
  std::string s =
      absl::StrCat(h.certain ? "Certain" : "Possible", " hazard on ", AllocationLabel(m, h.allocation), ": ",
                   OpLabel(m, h.op_a), " ", Verb(h.access_a), " and ", OpLabel(m, h.op_b), " ", Verb(h.access_b),
                   " bytes [", Hex(h.lo), ", ", Hex(h.hi), ") (", FormatBytes(static_cast<int64_t>(h.hi - h.lo)),
                   ") with no ordering between them (no event wait, sync or stream order)");
  absl::StrAppend(&s, h.observed_concurrent ? "; they were observed running at the same time."
                                            : "; they did not run at the same time in this trace.");
  return s;
}

nlohmann::json OwnershipToJson(const OwnershipResult& r, const TraceModel& m, int top) {
  nlohmann::json shared = nlohmann::json::array();
  std::vector<const AllocationOwnership*> list;
  int64_t shared_count = 0;
  for (const AllocationOwnership& a : r.allocations) {
    if (!a.shared()) continue;
    ++shared_count;
    list.push_back(&a);
  }
  std::stable_sort(list.begin(), list.end(), [](const AllocationOwnership* a, const AllocationOwnership* b) {
    return a->access_count > b->access_count;
  });
  list.resize(Cap(list.size(), top));
  for (const AllocationOwnership* a : list) {
    nlohmann::json streams = nlohmann::json::array();
    for (int32_t s : a->streams) streams.push_back(StreamSourceId(m, s));
    shared.push_back({{"allocation", AllocationJson(m, a->allocation)},
                      {"access_count", a->access_count},
                      {"reads", a->reads},
                      {"writes", a->writes},
                      {"unknown", a->unknown},
                      {"streams", streams}});
  }
  return {{"analysis", "ownership"},
          {"checked", r.has_data},
          {"access_rows", r.access_rows},
          {"accesses_without_op", r.accesses_without_op},
          {"accesses_empty", r.accesses_empty},
          {"accesses_in_window", r.accesses_in_window},
          {"allocations_touched", r.allocations.size()},
          {"shared_allocations", shared_count},
          {"shared", shared}};
}

nlohmann::json HazardsToJson(const HazardsResult& r, const TraceModel& m,
                             const std::map<std::string, int64_t>& order_stats, int top) {
  auto side = [&](bool certain) {
    const std::vector<Hazard>& list = certain ? r.certain : r.possible;
    nlohmann::json listed = nlohmann::json::array();
    for (size_t i = 0; i < Cap(list.size(), top); ++i) listed.push_back(HazardJson(m, list[i]));
    return nlohmann::json{{"count", certain ? r.certain_count : r.possible_count},
                          {"observed_concurrent", certain ? r.certain_observed : r.possible_observed},
                          {"listed", listed}};
  };
  nlohmann::json groups = nlohmann::json::array();
  for (size_t i = 0; i < Cap(r.groups.size(), top); ++i) {
    const HazardGroup& g = r.groups[i];
    groups.push_back({{"class", ClassName(g.certain)},
                      {"allocation", AllocationJson(m, g.allocation)},
                      {"op_a_stream_id", StreamIdJson(m, g.stream_a)},
                      {"op_b_stream_id", StreamIdJson(m, g.stream_b)},
                      {"count", g.count},
                      {"observed_concurrent", g.observed_concurrent},
                      {"example", HazardJson(m, g.example)}});
  }
  nlohmann::json order = nlohmann::json::object();
  for (const auto& [k, v] : order_stats) order[k] = v;
  return {{"analysis", "hazards"},
          {"checked", r.has_access_data},
          {"certain", side(true)},
          {"possible", side(false)},
          {"groups", groups},
          {"groups_total", r.groups_total},
          {"access_rows", r.stats.access_rows},
          {"accesses_without_op", r.stats.accesses_without_op},
          {"accesses_empty", r.stats.accesses_empty},
          {"scans_truncated", r.stats.scans_truncated},
          {"order", order}};
}

void RenderHazardsText(const HazardsResult& r, const OwnershipResult& own, const TraceModel& m, int top,
                       std::ostream& out) {
  out << "\nOwnership and hazards:\n";
  if (!r.has_access_data) {
    out << "  Not checked: the trace holds no memory_access records (record it with `streamscope run --kinds "
           "+memory`).\n";
    return;
  }
  int64_t shared = 0;
  for (const AllocationOwnership& a : own.allocations) shared += a.shared() ? 1 : 0;
  out << "  " << own.accesses_in_window << " accesses to " << own.allocations.size() << " allocations in the window; "
      << shared << " allocations touched by more than one stream.";
  if (r.stats.accesses_without_op > 0) {
    out << " " << r.stats.accesses_without_op << " access records matched no GPU op (left out).";
  }
  out << "\n";
  out << "  " << r.certain_count << " certain hazards (" << r.certain_observed
      << " observed running at the same time), " << r.possible_count
      << " possible hazards involving kernel arguments of unknown direction (" << r.possible_observed
      << " observed at the same time).\n";
  if (r.certain_count == 0 && r.possible_count == 0) {
    out << "  Every cross-stream access to shared memory is ordered by stream order, event waits or syncs.\n";
  }
  if (r.stats.scans_truncated > 0) {
    out << "  (" << r.stats.scans_truncated << " searches were cut short: the counts are lower bounds.)\n";
  }
  size_t n = Cap(r.groups.size(), top);
  for (size_t i = 0; i < n; ++i) {
    const HazardGroup& g = r.groups[i];
    out << "  " << (g.certain ? "CERTAIN " : "possible ") << g.count << "x on " << AllocationLabel(m, g.allocation)
        << " between streams " << StreamSourceId(m, g.stream_a) << " and " << StreamSourceId(m, g.stream_b) << " ("
        << g.observed_concurrent << " observed concurrent), e.g.:\n    " << HazardSentence(m, g.example) << "\n";
  }
  if (r.groups_total > static_cast<int64_t>(n)) {
    out << "  ... and " << (r.groups_total - static_cast<int64_t>(n)) << " more groups.\n";
  }
}

std::vector<ResultTable> HazardsToTables(const HazardsResult& r, const OwnershipResult& own, const TraceModel& m) {
  auto alloc_id = [&](int64_t a) {
    return ValidAllocation(m, a) ? ResultValue(m.allocations[a].source_id) : ResultValue();
  };
  ResultTable ownership{"analysis_ownership",
                        {"allocation_id", "allocation_kind", "op_table", "op_id", "stream_id", "access", "address",
                         "bytes", "start_ns", "end_ns"},
                        {}};
  for (const AllocationOwnership& a : own.allocations) {
    for (const ResolvedAccess& x : a.accesses) {
      ownership.rows.push_back(
          {alloc_id(a.allocation),
           ValidAllocation(m, a.allocation) ? ResultValue(m.allocations[a.allocation].kind) : ResultValue(),
           std::string(OpTable(m.ops.category[x.op])), m.ops.source_id[x.op], StreamIdCell(m, m.ops.stream[x.op]),
           std::string(AccessName(x.access)), static_cast<int64_t>(x.lo), static_cast<int64_t>(x.hi - x.lo),
           m.ops.start_ns[x.op], m.ops.end_ns[x.op]});
    }
  }
  ResultTable hazards{"analysis_hazard",
                      {"class", "allocation_id", "range_start", "range_end", "range_bytes", "op_a_table", "op_a_id",
                       "op_a_stream_id", "access_a", "op_a_start_ns", "op_a_end_ns", "op_b_table", "op_b_id",
                       "op_b_stream_id", "access_b", "op_b_start_ns", "op_b_end_ns", "observed_concurrent"},
                      {}};
  for (const std::vector<Hazard>* list : {&r.certain, &r.possible}) {
    for (const Hazard& h : *list) {
      hazards.rows.push_back(
          {std::string(ClassName(h.certain)), alloc_id(h.allocation), static_cast<int64_t>(h.lo),
           static_cast<int64_t>(h.hi), static_cast<int64_t>(h.hi - h.lo), std::string(OpTable(m.ops.category[h.op_a])),
           m.ops.source_id[h.op_a], StreamIdCell(m, m.ops.stream[h.op_a]), std::string(AccessName(h.access_a)),
           m.ops.start_ns[h.op_a], m.ops.end_ns[h.op_a], std::string(OpTable(m.ops.category[h.op_b])),
           m.ops.source_id[h.op_b], StreamIdCell(m, m.ops.stream[h.op_b]), std::string(AccessName(h.access_b)),
           m.ops.start_ns[h.op_b], m.ops.end_ns[h.op_b], int64_t{h.observed_concurrent ? 1 : 0}});
    }
  }
  ResultTable summary{"analysis_hazard_summary",
                      {"class", "checked", "count", "observed_concurrent", "listed", "access_rows",
                       "accesses_without_op", "scans_truncated"},
                      {}};
  for (bool certain : {true, false}) {
    summary.rows.push_back({std::string(ClassName(certain)), int64_t{r.has_access_data ? 1 : 0},
                            certain ? r.certain_count : r.possible_count,
                            certain ? r.certain_observed : r.possible_observed,
                            static_cast<int64_t>(certain ? r.certain.size() : r.possible.size()), r.stats.access_rows,
                            r.stats.accesses_without_op, r.stats.scans_truncated});
  }
  return {std::move(ownership), std::move(hazards), std::move(summary)};
}

}  // namespace streamscope
