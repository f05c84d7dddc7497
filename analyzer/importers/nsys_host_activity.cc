// Host-side tables of an Nsight Systems export: CUDA runtime and driver
// calls, NVTX ranges and marks, thread names; and what is derived from the
// API calls once everything is read.
#include <algorithm>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "analyzer/importers/nsys_import_context.h"

namespace streamscope::nsys {
namespace {

// NVTX_EVENTS.eventType values (ENUM_NSYS_EVENT_TYPE).
constexpr int64_t kNvtxMark = 34;
constexpr int64_t kNvtxPushPopRange = 59;
constexpr int64_t kNvtxStartEndRange = 60;
constexpr int64_t kNvtxDomainCreate = 75;

// CUPTI_ACTIVITY_KIND_RUNTIME.eventClass (ENUM_NSYS_EVENT_CLASS).
constexpr int64_t kEventClassRuntime = 0;
constexpr int64_t kEventClassDriver = 1;

}  // namespace

absl::Status ReadApiCalls(ImportContext& ctx, std::string_view table) {
  const std::string t(table);
  if (!ctx.db().HasTable(t)) return absl::OkStatus();  // caller adds the note
  const bool driver_table = table.ends_with("DRIVER");
  std::string sql = absl::StrCat(
      "SELECT rowid, start, end, ", ctx.Col(t, "eventClass"), ", ", ctx.Col(t, "globalTid"),
      ", ", ctx.Col(t, "correlationId"), ", ", ctx.Col(t, "nameId"), ", ",
      ctx.Col(t, "returnValue"), ", ", ctx.Col(t, "name"), " FROM ", t);
  auto stmt = ctx.db().Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  while (true) {
    auto more = stmt->Step();
    if (!more.ok()) return more.status();
    if (!*more) break;
    const SqliteStatement& row = *stmt;
    ApiDomain domain = driver_table ? ApiDomain::kDriver : ApiDomain::kRuntime;
    if (!row.IsNull(3)) {
      int64_t event_class = row.Int64(3);
      if (event_class == kEventClassRuntime) {
        domain = ApiDomain::kRuntime;
      } else if (event_class == kEventClassDriver) {
        domain = ApiDomain::kDriver;
      } else {
        // e.g. 67 "CUDA backtrace": a duplicate of a call, carrying its stack.
        ++ctx.stats[absl::StrCat("api_row_skipped_event_class_", event_class)];
        continue;
      }
    }
    if (row.IsNull(1) || row.IsNull(2)) {
      ++ctx.stats["record_null_timestamp"];
      continue;
    }
    int64_t start = row.Int64(1), end = row.Int64(2);
    if (end < start) {
      ++ctx.stats["api_end_before_start"];
      continue;
    }
    if (row.IsNull(4)) ++ctx.stats["record_without_process"];
    int64_t global_tid = row.Int64(4);
    ProcessState& p = *ctx.ProcessForGlobalId(global_tid, /*create=*/true);
    StringId name = row.IsNull(6) ? kNoString : ctx.Intern(p, row.Int64(6));
    if (name == kNoString && !row.Text(8).empty()) name = p.model.strings.Intern(row.Text(8));
    if (name == kNoString) {
      ++ctx.stats["api_without_name"];
      name = p.model.strings.Intern("(unnamed API call)");
    }
    ApiCalls& api = p.model.api;
    api.start_ns.push_back(start);
    api.end_ns.push_back(end);
    api.tid.push_back(TidOf(global_tid));
    api.name.push_back(name);
    api.domain.push_back(domain);
    api.cbid.push_back(0);  // nsys exports do not carry CUPTI callback ids
    api.correlation_id.push_back(row.IsNull(5) ? -1 : row.Int64(5));
    int64_t rv = row.Int64(7);
    api.return_value.push_back(rv > INT32_MAX || rv < INT32_MIN ? -1 : static_cast<int32_t>(rv));
    api.source_id.push_back(row.Int64(0));
  }
  return absl::OkStatus();
}

absl::Status ReadNvtx(ImportContext& ctx) {
  const std::string t("NVTX_EVENTS");
  if (!ctx.db().HasTable(t)) {
    ctx.notes.push_back("export has no NVTX_EVENTS table: no NVTX ranges or marks");
    return absl::OkStatus();
  }
  std::string sql = absl::StrCat(
      "SELECT rowid, start, end, ", ctx.Col(t, "eventType"), ", ", ctx.Col(t, "globalTid"), ", ",
      ctx.Col(t, "text"), ", ", ctx.Col(t, "textId"), ", ", ctx.Col(t, "domainId"), " FROM ", t);
  auto stmt = ctx.db().Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  int64_t other_process = 0;
  while (true) {
    auto more = stmt->Step();
    if (!more.ok()) return more.status();
    if (!*more) break;
    const SqliteStatement& row = *stmt;
    if (row.IsNull(3) || row.IsNull(1)) {
      ++ctx.stats["nvtx_event_incomplete"];
      continue;
    }
    int64_t type = row.Int64(3);
    if (type != kNvtxMark && type != kNvtxPushPopRange && type != kNvtxStartEndRange &&
        type != kNvtxDomainCreate) {
      continue;  // thread names, categories, payload-only events
    }
    int64_t global_tid = row.Int64(4);
    // NVTX of a process without CUDA activity (an MPI launcher, a shell)
    // has nothing to annotate.
    ProcessState* p = ctx.ProcessForGlobalId(global_tid, /*create=*/false);
    if (p == nullptr) {
      ++other_process;
      continue;
    }
    StringId text = kNoString;
    if (!row.IsNull(5)) {
      text = p->model.strings.Intern(row.Text(5));
    } else if (!row.IsNull(6)) {
      text = ctx.Intern(*p, row.Int64(6));
    }
    int64_t domain = row.IsNull(7) ? 0 : row.Int64(7);
    if (type == kNvtxDomainCreate) {
      if (text != kNoString) p->nvtx_domain_names[domain] = text;
      continue;
    }
    if (text == kNoString) text = p->model.strings.Intern("");
    int64_t start = row.Int64(1);
    if (type == kNvtxMark) {
      NvtxMark m;
      m.name = text;
      m.tid = TidOf(global_tid);
      m.ts_ns = start;
      p->model.nvtx_marks.push_back(m);
      p->nvtx_mark_domain.push_back(domain);
      continue;
    }
    NvtxRange r;
    r.name = text;
    r.tid = TidOf(global_tid);
    r.start_ns = start;
    if (!row.IsNull(2)) {
      int64_t end = row.Int64(2);
      if (end < start) {
        ++ctx.stats["nvtx_end_before_start"];
        continue;
      }
      r.end_ns = end;
    }
    r.push_pop = type == kNvtxPushPopRange;
    r.source_id = row.Int64(0);
    p->model.nvtx_ranges.push_back(r);
    p->nvtx_range_domain.push_back(domain);
  }
  if (other_process > 0) {
    ctx.notes.push_back(absl::StrCat(other_process,
                                     " NVTX events of processes without CUDA activity were "
                                     "not imported"));
  }
  return absl::OkStatus();
}

absl::Status ReadThreadNames(ImportContext& ctx) {
  const std::string t("ThreadNames");
  if (!ctx.db().HasTable(t)) return absl::OkStatus();
  auto stmt = ctx.db().Prepare(absl::StrCat("SELECT ", ctx.Col(t, "nameId"), ", ",
                                            ctx.Col(t, "globalTid"), " FROM ", t));
  if (!stmt.ok()) return stmt.status();
  while (true) {
    auto more = stmt->Step();
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (stmt->IsNull(0) || stmt->IsNull(1)) continue;
    ProcessState* p = ctx.ProcessForGlobalId(stmt->Int64(1), /*create=*/false);
    if (p == nullptr) continue;
    std::optional<std::string> name = ctx.Text(stmt->Int64(0));
    if (name.has_value()) p->model.thread_names[TidOf(stmt->Int64(1))] = *name;
  }
  return absl::OkStatus();
}

void DeriveFromApiCalls(ImportContext& ctx, ProcessState& p) {
  TraceModel& m = p.model;
  // Correlation id -> API call, runtime preferred (what the app called).
  absl::flat_hash_map<int64_t, int32_t> by_corr;
  by_corr.reserve(m.api.size());
  for (size_t i = 0; i < m.api.size(); ++i) {
    int64_t corr = m.api.correlation_id[i];
    if (corr < 0) continue;
    auto [it, inserted] = by_corr.try_emplace(corr, static_cast<int32_t>(i));
    if (!inserted && m.api.domain[i] == ApiDomain::kRuntime &&
        m.api.domain[it->second] != ApiDomain::kRuntime) {
      it->second = static_cast<int32_t>(i);
    }
  }
  auto api_name = [&](int64_t corr) -> std::string_view {
    if (corr < 0) return {};
    auto it = by_corr.find(corr);
    return it == by_corr.end() ? std::string_view() : m.strings.Get(m.api.name[it->second]);
  };

  // Copies and memsets: nsys exports have no async flag; the call says it.
  // Per-thread default stream: calls ending in _ptsz/_ptds submit to it.
  std::vector<uint8_t> per_thread(m.streams.size(), 0);
  for (size_t i = 0; i < m.ops.size(); ++i) {
    std::string_view name = api_name(m.ops.correlation_id[i]);
    if (name.empty()) continue;
    if (m.ops.category[i] != OpCategory::kKernel) {
      m.ops.is_async[i] = name.find("Async") != name.npos ? 1 : 0;
    }
    if (name.find("_ptsz") != name.npos || name.find("_ptds") != name.npos) {
      int32_t s = m.ops.stream[i];
      if (s >= 0 && static_cast<size_t>(s) < per_thread.size()) per_thread[s] = 1;
    }
  }
  for (size_t s = 0; s < per_thread.size(); ++s) {
    StreamKind& kind = m.streams[s].kind;
    if (per_thread[s] && (kind == StreamKind::kBlocking || kind == StreamKind::kUnknown)) {
      kind = StreamKind::kPerThreadDefault;
    }
  }

  // Sync kinds: the export's enum if it named them, else the call's name.
  int64_t unknown_syncs = 0;
  for (SyncRecord& s : m.syncs) {
    if (s.kind == SyncKind::kUnknown) s.kind = SyncKindForApiName(api_name(s.correlation_id));
    if (s.kind == SyncKind::kUnknown) ++unknown_syncs;
  }
  if (unknown_syncs > 0) {
    m.notes.push_back(absl::StrCat(unknown_syncs,
                                   " synchronizations have an unknown type (no ENUM_CUPTI_SYNC_TYPE "
                                   "table and no matching API call)"));
  }
  (void)ctx;
}

void FinishNvtx(ProcessState& p) {
  TraceModel& m = p.model;
  auto domain_name = [&](int64_t id) -> StringId {
    if (id == 0) return kNoString;  // the default domain
    auto it = p.nvtx_domain_names.find(id);
    if (it != p.nvtx_domain_names.end()) return it->second;
    return m.strings.Intern(absl::StrCat("domain ", id));
  };
  for (size_t i = 0; i < m.nvtx_ranges.size(); ++i) {
    m.nvtx_ranges[i].domain = domain_name(p.nvtx_range_domain[i]);
  }
  for (size_t i = 0; i < m.nvtx_marks.size(); ++i) {
    m.nvtx_marks[i].domain = domain_name(p.nvtx_mark_domain[i]);
  }
  // Push/pop depth: each thread has one stack per domain. Sort by start
  // (outer first on ties) and keep the ends of the ranges still open.
  std::vector<uint32_t> order;
  for (size_t i = 0; i < m.nvtx_ranges.size(); ++i) {
    if (m.nvtx_ranges[i].push_pop) order.push_back(static_cast<uint32_t>(i));
  }
  constexpr int64_t kOpen = std::numeric_limits<int64_t>::max();
  auto end_of = [&](uint32_t i) { return m.nvtx_ranges[i].end_ns.value_or(kOpen); };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const NvtxRange& x = m.nvtx_ranges[a];
    const NvtxRange& y = m.nvtx_ranges[b];
    if (x.tid != y.tid) return x.tid < y.tid;
    if (x.domain != y.domain) return x.domain < y.domain;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return end_of(a) > end_of(b);
  });
  std::vector<int64_t> open_ends;
  for (size_t k = 0; k < order.size(); ++k) {
    NvtxRange& r = m.nvtx_ranges[order[k]];
    if (k == 0 || r.tid != m.nvtx_ranges[order[k - 1]].tid ||
        r.domain != m.nvtx_ranges[order[k - 1]].domain) {
      open_ends.clear();
    }
    while (!open_ends.empty() && open_ends.back() <= r.start_ns) open_ends.pop_back();
    r.depth = static_cast<int32_t>(open_ends.size());
    open_ends.push_back(end_of(order[k]));
  }
}

}  // namespace streamscope::nsys
