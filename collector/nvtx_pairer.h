// Pairs NVTX start/end marker records into ranges, with push/pop depth.
//
// CUPTI reports a range as two MARKER records sharing an id (start, end) and
// does not say whether it came from nvtxRangePush/Pop or
// nvtxRangeStart/End. The collector learns the ids of start/end ranges when
// the application opens them (MarkStartEnd, before their records arrive);
// those are start/end ranges (depth NULL) and do not count towards push/pop
// depth. Any other range is push/pop when it ends on the thread that opened
// it while it is that thread's innermost open push/pop range (LIFO, what
// push/pop guarantees); its depth is the number of push/pop ranges open on
// that thread when it started. Records may arrive split across buffers, and
// an end may arrive before its start; both are handled.
// Not thread-safe: used by the writer thread only.
#ifndef STREAMSCOPE_COLLECTOR_NVTX_PAIRER_H_
#define STREAMSCOPE_COLLECTOR_NVTX_PAIRER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <unordered_map>
#include <unordered_set>
#include "collector/trace_records.h"

namespace streamscope::collector {

struct NvtxRange {
  uint32_t tid = 0;
  std::optional<uint32_t> end_tid;
  std::string name;
  std::string domain;  // empty = default domain
  uint64_t start_ns = 0;
  std::optional<uint64_t> end_ns;  // nullopt: still open when capture ended
  bool is_push_pop = false;
  std::optional<int> depth;
  std::optional<uint32_t> color;
  std::optional<uint32_t> category;
};

class NvtxPairer {
 public:
  // Feeds one marker. Completed ranges are appended to *ranges; an
  // instantaneous mark is returned through *is_mark (the caller stores it
  // directly from the record).
  void Add(const MarkerRecord& marker, std::vector<NvtxRange>* ranges, bool* is_mark);
  void AddData(const MarkerDataRecord& data);
  // A range opened with nvtxRangeStart*: its START marker has this id, or
  // is on this thread inside the call's interval.
  void MarkStartEnd(const NvtxStartEndRecord& r);
  int64_t start_end_matched() const { return start_end_matched_; }

  // Ranges still open (end_ns unset), in start order. Clears the state.
  std::vector<NvtxRange> TakeOpen();

  // End markers whose start never arrived.
  int64_t unmatched_ends() const { return unmatched_ends_; }

 private:
  struct Open {
    NvtxRange range;
  };
  struct OrphanEnd {
    uint64_t ts_ns;
    uint32_t tid;
  };
  void Complete(NvtxRange range, std::vector<NvtxRange>* ranges);

  std::unordered_map<uint32_t, Open> open_;                     // by marker id
  std::unordered_map<uint32_t, std::vector<uint32_t>> stacks_;  // tid -> open ids
  std::unordered_map<uint32_t, OrphanEnd> orphan_ends_;
  std::unordered_map<uint32_t, MarkerDataRecord> data_;  // id -> color/category
  bool IsStartEnd(const MarkerRecord& start);
  std::unordered_set<uint32_t> start_end_ids_;
  std::unordered_map<uint32_t, std::vector<NvtxStartEndRecord>> start_end_calls_;  // by tid
  int64_t start_end_matched_ = 0;
  int64_t unmatched_ends_ = 0;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_NVTX_PAIRER_H_
