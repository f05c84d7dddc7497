// Host-side tables of an Nsight Systems export: CUDA runtime and driver
// calls, NVTX ranges and marks, thread names; and what is derived from the
// API calls once everything is read.
#include <algorithm>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "analyzer/importers/nsys/nsys_import_context.h"
#include "analyzer/model/saturating.h"

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

constexpr int64_t kNullValue = INT64_MIN;

}  // namespace

absl::Status ReadApiCalls(ImportContext& ctx, std::string_view table) {
  const std::string t(table);
  if (!ctx.db().HasTable(t)) return absl::OkStatus();  // caller adds the note
  const bool driver_table = table.ends_with("DRIVER");
  // NULLs become sentinels in SQL (asking SQLite about NULL per value costs
  // as much as reading it); the text name only where there is no name id.
  auto col_or = [&](std::string_view column, std::string_view fallback) { return ctx.ColOr(t, column, fallback); };
  const std::string text_name =
      ctx.Has(t, "name") ? (ctx.Has(t, "nameId") ? "CASE WHEN \"nameId\" IS NULL THEN \"name\" END" : "\"name\"")
                         : "NULL";
  std::string sql =
      absl::StrCat("SELECT rowid, ", col_or("start", kNullSql), ", ", col_or("end", kNullSql), ", ",
                   col_or("eventClass", "-1"), ", ", col_or("globalTid", kNullSql), ", ", col_or("correlationId", "-1"),
                   ", ", col_or("nameId", "-1"), ", ", col_or("returnValue", "0"), ", ", text_name, " FROM ", t);
  absl::Status rows = ctx.db().ForEachRow(sql, [&](const SqliteStatement& row) {
    ApiDomain domain = driver_table ? ApiDomain::kDriver : ApiDomain::kRuntime;
    const int64_t event_class = row.Int64(3);
    if (event_class == kEventClassRuntime) {
      domain = ApiDomain::kRuntime;
    } else if (event_class == kEventClassDriver) {
      domain = ApiDomain::kDriver;
    } else if (event_class != -1) {
      // e.g. 67 "CUDA backtrace": a duplicate of a call, carrying its stack.
      ++ctx.stats[absl::StrCat("api_row_skipped_event_class_", event_class)];
      return;
    }
    const int64_t start = row.Int64(1), end = row.Int64(2);
    if (start == kNullValue || end == kNullValue) {
      ++ctx.stats["record_null_timestamp"];
      return;
    }
    if (end < start) {
      ++ctx.stats["api_end_before_start"];
      return;
    }
    if (!IsTraceTime(start) || !IsTraceTime(end)) {
      ++ctx.stats["api_time_out_of_range"];
      return;
    }
    int64_t global_tid = row.Int64(4);
    if (global_tid == kNullValue) {
      ++ctx.stats["record_without_process"];
      global_tid = 0;
    }
    ProcessState& p = *ctx.ProcessForGlobalId(global_tid, /*create=*/true);
    const int64_t name_id = row.Int64(6);
    StringId name = name_id == -1 ? kNoString : ctx.Intern(p, name_id);
    if (name == kNoString) {
      std::string_view text = row.Text(8);
      if (!text.empty()) name = p.model.strings.Intern(text);
    }
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
    api.correlation_id.push_back(row.Int64(5));
    const int64_t rv = row.Int64(7);
    api.return_value.push_back(rv > INT32_MAX || rv < INT32_MIN ? -1 : static_cast<int32_t>(rv));
    api.source_id.push_back(row.Int64(0));
  });
  if (!rows.ok()) return rows;
  return absl::OkStatus();
}

absl::Status ReadNvtx(ImportContext& ctx) {
  const std::string t("NVTX_EVENTS");
  if (!ctx.db().HasTable(t)) {
    ctx.notes.push_back("export has no NVTX_EVENTS table: no NVTX ranges or marks");
    return absl::OkStatus();
  }
  std::string sql =
      absl::StrCat("SELECT rowid, start, end, ", ctx.Col(t, "eventType"), ", ", ctx.Col(t, "globalTid"), ", ",
                   ctx.Col(t, "text"), ", ", ctx.Col(t, "textId"), ", ", ctx.Col(t, "domainId"), " FROM ", t);
  int64_t other_process = 0;
  absl::Status rows = ctx.db().ForEachRow(sql, [&](const SqliteStatement& row) {
    if (row.IsNull(3) || row.IsNull(1)) {
      ++ctx.stats["nvtx_event_incomplete"];
      return;
    }
    int64_t type = row.Int64(3);
    if (type != kNvtxMark && type != kNvtxPushPopRange && type != kNvtxStartEndRange && type != kNvtxDomainCreate) {
      return;  // thread names, categories, payload-only events
    }
    int64_t global_tid = row.Int64(4);
    // NVTX of a process without CUDA activity (an MPI launcher, a shell)
    // has nothing to annotate.
    ProcessState* p = ctx.ProcessForGlobalId(global_tid, /*create=*/false);
    if (p == nullptr) {
      ++other_process;
      return;
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
      return;
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
      return;
    }
    NvtxRange r;
    r.name = text;
    r.tid = TidOf(global_tid);
    r.start_ns = start;
    if (!IsTraceTime(start)) {
      ++ctx.stats["nvtx_time_out_of_range"];
      return;
    }
    if (!row.IsNull(2)) {
      int64_t end = row.Int64(2);
      if (end < start) {
        ++ctx.stats["nvtx_end_before_start"];
        return;
      }
      if (!IsTraceTime(end)) {
        ++ctx.stats["nvtx_time_out_of_range"];
        return;
      }
      r.end_ns = end;
    }
    r.push_pop = type == kNvtxPushPopRange;
    r.source_id = row.Int64(0);
    p->model.nvtx_ranges.push_back(r);
    p->nvtx_range_domain.push_back(domain);
  });
  if (!rows.ok()) return rows;
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
  absl::Status rows =
      ctx.db().ForEachRow(absl::StrCat("SELECT ", ctx.Col(t, "nameId"), ", ", ctx.Col(t, "globalTid"), " FROM ", t),
                          [&](const SqliteStatement& row) {
                            if (row.IsNull(0) || row.IsNull(1)) return;
                            ProcessState* p = ctx.ProcessForGlobalId(row.Int64(1), /*create=*/false);
                            if (p == nullptr) return;
                            std::optional<std::string> name = ctx.Text(row.Int64(0));
                            if (name.has_value()) p->model.thread_names[TidOf(row.Int64(1))] = *name;
                          });
  if (!rows.ok()) return rows;
  return absl::OkStatus();
}

void DeriveFromApiCalls(ImportContext& ctx, ProcessState& p) {
  TraceModel& m = p.model;
  // What each API name says, decided once per name: async, per-thread
  // default stream, and the sync kind it performs.
  enum : uint8_t { kAsync = 1, kPerThread = 2 };
  std::vector<uint8_t> name_flags(m.strings.size(), 0);
  for (size_t i = 0; i < name_flags.size(); ++i) {
    std::string_view name = m.strings.Get(static_cast<StringId>(i));
    if (name.find("Async") != name.npos) name_flags[i] |= kAsync;
    if (name.find("_ptsz") != name.npos || name.find("_ptds") != name.npos) {
      name_flags[i] |= kPerThread;
    }
  }
  // Correlation id -> API call, runtime preferred (what the app called).
  // CUPTI numbers correlations densely from 1, so a vector usually serves.
  int64_t max_corr = -1;
  for (int64_t c : m.api.correlation_id) max_corr = std::max(max_corr, c);
  const bool dense = max_corr < static_cast<int64_t>(8 * m.api.size() + 1024);
  std::vector<int32_t> dense_map;
  absl::flat_hash_map<int64_t, int32_t> sparse_map;
  if (dense) dense_map.assign(static_cast<size_t>(max_corr + 1), -1);
  auto slot = [&](int64_t corr) -> int32_t* {
    if (dense) return &dense_map[static_cast<size_t>(corr)];
    return &sparse_map.try_emplace(corr, -1).first->second;
  };
  for (size_t i = 0; i < m.api.size(); ++i) {
    int64_t corr = m.api.correlation_id[i];
    if (corr < 0) continue;
    int32_t* s = slot(corr);
    if (*s < 0 || (m.api.domain[i] == ApiDomain::kRuntime && m.api.domain[*s] != ApiDomain::kRuntime)) {
      *s = static_cast<int32_t>(i);
    }
  }
  auto api_of = [&](int64_t corr) -> int32_t {
    if (corr < 0) return -1;
    if (dense) return corr <= max_corr ? dense_map[static_cast<size_t>(corr)] : -1;
    auto it = sparse_map.find(corr);
    return it == sparse_map.end() ? -1 : it->second;
  };
  auto flags_of = [&](int32_t api) -> uint8_t {
    if (api < 0) return 0;
    StringId name = m.api.name[api];
    return name >= 0 && static_cast<size_t>(name) < name_flags.size() ? name_flags[name] : 0;
  };

  // Copies and memsets: nsys exports have no async flag; the call says it.
  // Per-thread default stream: calls ending in _ptsz/_ptds submit to it.
  std::vector<uint8_t> per_thread(m.streams.size(), 0);
  for (size_t i = 0; i < m.ops.size(); ++i) {
    uint8_t flags = flags_of(api_of(m.ops.correlation_id[i]));
    if (flags == 0) continue;
    if (m.ops.category[i] != OpCategory::kKernel) m.ops.is_async[i] = (flags & kAsync) ? 1 : 0;
    if (flags & kPerThread) {
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

  // Sync kinds: the synchronizing call's name wins where it says one (some
  // exports number syncType the old way: cudaDeviceSynchronize came out as
  // an event synchronization); else the export's enum.
  int64_t unknown_syncs = 0, corrected = 0;
  for (SyncRecord& s : m.syncs) {
    int32_t api = api_of(s.correlation_id);
    SyncKind by_name = api >= 0 ? SyncKindForApiName(m.strings.Get(m.api.name[api])) : SyncKind::kUnknown;
    if (by_name != SyncKind::kUnknown) {
      if (s.kind != SyncKind::kUnknown && s.kind != by_name) ++corrected;
      s.kind = by_name;
    }
    if (s.kind == SyncKind::kUnknown) ++unknown_syncs;
  }
  if (corrected > 0) m.import_stats["sync_kind_differs_from_call"] += corrected;
  if (unknown_syncs > 0) {
    m.notes.push_back(absl::StrCat(unknown_syncs,
                                   " synchronizations have an unknown type (no ENUM_CUPTI_SYNC_TYPE "
                                   "table and no matching API call)"));
  }
  (void)ctx;
}

void MergeApiCalls(ImportContext& from, ImportContext& to) {
  for (auto& [pid, src] : from.processes()) {
    ApiCalls& a = src->model.api;
    if (a.size() == 0) continue;
    ProcessState& dst = *to.ProcessForPid(pid, /*create=*/true);
    // Names: few distinct ones, re-interned once each.
    std::vector<StringId> remap(src->model.strings.size(), kNoString);
    for (size_t i = 0; i < a.name.size(); ++i) {
      const StringId name = a.name[i];
      if (name < 0) continue;
      StringId& r = remap[name];
      if (r == kNoString) r = dst.model.strings.Intern(src->model.strings.Get(name));
      a.name.Set(i, r);
    }
    ApiCalls& b = dst.model.api;
    if (b.size() == 0) {
      b = std::move(a);
    } else {
      auto append = [](auto& out, const auto& in) {
        for (auto v : in) out.push_back(v);
      };
      append(b.start_ns, a.start_ns);
      append(b.end_ns, a.end_ns);
      append(b.tid, a.tid);
      append(b.name, a.name);
      append(b.domain, a.domain);
      append(b.cbid, a.cbid);
      append(b.correlation_id, a.correlation_id);
      append(b.return_value, a.return_value);
      append(b.source_id, a.source_id);
    }
  }
  for (const auto& [key, value] : from.stats) to.stats[key] += value;
  to.notes.insert(to.notes.end(), from.notes.begin(), from.notes.end());
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
    if (k == 0 || r.tid != m.nvtx_ranges[order[k - 1]].tid || r.domain != m.nvtx_ranges[order[k - 1]].domain) {
      open_ends.clear();
    }
    while (!open_ends.empty() && open_ends.back() <= r.start_ns) open_ends.pop_back();
    r.depth = static_cast<int32_t>(open_ends.size());
    open_ends.push_back(end_of(order[k]));
  }
}

}  // namespace streamscope::nsys
