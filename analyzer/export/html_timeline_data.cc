#include "analyzer/export/html_timeline_data.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "analyzer/export/text_escape.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/model/queue_delay.h"
#include "analyzer/render/op_ref.h"

namespace streamscope {
namespace {

constexpr size_t kMaxName = 160;

void AppendColumn(std::string_view key, const std::vector<int64_t>& v, std::string* out) {
  absl::StrAppend(out, ",\"", std::string(key), "\":[");
  for (size_t i = 0; i < v.size(); ++i) absl::StrAppend(out, i ? "," : "", v[i]);
  out->push_back(']');
}

// Starts as deltas from the previous item (the first from the window start).
std::vector<int64_t> Deltas(const std::vector<int64_t>& starts, int64_t origin) {
  std::vector<int64_t> d(starts.size());
  for (size_t i = 0; i < starts.size(); ++i) d[i] = starts[i] - (i ? starts[i - 1] : origin);
  return d;
}

std::string OpDetail(const TraceModel& m, int32_t i) {
  const GpuOps& ops = m.ops;
  OpCategory c = ops.category[i];
  if (c == OpCategory::kKernel) {
    if (m.kernel_shapes.size() != ops.size()) return {};
    const KernelShape& k = m.kernel_shapes[i];
    return absl::StrCat("grid ", k.grid[0], "×", k.grid[1], "×", k.grid[2], ", block ", k.block[0], "×", k.block[1],
                        "×", k.block[2], ", ", k.registers, " regs, ", k.shared_bytes, " B shared");
  }
  std::string t = FormatBytes(ops.bytes[i]);
  if (c != OpCategory::kMemset) {
    absl::StrAppend(&t, " ", std::string(MemoryKindName(ops.src_kind[i])), "→",
                    std::string(MemoryKindName(ops.dst_kind[i])));
  }
  absl::StrAppend(&t, ops.is_async[i] ? ", async" : ", synchronous");
  return t;
}

std::string ThreadTitle(const TraceModel& m, int64_t tid) {
  std::string label = absl::StrCat("thread ", tid);
  if (auto n = m.thread_names.find(tid); n != m.thread_names.end() && !n->second.empty()) {
    absl::StrAppend(&label, " (", n->second, ")");
  }
  return label;
}

}  // namespace

std::vector<ApiLanes> ApiCallLanes(const TraceModel& model, const Window& window, int max_depth) {
  std::map<int64_t, std::vector<int32_t>> by_tid;
  const ApiCalls& api = model.api;
  for (size_t i = 0; i < api.size(); ++i) {
    if (InWindow(api.start_ns[i], api.end_ns[i], window)) by_tid[api.tid[i]].push_back(static_cast<int32_t>(i));
  }
  std::vector<ApiLanes> out;
  for (auto& [tid, calls] : by_tid) {
    // Enclosing calls first: by start, then the longer one.
    std::stable_sort(calls.begin(), calls.end(), [&](int32_t a, int32_t b) {
      return api.start_ns[a] != api.start_ns[b] ? api.start_ns[a] < api.start_ns[b] : api.end_ns[a] > api.end_ns[b];
    });
    ApiLanes t;
    t.tid = tid;
    std::vector<int64_t> open_ends;
    for (int32_t c : calls) {
      while (!open_ends.empty() && open_ends.back() <= api.start_ns[c]) open_ends.pop_back();
      size_t depth = std::min<size_t>(open_ends.size(), static_cast<size_t>(std::max(0, max_depth - 1)));
      if (t.lanes.size() <= depth) t.lanes.resize(depth + 1);
      t.lanes[depth].push_back(c);
      open_ends.push_back(std::max(api.start_ns[c], api.end_ns[c]));
    }
    out.push_back(std::move(t));
  }
  return out;
}

int TimelineData::Str(std::string s) {
  auto [it, added] = str_index_.try_emplace(s, static_cast<int>(strs_.size()));
  if (added) strs_.push_back(std::move(s));
  return it->second;
}

void TimelineData::AddOpRow(const TraceModel& m, const Window& w, const StreamBlocks& sb, int lane, double y,
                            double h) {
  const GpuOps& ops = m.ops;
  KernelNames names(m);
  std::vector<int64_t> s, d, c, n, id, r, b, x, g, a, an, q;
  for (const DrawBlock& blk : sb.blocks) {
    if (blk.lane != lane) continue;
    s.push_back(blk.start_ns);
    d.push_back(blk.end_ns - blk.start_ns);
    if (blk.count == 1) {
      int32_t i = blk.op;
      c.push_back(static_cast<int>(ops.category[i]));
      n.push_back(Str(TruncatedUtf8(OpDisplayName(m, i, names), kMaxName)));
      id.push_back(ops.source_id[i]);
      r.push_back(ops.correlation_id[i]);
      b.push_back(0);
      std::string detail = OpDetail(m, i);
      x.push_back(detail.empty() ? -1 : Str(std::move(detail)));
      g.push_back(ops.graph_id[i]);
      int32_t api = m.ApiForOp(i);
      a.push_back(api >= 0 ? m.api.source_id[api] : -1);
      an.push_back(
          api >= 0 ? Str(absl::StrCat(std::string(m.strings.Get(m.api.name[api])), " (thread ", m.api.tid[api], ")"))
                   : -1);
      q.push_back(api < 0 || StartedDuringCall(ops.start_ns[i], m.api.end_ns[api])
                      ? -1
                      : QueueDelayNs(ops.start_ns[i], m.api.end_ns[api]));
    } else {
      c.push_back(static_cast<int>(blk.dominant()));
      n.push_back(-1);
      id.push_back(blk.count);
      r.push_back(-1);
      b.push_back(blk.busy_ns);
      std::string counts;
      for (int k = 0; k < kNumOpCategories; ++k) {
        if (blk.by_category[k] > 0) {
          absl::StrAppend(&counts, counts.empty() ? "" : "\n", blk.by_category[k], " ",
                          std::string(OpCategoryName(static_cast<OpCategory>(k))));
        }
      }
      x.push_back(Str(std::move(counts)));
      g.push_back(-1);
      a.push_back(-1);
      an.push_back(-1);
      q.push_back(-1);
    }
  }
  std::string label = StreamLabel(m, sb.stream);
  if (lane > 0) absl::StrAppend(&label, " overflow ", lane);
  absl::StrAppend(&label, ", device ", m.streams[sb.stream].device_id);
  AppendRow("op", y, h, label, absl::StrCat(",\"sid\":", StreamSourceId(m, sb.stream)), w.start_ns, s,
            {{"d", &d},
             {"c", &c},
             {"n", &n},
             {"i", &id},
             {"r", &r},
             {"b", &b},
             {"x", &x},
             {"g", &g},
             {"a", &a},
             {"an", &an},
             {"q", &q}});
}

void TimelineData::AddApiRow(const TraceModel& m, const Window& w, int64_t tid, const std::vector<int32_t>& calls,
                             int64_t resolution_ns, double y, double h) {
  const ApiCalls& api = m.api;
  if (sync_model_ != &m) {  // the synchronizing calls, once per model
    sync_model_ = &m;
    sync_corr_.clear();
    for (const SyncRecord& sr : m.syncs) sync_corr_.insert(sr.correlation_id);
  }
  // Short calls merge into the previous short-call block while it spans at
  // most one resolution step (as op_downsampler.h merges ops).
  struct Item {
    int64_t start, end, count, busy;
    int32_t call;
    bool small;
  };
  std::vector<Item> items;
  for (int32_t k : calls) {
    int64_t st = api.start_ns[k], en = std::max(st, api.end_ns[k]);
    bool small = resolution_ns > 0 && en - st < resolution_ns;
    if (small && !items.empty() && items.back().small && st - items.back().end < resolution_ns &&
        en - items.back().start <= resolution_ns) {
      Item& it = items.back();
      it.end = std::max(it.end, en);
      ++it.count;
      it.busy += en - st;
      continue;
    }
    items.push_back({st, en, 1, en - st, k, small});
  }
  std::vector<int64_t> s, d, c, n, id, r, b, dom;
  for (const Item& it : items) {
    s.push_back(it.start);
    d.push_back(it.end - it.start);
    c.push_back(sync_corr_.contains(api.correlation_id[it.call]) ? 1 : 0);
    dom.push_back(static_cast<int>(api.domain[it.call]));
    bool one = it.count == 1;
    n.push_back(one ? Str(TruncatedUtf8(m.strings.Get(api.name[it.call]), kMaxName)) : -1);
    id.push_back(one ? api.source_id[it.call] : it.count);
    r.push_back(one ? api.correlation_id[it.call] : -1);
    b.push_back(one ? 0 : it.busy);
  }
  AppendRow("api", y, h, ThreadTitle(m, tid), absl::StrCat(",\"tid\":", tid), w.start_ns, s,
            {{"d", &d}, {"c", &c}, {"n", &n}, {"i", &id}, {"r", &r}, {"b", &b}, {"m", &dom}});
}

void TimelineData::AddSliceRow(const Window& w, std::string_view label, std::vector<DataSlice> slices, double y,
                               double h) {
  std::stable_sort(slices.begin(), slices.end(),
                   [](const DataSlice& a, const DataSlice& b) { return a.start_ns < b.start_ns; });
  std::vector<int64_t> s, d, c, t;
  for (DataSlice& sl : slices) {
    s.push_back(sl.start_ns);
    d.push_back(std::max<int64_t>(0, sl.end_ns - sl.start_ns));
    c.push_back(Str(std::move(sl.cls)));
    t.push_back(Str(std::move(sl.title)));
  }
  AppendRow("sl", y, h, label, "", w.start_ns, s, {{"d", &d}, {"c", &c}, {"t", &t}});
}

void TimelineData::AppendRow(std::string_view kind, double y, double h, std::string_view label, std::string_view extra,
                             int64_t window_start, const std::vector<int64_t>& starts,
                             std::initializer_list<std::pair<std::string_view, const std::vector<int64_t>*>> columns) {
  absl::StrAppend(&rows_json_, rows_ ? ",\n" : "", "{\"k\":\"", std::string(kind), "\",\"y\":", y, ",\"h\":", h,
                  ",\"l\":");
  AppendJsonString(label, &rows_json_);
  rows_json_.append(extra);
  items_ += static_cast<int64_t>(starts.size());
  AppendColumn("s", Deltas(starts, window_start), &rows_json_);
  for (const auto& [key, values] : columns) AppendColumn(key, *values, &rows_json_);
  rows_json_.push_back('}');
  ++rows_;
}

std::string TimelineData::Finish() {
  std::string out = "{\"strs\":[";
  for (size_t i = 0; i < strs_.size(); ++i) {
    if (i) out.push_back(',');
    AppendJsonString(strs_[i], &out);
  }
  out.append("],\"cats\":[");
  for (int c = 0; c < kNumOpCategories; ++c) {
    absl::StrAppend(&out, c ? "," : "", "\"", std::string(OpCategoryName(static_cast<OpCategory>(c))), "\"");
  }
  out.append("],\"kinds\":[");
  for (int c = 0; c < kNumOpCategories; ++c) {
    absl::StrAppend(&out, c ? "," : "", "\"", std::string(OpKind(static_cast<OpCategory>(c))), "\"");
  }
  absl::StrAppend(&out, "],\"rows\":[\n", rows_json_, "]}");
  rows_json_.clear();
  return out;
}

}  // namespace streamscope
