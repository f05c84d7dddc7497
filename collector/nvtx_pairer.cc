#include "collector/nvtx_pairer.h"

#include <algorithm>
#include <utility>

namespace streamscope::collector {

void NvtxPairer::MarkStartEnd(const NvtxStartEndRecord& r) {
  std::vector<NvtxStartEndRecord>& calls = start_end_calls_[r.tid];
  if (calls.size() >= 4096) calls.erase(calls.begin());  // bounded
  calls.push_back(r);
}

bool NvtxPairer::IsStartEnd(const MarkerRecord& m) {
  auto it = start_end_calls_.find(m.tid);
  if (it == start_end_calls_.end()) return false;
  std::vector<NvtxStartEndRecord>& calls = it->second;
  for (size_t i = 0; i < calls.size(); ++i) {
    const NvtxStartEndRecord& c = calls[i];
    if (c.id == m.id || (c.call_start_ns <= m.ts_ns && m.ts_ns <= c.call_end_ns)) {
      // Calls before this one on the thread can no longer match a START.
      calls.erase(calls.begin(), calls.begin() + static_cast<long>(i) + 1);
      ++start_end_matched_;
      return true;
    }
  }
  return false;
}

void NvtxPairer::AddData(const MarkerDataRecord& data) {
  auto it = open_.find(data.id);
  if (it != open_.end()) {
    it->second.range.color = data.color;
    it->second.range.category = data.category;
    return;
  }
  data_[data.id] = data;
}

void NvtxPairer::Complete(NvtxRange range, std::vector<NvtxRange>* ranges) { ranges->push_back(std::move(range)); }

void NvtxPairer::Add(const MarkerRecord& m, std::vector<NvtxRange>* ranges, bool* is_mark) {
  *is_mark = false;
  switch (m.phase) {
    case MarkerRecord::Phase::kInstant: *is_mark = true; return;
    case MarkerRecord::Phase::kStart: {
      NvtxRange r;
      r.tid = m.tid;
      r.name = std::string(m.name);
      r.domain = std::string(m.domain);
      r.start_ns = m.ts_ns;
      if (auto d = data_.find(m.id); d != data_.end()) {
        r.color = d->second.color;
        r.category = d->second.category;
        data_.erase(d);
      }
      if (auto orphan = orphan_ends_.find(m.id); orphan != orphan_ends_.end()) {
        // The end was seen first: a complete range; nesting unknowable.
        start_end_ids_.erase(m.id);
        r.end_ns = orphan->second.ts_ns;
        r.end_tid = orphan->second.tid;
        orphan_ends_.erase(orphan);
        --unmatched_ends_;
        Complete(std::move(r), ranges);
        return;
      }
      if (IsStartEnd(m)) start_end_ids_.insert(m.id);
      if (start_end_ids_.count(m.id) == 0) {
        std::vector<uint32_t>& stack = stacks_[m.tid];
        r.depth = static_cast<int>(stack.size());
        stack.push_back(m.id);
      }
      open_[m.id] = Open{std::move(r)};
      return;
    }
    case MarkerRecord::Phase::kEnd: {
      auto it = open_.find(m.id);
      if (it == open_.end()) {
        orphan_ends_[m.id] = OrphanEnd{m.ts_ns, m.tid};
        ++unmatched_ends_;
        return;
      }
      NvtxRange r = std::move(it->second.range);
      open_.erase(it);
      bool start_end = start_end_ids_.erase(m.id) > 0;
      std::vector<uint32_t>& stack = stacks_[r.tid];
      bool lifo = !start_end && m.tid == r.tid && !stack.empty() && stack.back() == m.id;
      if (lifo) {
        stack.pop_back();
        r.is_push_pop = true;
      } else {
        stack.erase(std::remove(stack.begin(), stack.end(), m.id), stack.end());
        r.is_push_pop = false;
        r.depth.reset();
      }
      r.end_ns = m.ts_ns;
      r.end_tid = m.tid;
      Complete(std::move(r), ranges);
      return;
    }
  }
}

std::vector<NvtxRange> NvtxPairer::TakeOpen() {
  std::vector<NvtxRange> out;
  out.reserve(open_.size());
  for (auto& [id, open] : open_) {
    // Still open: push/pop unless proven otherwise (it was opened LIFO).
    open.range.is_push_pop = open.range.depth.has_value();
    out.push_back(std::move(open.range));
  }
  std::sort(out.begin(), out.end(), [](const NvtxRange& a, const NvtxRange& b) { return a.start_ns < b.start_ns; });
  open_.clear();
  stacks_.clear();
  return out;
}

}  // namespace streamscope::collector
