#include "analyzer/render/overlap_render.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {
namespace {

std::string Phrase(OpCategory c) {
  switch (c) {
    case OpCategory::kKernel: return "compute";
    case OpCategory::kMemset: return "memsets";
    case OpCategory::kOtherCopy: return "other copies";
    default: return std::string(OpCategoryName(c)) + " copies";
  }
}

// Indices of the `top` longest intervals of one pair, longest first.
std::vector<size_t> LongestIntervals(const DeviceOverlap& d, int pair, int top) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < d.intervals.size(); ++i) {
    if (d.intervals[i].pair == pair) idx.push_back(i);
  }
  auto longer = [&](size_t a, size_t b) {
    if (d.intervals[a].length() != d.intervals[b].length()) {
      return d.intervals[a].length() > d.intervals[b].length();
    }
    return a < b;
  };
  size_t k = std::min<size_t>(idx.size(), static_cast<size_t>(std::max(top, 0)));
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), longer);
  idx.resize(k);
  return idx;
}

std::string StreamLabel(const TraceModel& model, int32_t stream) {
  std::optional<int64_t> id = StreamSourceIdOrNull(model, stream);
  return id ? absl::StrCat("stream ", *id) : std::string("no stream");
}

}  // namespace

std::string OverlapSentence(const PairOverlap& p) {
  OverlapPairKind k = OverlapPairAt(p.pair);
  if (p.pair == kComputeComputePair) {
    if (p.overlapped_ns == 0) return "Kernels on different streams never ran at the same time.";
    return absl::StrCat("Kernels on different streams ran at the same time for ", FormatDuration(p.overlapped_ns), " (",
                        FormatShare(p.hidden_share), " of the ", FormatDuration(p.possible_ns), " of compute time).");
  }
  // Name the copy first and compute second: "H2D copies overlapped compute".
  OpCategory first = k.a == OpCategory::kKernel ? k.b : k.a;
  OpCategory second = k.a == OpCategory::kKernel ? k.a : k.b;
  if (p.overlapped_ns == 0) {
    return absl::StrCat(Phrase(first), " never overlapped ", Phrase(second), " (", FormatDuration(p.possible_ns),
                        " possible).");
  }
  return absl::StrCat(Phrase(first), " overlapped ", Phrase(second), " for ", FormatDuration(p.overlapped_ns), " of ",
                      FormatDuration(p.possible_ns), " possible (", FormatShare(p.hidden_share), ").");
}

nlohmann::json OverlapToJson(const OverlapResult& result, const TraceModel& model, const RenderOptions& options) {
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceOverlap& d : result.devices) {
    nlohmann::json categories = nlohmann::json::object();
    for (int c = 0; c < kNumOpCategories; ++c) {
      if (d.op_count[c] == 0) continue;
      nlohmann::json cj = {{"time_ns", d.category_ns[c]}, {"op_count", d.op_count[c]}};
      if (IsCopy(static_cast<OpCategory>(c))) cj["exposed_ns"] = d.exposed_ns[c];
      categories[std::string(OpCategoryName(static_cast<OpCategory>(c)))] = cj;
    }
    nlohmann::json pairs = nlohmann::json::array();
    for (const PairOverlap& p : d.pairs) {
      OverlapPairKind k = OverlapPairAt(p.pair);
      nlohmann::json sp = nlohmann::json::array();
      for (size_t i = 0; i < p.by_stream_pair.size() && i < static_cast<size_t>(options.top); ++i) {
        const StreamPairTime& s = p.by_stream_pair[i];
        sp.push_back({{"stream_id_a", StreamIdJson(model, s.stream_a)},
                      {"stream_id_b", StreamIdJson(model, s.stream_b)},
                      {"overlapped_ns", s.overlapped_ns}});
      }
      nlohmann::json longest = nlohmann::json::array();
      for (size_t i : LongestIntervals(d, p.pair, options.top)) {
        const OverlapInterval& iv = d.intervals[i];
        nlohmann::json ops = nlohmann::json::array();
        for (uint32_t o = 0; o < iv.ops_kept; ++o) ops.push_back(OpRefJson(model, d.interval_ops[iv.ops_offset + o]));
        longest.push_back({{"interval_id", i},
                           {"start_ns", iv.start_ns},
                           {"end_ns", iv.end_ns},
                           {"length_ns", iv.length()},
                           {"ops_total", iv.ops_total},
                           {"ops", ops}});
      }
      pairs.push_back({{"pair", OverlapPairName(p.pair)},
                       {"category_a", OpCategoryName(k.a)},
                       {"category_b", OpCategoryName(k.b)},
                       {"overlapped_ns", p.overlapped_ns},
                       {"possible_ns", p.possible_ns},
                       {"hidden_share", p.hidden_share},
                       {"interval_count", p.interval_count},
                       {"finding", OverlapSentence(p)},
                       {"stream_pairs", sp},
                       {"stream_pairs_total", p.by_stream_pair.size()},
                       {"longest_intervals", longest}});
    }
    devices.push_back({{"device_id", d.device_id},
                       {"busy_ns", d.busy_ns},
                       {"copy_ns", d.copy_ns},
                       {"exposed_copy_ns", d.exposed_copy_ns},
                       {"categories", categories},
                       {"pairs", pairs},
                       {"intervals_total", d.interval_total}});
  }
  return {{"devices", devices}};
}

void RenderOverlapText(const OverlapResult& result, const TraceModel& model, const RenderOptions& options,
                       std::ostream& out) {
  const int64_t w0 = result.window.start_ns;
  for (const DeviceOverlap& d : result.devices) {
    out << "  Overlap on device " << d.device_id << ":\n";
    if (d.busy_ns == 0) {
      out << "    No GPU operations ran on this device in the window.\n";
      continue;
    }
    out << "    Time by category:";
    bool first = true;
    for (int c = 0; c < kNumOpCategories; ++c) {
      if (d.op_count[c] == 0) continue;
      out << (first ? " " : ", ") << OpCategoryName(static_cast<OpCategory>(c)) << " "
          << FormatDuration(d.category_ns[c]) << " (" << d.op_count[c] << (d.op_count[c] == 1 ? " op)" : " ops)");
      first = false;
    }
    out << ".\n";
    bool any_pair = false;
    for (const PairOverlap& p : d.pairs) {
      if (p.pair == kComputeComputePair && p.overlapped_ns == 0) continue;
      any_pair = true;
      out << "    " << OverlapSentence(p);
      if (p.interval_count > 0)
        out << " " << p.interval_count << (p.interval_count == 1 ? " interval." : " intervals.");
      out << "\n";
      OverlapPairKind k = OverlapPairAt(p.pair);
      for (size_t i = 0; i < p.by_stream_pair.size() && i < 3; ++i) {
        const StreamPairTime& s = p.by_stream_pair[i];
        out << "      " << StreamLabel(model, s.stream_a) << " (" << OpCategoryName(k.a) << ") with "
            << StreamLabel(model, s.stream_b) << " (" << OpCategoryName(k.b) << "): " << FormatDuration(s.overlapped_ns)
            << "\n";
      }
      if (p.by_stream_pair.size() > 3) out << "      ... " << p.by_stream_pair.size() - 3 << " more stream pairs\n";
    }
    if (!any_pair) out << "    Only one kind of operation ran: nothing could overlap.\n";
    if (d.copy_ns > 0) {
      out << "    Exposed copy time (copies running while no kernel ran): " << FormatDuration(d.exposed_copy_ns)
          << " of " << FormatDuration(d.copy_ns) << " copy time (" << FormatShare(d.exposed_copy_ns, d.copy_ns) << ")";
      std::string parts;
      for (int c = 0; c < kNumOpCategories; ++c) {
        if (d.exposed_ns[c] > 0) {
          absl::StrAppend(&parts, parts.empty() ? ": " : ", ", std::string(OpCategoryName(static_cast<OpCategory>(c))),
                          " ", FormatDuration(d.exposed_ns[c]));
        }
      }
      out << parts << ".\n";
    }
    // Longest intervals over all pairs.
    std::vector<size_t> idx(d.intervals.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    size_t k = std::min<size_t>(idx.size(), static_cast<size_t>(std::max(options.top, 0)));
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](size_t a, size_t b) {
      if (d.intervals[a].length() != d.intervals[b].length()) return d.intervals[a].length() > d.intervals[b].length();
      return a < b;
    });
    if (k > 0) out << "    Longest overlap intervals (of " << d.interval_total << "):\n";
    for (size_t r = 0; r < k; ++r) {
      const OverlapInterval& iv = d.intervals[idx[r]];
      out << "      " << r + 1 << ". " << OverlapPairName(iv.pair) << " " << FormatDuration(iv.length()) << " at "
          << FormatOffset(iv.start_ns - w0) << " [" << iv.start_ns << ", " << iv.end_ns << ") ns: ";
      uint32_t shown = std::min<uint32_t>(iv.ops_kept, static_cast<uint32_t>(std::max(options.ops_per_item, 0)));
      for (uint32_t o = 0; o < shown; ++o) {
        out << (o ? "; " : "") << OpLabel(model, d.interval_ops[iv.ops_offset + o]);
      }
      if (iv.ops_total > shown) out << " (+" << iv.ops_total - shown << " more ops)";
      out << "\n";
    }
  }
}

std::vector<ResultTable> OverlapToTables(const OverlapResult& result, const TraceModel& model) {
  ResultTable cat{"analysis_overlap_category", {"device_id", "category", "op_count", "time_ns", "exposed_ns"}, {}};
  ResultTable pairs{"analysis_overlap_pair",
                    {"device_id", "pair", "category_a", "category_b", "overlapped_ns", "possible_ns", "hidden_share",
                     "interval_count"},
                    {}};
  ResultTable streams{
      "analysis_overlap_stream_pair", {"device_id", "pair", "stream_id_a", "stream_id_b", "overlapped_ns"}, {}};
  ResultTable intervals{"analysis_overlap_interval",
                        {"device_id", "interval_id", "pair", "start_ns", "end_ns", "length_ns", "op_count"},
                        {}};
  ResultTable interval_ops{"analysis_overlap_interval_op", {"device_id", "interval_id", "op_table", "op_id"}, {}};
  for (const DeviceOverlap& d : result.devices) {
    int64_t dev = d.device_id;
    for (int c = 0; c < kNumOpCategories; ++c) {
      if (d.op_count[c] == 0) continue;
      OpCategory oc = static_cast<OpCategory>(c);
      cat.rows.push_back({dev, std::string(OpCategoryName(oc)), d.op_count[c], d.category_ns[c],
                          IsCopy(oc) ? ResultValue(d.exposed_ns[c]) : ResultValue()});
    }
    int64_t total_ops = 0, copy_ops = 0;
    for (int c = 0; c < kNumOpCategories; ++c) {
      total_ops += d.op_count[c];
      if (IsCopy(static_cast<OpCategory>(c))) copy_ops += d.op_count[c];
    }
    cat.rows.push_back({dev, std::string("any"), total_ops, d.busy_ns, ResultValue()});
    cat.rows.push_back({dev, std::string("any_copy"), copy_ops, d.copy_ns, d.exposed_copy_ns});
    for (const PairOverlap& p : d.pairs) {
      OverlapPairKind k = OverlapPairAt(p.pair);
      std::string name = OverlapPairName(p.pair);
      pairs.rows.push_back({dev, name, std::string(OpCategoryName(k.a)), std::string(OpCategoryName(k.b)),
                            p.overlapped_ns, p.possible_ns, p.hidden_share, p.interval_count});
      for (const StreamPairTime& s : p.by_stream_pair) {
        streams.rows.push_back(
            {dev, name, StreamIdCell(model, s.stream_a), StreamIdCell(model, s.stream_b), s.overlapped_ns});
      }
    }
    // Intervals and their ops are made on demand: with every op of every
    // interval (tables, --save) a 10M-op trace has tens of millions of rows.
    if (d.intervals.empty()) continue;
    intervals.sources.push_back(
        {{}, [&d, dev](const RowSink& sink) {
           std::vector<ResultValue> row;
           for (size_t i = 0; i < d.intervals.size(); ++i) {
             const OverlapInterval& iv = d.intervals[i];
             row = {dev,         static_cast<int64_t>(i),           OverlapPairName(iv.pair), iv.start_ns, iv.end_ns,
                    iv.length(), static_cast<int64_t>(iv.ops_total)};
             sink(row);
           }
         }});
    interval_ops.sources.push_back({{}, [&d, &model, dev](const RowSink& sink) {
                                      std::vector<ResultValue> row;
                                      for (size_t i = 0; i < d.intervals.size(); ++i) {
                                        const OverlapInterval& iv = d.intervals[i];
                                        for (uint32_t o = 0; o < iv.ops_kept; ++o) {
                                          int32_t op = d.interval_ops[iv.ops_offset + o];
                                          row = {dev, static_cast<int64_t>(i),
                                                 std::string(OpTable(model.ops.category[op])), model.ops.source_id[op]};
                                          sink(row);
                                        }
                                      }
                                    }});
  }
  std::vector<ResultTable> out;
  out.push_back(std::move(cat));
  out.push_back(std::move(pairs));
  out.push_back(std::move(streams));
  out.push_back(std::move(intervals));
  out.push_back(std::move(interval_ops));
  return out;
}

}  // namespace streamscope
