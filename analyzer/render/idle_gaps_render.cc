#include "analyzer/render/idle_gaps_render.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {
namespace {

// The `top` longest gaps, longest first (ties: earlier first).
std::vector<const Gap*> WorstGaps(const std::vector<Gap>& gaps, int top) {
  std::vector<const Gap*> v;
  v.reserve(gaps.size());
  for (const Gap& g : gaps) v.push_back(&g);
  size_t k = std::min<size_t>(v.size(), static_cast<size_t>(std::max(top, 0)));
  std::partial_sort(v.begin(), v.begin() + k, v.end(), [](const Gap* a, const Gap* b) {
    if (a->length() != b->length()) return a->length() > b->length();
    return a->start_ns < b->start_ns;
  });
  v.resize(k);
  return v;
}

nlohmann::json GapJson(const TraceModel& model, const Gap& g) {
  return {{"start_ns", g.start_ns},
          {"end_ns", g.end_ns},
          {"length_ns", g.length()},
          {"prev_op", g.op_before >= 0 ? OpRefJson(model, g.op_before) : nlohmann::json()},
          {"next_op", g.op_after >= 0 ? OpRefJson(model, g.op_after) : nlohmann::json()}};
}

std::string GapText(const TraceModel& model, const Gap& g, int64_t w0) {
  std::string s = absl::StrCat(FormatDuration(g.length()), " at ", FormatOffset(g.start_ns - w0), " [", g.start_ns,
                               ", ", g.end_ns, ") ns: ");
  absl::StrAppend(&s, g.op_before >= 0 ? absl::StrCat("after ", OpLabel(model, g.op_before)) : "from the window start");
  absl::StrAppend(&s, g.op_after >= 0 ? absl::StrCat(", before ", OpLabel(model, g.op_after)) : ", to the window end");
  return s;
}

}  // namespace

nlohmann::json IdleGapsToJson(const IdleGapsResult& result, const TraceModel& model, const RenderOptions& options) {
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceGaps& d : result.devices) {
    nlohmann::json worst = nlohmann::json::array();
    for (const Gap* g : WorstGaps(d.gaps, options.top)) worst.push_back(GapJson(model, *g));
    devices.push_back({{"device_id", d.device_id},
                       {"window_ns", d.window_ns},
                       {"busy_ns", d.busy_ns},
                       {"idle_ns", d.idle_ns},
                       {"op_count", d.op_count},
                       {"gap_count", d.gap_count},
                       {"listed_gap_count", d.listed_count},
                       {"listed_gap_ns", d.listed_ns},
                       {"worst_gaps", worst}});
  }
  nlohmann::json streams = nlohmann::json::array();
  for (const StreamGaps& s : result.streams) {
    nlohmann::json worst = nlohmann::json::array();
    for (const Gap* g : WorstGaps(s.gaps, options.top)) worst.push_back(GapJson(model, *g));
    std::optional<int64_t> sid = StreamSourceIdOrNull(model, s.stream);
    streams.push_back({{"stream_id", sid ? nlohmann::json(*sid) : nlohmann::json(nullptr)},
                       {"device_id", s.device_id},
                       {"stream_kind", StreamKindName(model.streams[s.stream].kind)},
                       {"op_count", s.op_count},
                       {"busy_ns", s.busy_ns},
                       {"idle_ns", s.idle_ns},
                       {"gap_count", s.gap_count},
                       {"between_ops_ns", s.between_ops_ns},
                       {"listed_gap_count", s.listed_count},
                       {"listed_gap_ns", s.listed_ns},
                       {"longest_gap", s.gap_count > 0 ? GapJson(model, s.longest) : nlohmann::json()},
                       {"worst_gaps", worst}});
  }
  return {{"threshold_ns", result.threshold_ns}, {"devices", devices}, {"streams", streams}};
}

void RenderIdleGapsText(const IdleGapsResult& result, const TraceModel& model, const RenderOptions& options,
                        std::ostream& out) {
  const int64_t w0 = result.window.start_ns;
  for (const DeviceGaps& d : result.devices) {
    out << "  Idle gaps on device " << d.device_id << ":\n";
    if (d.op_count == 0) {
      out << "    The device was idle for the whole window (" << FormatDuration(d.window_ns) << ").\n";
      continue;
    }
    out << "    The GPU was idle " << FormatDuration(d.idle_ns) << " of " << FormatDuration(d.window_ns) << " ("
        << FormatShare(d.idle_ns, d.window_ns) << ") in " << d.gap_count << (d.gap_count == 1 ? " gap" : " gaps")
        << "; " << d.listed_count << (d.listed_count == 1 ? " gap" : " gaps") << " of at least "
        << FormatDuration(result.threshold_ns) << " add up to " << FormatDuration(d.listed_ns) << ".\n";
    std::vector<const Gap*> worst = WorstGaps(d.gaps, options.top);
    if (!worst.empty()) out << "    Longest gaps:\n";
    for (size_t i = 0; i < worst.size(); ++i) {
      out << "      " << i + 1 << ". " << GapText(model, *worst[i], w0) << "\n";
    }
    bool header = false;
    for (const StreamGaps& s : result.streams) {
      if (s.device_id != d.device_id) continue;
      if (!header) {
        out << "    Streams:\n";
        header = true;
      }
      std::optional<int64_t> sid = StreamSourceIdOrNull(model, s.stream);
      out << "      " << (sid ? absl::StrCat("stream ", *sid) : std::string("no stream")) << " ("
          << StreamKindName(model.streams[s.stream].kind) << "): " << s.op_count
          << (s.op_count == 1 ? " op, busy " : " ops, busy ") << FormatDuration(s.busy_ns) << " ("
          << FormatShare(s.busy_ns, result.window.length()) << ")";
      if (s.gap_count > 0) {
        out << ", " << FormatDuration(s.between_ops_ns) << " idle between its ops in " << s.gap_count
            << (s.gap_count == 1 ? " gap" : " gaps") << ", longest " << FormatDuration(s.longest.length()) << " at "
            << FormatOffset(s.longest.start_ns - w0);
      }
      out << ".\n";
    }
  }
}

std::vector<ResultTable> IdleGapsToTables(const IdleGapsResult& result, const TraceModel& model) {
  ResultTable dev{"analysis_idle_device",
                  {"device_id", "window_ns", "busy_ns", "idle_ns", "op_count", "gap_count", "listed_gap_count",
                   "listed_gap_ns", "threshold_ns"},
                  {}};
  ResultTable str{"analysis_idle_stream",
                  {"device_id", "stream_id", "stream_kind", "op_count", "busy_ns", "idle_ns", "gap_count",
                   "between_ops_ns", "listed_gap_count", "listed_gap_ns", "longest_gap_ns"},
                  {}};
  ResultTable gaps{"analysis_idle_gap",
                   {"device_id", "stream_id", "start_ns", "end_ns", "length_ns", "prev_op_table", "prev_op_id",
                    "next_op_table", "next_op_id"},
                   {}};
  auto op_cols = [&](int32_t op, std::vector<ResultValue>* row) {
    if (op < 0) {
      row->resize(row->size() + 2);  // two NULLs (in place: no moved-from temporaries)
    } else {
      // In place: GCC 12 warns (falsely) on moving a temporary variant.
      row->emplace_back(std::in_place_type<std::string>, OpTable(model.ops.category[op]));
      row->emplace_back(std::in_place_type<int64_t>, model.ops.source_id[op]);
    }
  };
  auto add_gap = [&](int64_t device, ResultValue stream, const Gap& g) {
    std::vector<ResultValue> row;
    row.reserve(9);  // never reallocates: GCC 12 warns (falsely) on moving variants in a reallocation
    for (ResultValue v : {ResultValue(device), std::move(stream), ResultValue(g.start_ns), ResultValue(g.end_ns),
                          ResultValue(g.length())}) {
      row.push_back(std::move(v));
    }
    op_cols(g.op_before, &row);
    op_cols(g.op_after, &row);
    gaps.rows.push_back(std::move(row));
  };
  for (const DeviceGaps& d : result.devices) {
    int64_t id = d.device_id;
    dev.rows.push_back({id, d.window_ns, d.busy_ns, d.idle_ns, d.op_count, d.gap_count, d.listed_count, d.listed_ns,
                        result.threshold_ns});
    for (const Gap& g : d.gaps) add_gap(id, ResultValue(), g);
  }
  for (const StreamGaps& s : result.streams) {
    int64_t id = s.device_id;
    std::optional<int64_t> source_id = StreamSourceIdOrNull(model, s.stream);
    ResultValue sid = source_id ? ResultValue(*source_id) : ResultValue();
    str.rows.push_back({id, sid, std::string(StreamKindName(model.streams[s.stream].kind)), s.op_count, s.busy_ns,
                        s.idle_ns, s.gap_count, s.between_ops_ns, s.listed_count, s.listed_ns, s.longest.length()});
    for (const Gap& g : s.gaps) add_gap(id, sid, g);
  }
  std::vector<ResultTable> out;
  out.push_back(std::move(dev));
  out.push_back(std::move(str));
  out.push_back(std::move(gaps));
  return out;
}

}  // namespace streamscope
