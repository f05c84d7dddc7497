#include "analyzer/render/hidden_sync_render.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/op_ref.h"
#include "analyzer/render/text_layout.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

// The idle the one account of idle time charges to the calls, when cited.
// `who`: "them" for a total, "it" for one call.
std::string IdleAccountText(const HiddenSyncResult& r, int64_t ns, std::string_view who = "them") {
  if (!r.idle_account) return "";
  return absl::StrCat("; GPU idle charged to ", std::string(who), ": ",
                      ns == 0 ? std::string("none") : FormatDuration(ns));
}
ResultValue IdleAccountCell(const HiddenSyncResult& r, int64_t ns) {
  return r.idle_account ? ResultValue(ns) : ResultValue();
}

nlohmann::json SyncOpJson(const TraceModel& m, int32_t op) {
  if (op < 0) return nullptr;
  const GpuOps& ops = m.ops;
  nlohmann::json j;
  j["table"] = std::string(OpTable(ops.category[op]));
  j["id"] = ops.source_id[op];
  j["category"] = std::string(OpCategoryName(ops.category[op]));
  j["name"] =
      ops.name[op] >= 0 ? nlohmann::json(std::string(DisplayName(m.strings, ops.name[op]))) : nlohmann::json(nullptr);
  j["mangled_name"] =
      ops.name[op] >= 0 ? nlohmann::json(std::string(m.strings.Get(ops.name[op]))) : nlohmann::json(nullptr);
  j["stream_id"] = StreamIdJson(m, ops.stream[op]);
  j["stream_kind"] = std::string(
      StreamKindName(ValidStream(m, ops.stream[op]) ? m.streams[ops.stream[op]].kind : StreamKind::kUnknown));
  j["device_id"] = ops.device_id[op];
  j["start_ns"] = ops.start_ns[op];
  j["end_ns"] = ops.end_ns[op];
  j["src_kind"] = std::string(MemoryKindName(ops.src_kind[op]));
  j["dst_kind"] = std::string(MemoryKindName(ops.dst_kind[op]));
  j["bytes"] = ops.bytes[op];
  return j;
}

// "kernel 3 'k' (stream 7, legacy_default)": the stream kind says why ops wait.
std::string OpText(const TraceModel& m, int32_t op) { return OpNamedRef(m, op, /*with_stream_kind=*/true); }

nlohmann::json ApiJson(const TraceModel& m, int32_t api) {
  if (api < 0) return nullptr;
  return {{"id", m.api.source_id[api]},  {"name", std::string(DisplayName(m.strings, m.api.name[api]))},
          {"tid", m.api.tid[api]},       {"start_ns", m.api.start_ns[api]},
          {"end_ns", m.api.end_ns[api]}, {"duration_ns", m.api.end_ns[api] - m.api.start_ns[api]}};
}

int64_t CallNs(const TraceModel& m, const ImplicitSyncFinding& f) {
  return m.api.end_ns[f.api] - m.api.start_ns[f.api];
}

// Indices of the `limit` findings with the largest key, largest first.
template <typename T, typename Key>
std::vector<size_t> WorstIndices(const std::vector<T>& v, size_t limit, Key key) {
  std::vector<size_t> idx(v.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  limit = std::min(limit, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(limit), idx.end(), [&](size_t a, size_t b) {
    auto ka = key(v[a]), kb = key(v[b]);
    return ka != kb ? ka > kb : a < b;
  });
  idx.resize(limit);
  return idx;
}

size_t ListedLimit(const HiddenSyncResult& r) { return static_cast<size_t>(std::max(r.options.max_listed, 0)); }

}  // namespace

nlohmann::json HiddenSyncToJson(const HiddenSyncResult& r, const TraceModel& m) {
  nlohmann::json j;
  j["analysis"] = "hidden_sync";
  j["window"] = {{"label", WindowLabel(r.window)},
                 {"start_ns", r.window.start_ns},
                 {"end_ns", r.window.end_ns},
                 {"length_ns", r.window.length()}};
  const HiddenSyncOptions& o = r.options;
  j["options"] = {{"serialization_tolerance_ns", o.serialization_tolerance_ns},
                  {"drain_tolerance_ns", o.drain_tolerance_ns},
                  {"long_call_ns", o.long_call_ns},
                  {"long_call_median_factor", o.long_call_median_factor},
                  {"pageable_hold_fraction", o.pageable_hold_fraction},
                  {"max_listed", o.max_listed}};
  nlohmann::json ser;
  for (int d = 0; d < 2; ++d) {
    std::string name = std::string(SerializationDirectionName(static_cast<SerializationDirection>(d)));
    ser["count"][name] = r.serialization_count[d];
    ser["delay_ns"][name] = r.serialization_delay_ns[d];
  }
  ser["worst"] = nlohmann::json::array();
  for (size_t i :
       WorstIndices(r.serialization, ListedLimit(r), [](const SerializationFinding& f) { return f.delay_ns; })) {
    const SerializationFinding& f = r.serialization[i];
    ser["worst"].push_back({{"direction", std::string(SerializationDirectionName(f.direction))},
                            {"delayed_op", SyncOpJson(m, f.delayed_op)},
                            {"waited_op", SyncOpJson(m, f.waited_op)},
                            {"ready_ns", f.ready_ns},
                            {"delay_ns", f.delay_ns}});
  }
  j["serialization"] = std::move(ser);

  nlohmann::json imp;
  imp["totals"] = nlohmann::json::array();
  for (const ImplicitSyncTotal& t : r.implicit_totals) {
    imp["totals"].push_back({{"name", std::string(DisplayName(m.strings, t.name))},
                             {"kind", std::string(ImplicitSyncKindName(t.kind))},
                             {"calls", t.calls},
                             {"observed_calls", t.observed_calls},
                             {"call_ns", t.call_ns},
                             {"waited_ns", t.waited_ns},
                             {"idle_account_ns", t.idle_account_ns}});
  }
  imp["worst"] = nlohmann::json::array();
  for (size_t i : WorstIndices(r.implicit_calls, ListedLimit(r), [&](const ImplicitSyncFinding& f) {
         return std::make_pair(f.observed, CallNs(m, f));
       })) {
    const ImplicitSyncFinding& f = r.implicit_calls[i];
    imp["worst"].push_back({{"api", ApiJson(m, f.api)},
                            {"kind", std::string(ImplicitSyncKindName(f.kind))},
                            {"observed", f.observed},
                            {"own_op", SyncOpJson(m, f.own_op)},
                            {"waited_for_op", SyncOpJson(m, f.waited_for_op)},
                            {"waited_ns", f.waited_ns},
                            {"drained_ops", f.drained_ops},
                            {"idle_account_ns", f.idle_account_ns}});
  }
  imp["idle_account_ns"] = r.implicit_idle_account_ns;
  j["implicit_sync"] = std::move(imp);
  j["idle_account"] = r.idle_account;

  nlohmann::json ex;
  ex["host_ns"] = r.explicit_host_ns;
  ex["gpu_idle_ns"] = r.explicit_gpu_idle_ns;
  ex["gpu_idle_share"] = ShareOf(r.explicit_gpu_idle_ns, r.explicit_host_ns);
  ex["idle_account_ns"] = r.explicit_idle_account_ns;
  ex["totals"] = nlohmann::json::array();
  for (const ExplicitSyncTotal& t : r.explicit_totals) {
    ex["totals"].push_back({{"kind", std::string(SyncKindName(t.kind))},
                            {"count", t.count},
                            {"host_ns", t.host_ns},
                            {"gpu_idle_ns", t.gpu_idle_ns},
                            {"gpu_idle_share", ShareOf(t.gpu_idle_ns, t.host_ns)},
                            {"idle_account_ns", t.idle_account_ns}});
  }
  ex["worst"] = nlohmann::json::array();
  for (const ExplicitSyncFinding& f : r.explicit_syncs) {
    ex["worst"].push_back(
        {{"kind", std::string(SyncKindName(f.kind))},
         {"sync_id", f.sync >= 0 ? nlohmann::json(m.syncs[f.sync].source_id) : nlohmann::json(nullptr)},
         {"api", ApiJson(m, f.api)},
         {"tid", f.tid},
         {"stream_id", StreamIdJson(m, f.stream)},
         {"device_id", f.device_id >= 0 ? nlohmann::json(f.device_id) : nlohmann::json(nullptr)},
         {"start_ns", f.start_ns},
         {"end_ns", f.end_ns},
         {"host_ns", f.length()},
         {"gpu_idle_ns", f.gpu_idle_ns},
         {"idle_account_ns", f.idle_account_ns}});
  }
  j["explicit_sync"] = std::move(ex);
  return j;
}

void RenderHiddenSyncText(const HiddenSyncResult& r, const TraceModel& m, std::ostream& out) {
  int64_t w0 = r.window.start_ns;
  auto at = [&](int64_t t) { return "+" + FormatDuration(t - w0); };
  out << "Hidden synchronization — window '" << WindowLabel(r.window) << "', " << FormatDuration(r.window.length())
      << "\n";

  // (a)
  int64_t b2l = r.serialization_count[0], l2b = r.serialization_count[1];
  if (b2l + l2b == 0) {
    out << "  Legacy default stream: no op was held back by default-stream serialization.\n";
  } else {
    out << "  Legacy default stream: " << b2l << " op(s) on blocking streams waited for "
        << "legacy-stream ops (" << FormatDuration(r.serialization_delay_ns[0]) << " of delay), and " << l2b
        << " legacy-stream op(s) waited for blocking-stream work (" << FormatDuration(r.serialization_delay_ns[1])
        << ").\n";
    for (size_t i :
         WorstIndices(r.serialization, ListedLimit(r), [](const SerializationFinding& f) { return f.delay_ns; })) {
      const SerializationFinding& f = r.serialization[i];
      out << "    " << OpText(m, f.delayed_op) << " was ready at " << at(f.ready_ns) << " but started at "
          << at(m.ops.start_ns[f.delayed_op]) << ", right after " << OpText(m, f.waited_op)
          << " ended: " << FormatDuration(f.delay_ns) << " delay.\n";
    }
  }

  // (b)
  if (r.implicit_totals.empty()) {
    out << "  Implicitly synchronizing calls: none found.\n";
  } else {
    out << "  Implicitly synchronizing calls:\n";
    for (const ImplicitSyncTotal& t : r.implicit_totals) {
      out << "    " << DisplayName(m.strings, t.name) << " (" << ImplicitSyncKindName(t.kind) << "): " << t.calls
          << " call(s), " << t.observed_calls
          << (t.kind == ImplicitSyncKind::kPageableAsyncMemcpy ? " observed holding the host for their copy; "
                                                               : " observed holding the host while GPU work drained; ")
          << FormatDuration(t.call_ns) << " in the calls, " << FormatDuration(t.waited_ns) << " of it waiting"
          << IdleAccountText(r, t.idle_account_ns) << ".\n";
    }
    for (size_t i : WorstIndices(r.implicit_calls, ListedLimit(r), [&](const ImplicitSyncFinding& f) {
           return std::make_pair(f.observed, CallNs(m, f));
         })) {
      const ImplicitSyncFinding& f = r.implicit_calls[i];
      out << "    " << CallRef(m, f.api) << " at " << at(m.api.start_ns[f.api]) << " took "
          << FormatDuration(CallNs(m, f));
      if (f.kind == ImplicitSyncKind::kPageableAsyncMemcpy) {
        out << ", copying " << OpText(m, f.own_op) << " " << MemoryKindName(m.ops.src_kind[f.own_op]) << "->"
            << MemoryKindName(m.ops.dst_kind[f.own_op]) << " ("
            << FormatDuration(m.ops.end_ns[f.own_op] - m.ops.start_ns[f.own_op]) << ")"
            << (f.observed ? ": the host was held for the copy" : "");
      }
      if (f.waited_for_op >= 0) {
        out << "; waited " << FormatDuration(f.waited_ns) << " until " << OpText(m, f.waited_for_op) << " finished";
        if (f.drained_ops > 1) out << " (" << f.drained_ops << " ops drained)";
      } else if (f.kind != ImplicitSyncKind::kPageableAsyncMemcpy) {
        out << "; no earlier GPU work was pending";
      }
      out << IdleAccountText(r, f.idle_account_ns, "it") << ".\n";
    }
  }

  // (c)
  if (r.explicit_totals.empty()) {
    out << "  Explicit syncs: none.\n";
    return;
  }
  out << "  Explicit syncs blocked host threads for " << FormatDuration(r.explicit_host_ns) << "; the GPU was idle for "
      << FormatDuration(r.explicit_gpu_idle_ns) << " ("
      << FormatWholePercent(ShareOf(r.explicit_gpu_idle_ns, r.explicit_host_ns)) << ") of it"
      << IdleAccountText(r, r.explicit_idle_account_ns) << ".\n";
  for (const ExplicitSyncTotal& t : r.explicit_totals) {
    out << "    " << SyncKindName(t.kind) << ": " << t.count << " call(s), " << FormatDuration(t.host_ns)
        << " blocked, GPU idle " << FormatDuration(t.gpu_idle_ns) << " ("
        << FormatWholePercent(ShareOf(t.gpu_idle_ns, t.host_ns)) << ")" << IdleAccountText(r, t.idle_account_ns)
        << ".\n";
  }
  for (const ExplicitSyncFinding& f : r.explicit_syncs) {
    out << "    ";
    if (f.sync >= 0) out << "sync " << m.syncs[f.sync].source_id << " ";
    out << SyncKindName(f.kind);
    if (f.api >= 0) {
      out << " by " << CallRef(m, f.api);
    } else {
      out << " on thread " << f.tid;
    }
    out << " at " << at(f.start_ns) << ": " << FormatDuration(f.length()) << " blocked";
    if (std::optional<int64_t> sid = StreamSourceIdOrNull(m, f.stream)) out << " on stream " << *sid;
    out << ", GPU " << (f.device_id >= 0 ? std::to_string(f.device_id) : std::string("(all)")) << " idle "
        << FormatDuration(f.gpu_idle_ns) << IdleAccountText(r, f.idle_account_ns, "it") << ".\n";
  }
}

std::vector<ResultTable> HiddenSyncToTables(const HiddenSyncResult& r, const TraceModel& m) {
  auto op_table = [&](int32_t op) {
    return op >= 0 ? ResultValue(std::string(OpTable(m.ops.category[op]))) : ResultValue();
  };
  auto op_id = [&](int32_t op) { return op >= 0 ? ResultValue(m.ops.source_id[op]) : ResultValue(); };
  ResultTable summary;
  summary.name = "analysis_hidden_sync";
  summary.columns = {"window",   "section", "name",      "kind",        "count",
                     "observed", "ns",      "waited_ns", "gpu_idle_ns", "idle_account_ns"};
  for (int d = 0; d < 2; ++d) {
    std::string name = std::string(SerializationDirectionName(static_cast<SerializationDirection>(d)));
    summary.rows.push_back({WindowLabel(r.window), std::string("serialization"), name, name, r.serialization_count[d],
                            r.serialization_count[d], r.serialization_delay_ns[d], ResultValue(), ResultValue(),
                            ResultValue()});
  }
  for (const ImplicitSyncTotal& t : r.implicit_totals) {
    summary.rows.push_back({WindowLabel(r.window), std::string("implicit"), std::string(DisplayName(m.strings, t.name)),
                            std::string(ImplicitSyncKindName(t.kind)), t.calls, t.observed_calls, t.call_ns,
                            t.waited_ns, ResultValue(), IdleAccountCell(r, t.idle_account_ns)});
  }
  for (const ExplicitSyncTotal& t : r.explicit_totals) {
    summary.rows.push_back({WindowLabel(r.window), std::string("explicit"), std::string(SyncKindName(t.kind)),
                            std::string(SyncKindName(t.kind)), t.count, t.count, t.host_ns, ResultValue(),
                            t.gpu_idle_ns, IdleAccountCell(r, t.idle_account_ns)});
  }

  ResultTable ser;
  ser.name = "analysis_hidden_sync_serialization";
  ser.columns = {"window",           "direction", "device_id", "delayed_op_table", "delayed_op_id", "delayed_stream_id",
                 "delayed_start_ns", "ready_ns",  "delay_ns",  "waited_op_table",  "waited_op_id",  "waited_stream_id",
                 "waited_end_ns"};
  for (const SerializationFinding& f : r.serialization) {
    ser.rows.push_back({WindowLabel(r.window), std::string(SerializationDirectionName(f.direction)),
                        int64_t{m.ops.device_id[f.delayed_op]}, op_table(f.delayed_op), op_id(f.delayed_op),
                        StreamIdCell(m, m.ops.stream[f.delayed_op]), m.ops.start_ns[f.delayed_op], f.ready_ns,
                        f.delay_ns, op_table(f.waited_op), op_id(f.waited_op),
                        StreamIdCell(m, m.ops.stream[f.waited_op]), m.ops.end_ns[f.waited_op]});
  }

  ResultTable calls;
  calls.name = "analysis_hidden_sync_calls";
  calls.columns = {
      "window",           "api_id",      "name",        "kind",           "tid",       "start_ns",
      "end_ns",           "duration_ns", "observed",    "own_op_table",   "own_op_id", "waited_for_op_table",
      "waited_for_op_id", "waited_ns",   "drained_ops", "idle_account_ns"};
  for (const ImplicitSyncFinding& f : r.implicit_calls) {
    calls.rows.push_back(
        {WindowLabel(r.window), m.api.source_id[f.api], std::string(DisplayName(m.strings, m.api.name[f.api])),
         std::string(ImplicitSyncKindName(f.kind)), m.api.tid[f.api], m.api.start_ns[f.api], m.api.end_ns[f.api],
         CallNs(m, f), int64_t{f.observed ? 1 : 0}, op_table(f.own_op), op_id(f.own_op), op_table(f.waited_for_op),
         op_id(f.waited_for_op), f.waited_ns, f.drained_ops, IdleAccountCell(r, f.idle_account_ns)});
  }
  return {std::move(summary), std::move(ser), std::move(calls)};
}

}  // namespace streamscope
