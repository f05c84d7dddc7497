// Analysis 10, part 3 (docs/DEFINITIONS.md): the window's critical path
// through host threads and GPU streams.
//
// From the end of the window's last-ending op, walk back along each event's
// binding in-edge (the one that set its time in the replay with nothing
// removed, which reproduces the recording; dependency_graph.h). Each edge
// walked becomes a segment of the time between its source and its target:
//   kernel / copy / memset  an op's duration            (op_duration, on its stream)
//   launch                  call start -> op start      (submit, on the op's stream)
//   gpu_wait                GPU predecessor end -> op start (stream order, event
//                           wait, legacy stream, graph; on the op's stream)
//   api_call                a call's duration           (call_duration, on its thread)
//   sync_return             waited op end -> call end   (sync_wait, on the call's thread)
//   host_work               host time between two calls (host_gap, on the thread)
// The walk stops at an event without in-edges, at an edge from before the
// window, or at the window's start (the last segment is clipped there).
// Zero-length segments are left out. The segments tile [start_ns, end_ns).
// No segment when the window's last-ending op started before the window
// (nothing in the window decided the end) or the window holds no op.
// Cost: O(ops + path length): the replay with nothing changed is the
// recording, so the graph's recorded times and binding edges are read, not
// replayed. Thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_CRITICAL_PATH_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_CRITICAL_PATH_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "analyzer/analysis/causes/dependency_graph.h"
#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/causes/graph_memory.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/base/blocked_vector.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

enum class PathSegmentKind : uint8_t {
  kKernel = 0,
  kCopy = 1,
  kMemset = 2,
  kLaunch = 3,
  kGpuWait = 4,
  kApiCall = 5,
  kSyncReturn = 6,
  kHostWork = 7,
};
inline constexpr int kNumPathSegmentKinds = 8;
// "kernel", "copy", "memset", "launch", "gpu_wait", "api_call",
// "sync_return", "host_work"
std::string_view PathSegmentKindName(PathSegmentKind k);
// Segments on a host thread (api_call, sync_return, host_work); the others
// lie on a GPU stream.
bool IsHostSegment(PathSegmentKind k);

struct PathSegment {
  int64_t start_ns = 0, end_ns = 0;
  int64_t tid = -1;     // host segments: the thread
  int32_t stream = -1;  // GPU segments: the stream (index into model.streams)
  int32_t op = -1;      // op index (GPU segments; sync_return: the waited op)
  int32_t api = -1;     // api index (host segments; launch: the submitting call)
  PathSegmentKind kind = PathSegmentKind::kKernel;
  DepEdgeKind edge = DepEdgeKind::kOpDuration;  // the edge walked
  int64_t length() const { return end_ns - start_ns; }
};

// A path's segments, which tile it: each starts where the one before it
// ended. Kept in 24 bytes a segment, not PathSegment's 40 (a path at 10M
// ops has 13M): the start is the previous end, and a host segment's thread
// an index into the path's few threads, in the place a GPU segment's stream
// takes. Read as PathSegment values.
class PathSegments {
 public:
  PathSegments() = default;
  PathSegments(std::initializer_list<PathSegment> segments);  // tiling, in time order

  size_t size() const { return packed_.size(); }
  bool empty() const { return packed_.empty(); }
  PathSegment operator[](size_t k) const;
  PathSegment front() const { return (*this)[0]; }
  PathSegment back() const { return (*this)[size() - 1]; }
  // The end of segment k (its start: the end of k - 1, or the first start).
  int64_t end_ns(size_t k) const { return packed_[k].end_ns; }
  int64_t start_ns(size_t k) const { return k == 0 ? first_start_ns_ : packed_[k - 1].end_ns; }
  int64_t length(size_t k) const { return end_ns(k) - start_ns(k); }
  PathSegmentKind kind(size_t k) const { return packed_[k].kind; }

  // `count` segments, then each set once, in any order: segment k must
  // start where k - 1 ends.
  void Resize(size_t count) { packed_.resize(count); }
  void Set(size_t k, const PathSegment& s);

  class Iterator {
   public:
    Iterator(const PathSegments* s, size_t k) : s_(s), k_(k) {}
    PathSegment operator*() const { return (*s_)[k_]; }
    Iterator& operator++() {
      ++k_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return k_ == o.k_; }

   private:
    const PathSegments* s_;
    size_t k_;
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

 private:
  struct Packed {
    int64_t end_ns = 0;
    int32_t op = -1, api = -1;
    int32_t place = -1;  // GPU: the stream; host: an index into threads_
    PathSegmentKind kind = PathSegmentKind::kKernel;
    DepEdgeKind edge = DepEdgeKind::kOpDuration;
  };
  static_assert(sizeof(Packed) == 24);
  int32_t ThreadPlace(int64_t tid);
  BlockedVector<Packed> packed_;  // hundreds of MB at 10M ops: made beside the what-ifs' buffers
  std::vector<int64_t> threads_;
  int64_t first_start_ns_ = 0;
};

// The device idle time inside [start_ns, end_ns) of a path, by the cause the
// one account of idle time gives it (gap_causes.h), and by the kind of path
// segment that ran at the same time: which part of the path the GPU waited
// on. Summed over devices (device time).
struct PathIdle {
  bool cited = false;  // CiteIdleOnPath ran
  int64_t idle_ns = 0;
  std::array<int64_t, kNumGapCauses> cause_ns{};
  std::array<std::array<int64_t, kNumGapCauses>, kNumPathSegmentKinds> by_segment{};
};

struct CriticalPath {
  Window window;
  int64_t start_ns = 0, end_ns = 0;  // what the path covers
  PathSegments segments;             // in time order
  std::array<int64_t, kNumPathSegmentKinds> kind_ns{};
  std::array<int64_t, kNumPathSegmentKinds> kind_segments{};  // how many segments of each kind
  int64_t host_ns = 0, gpu_ns = 0;
  PathIdle idle;
  // Not looked for: the window's dependency graph did not fit in memory.
  std::optional<GraphOverMemory> over_memory;
};

// Reads the graph's recorded times, binding edges and items only: a graph
// whose replay columns were dropped (DropReplayColumns) will do.
CriticalPath FindCriticalPath(const TraceModel& model, const DependencyGraph& graph);
CriticalPath FindCriticalPath(const TraceModel& model, const Window& window,
                              const DependencyGraphOptions& options = {});

// Fills path->idle from the same window's gap causes, run with keep_parts:
// the path cites the account's figures, never its own. O(parts x log
// segments).
void CiteIdleOnPath(const GapCausesResult& gaps, CriticalPath* path);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_CRITICAL_PATH_H_
