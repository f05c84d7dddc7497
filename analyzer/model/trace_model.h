// The analyzer's in-memory model of one process's trace.
//
// Importers (streamscope traces, Nsight Systems exports) fill it; analyses
// only read it and never know which importer fed them. Storage is columnar
// (struct of arrays) so that 10M GPU ops fit in well under 2 GiB and sweeps
// touch only the columns they need; ids and byte counts in 4 bytes a row,
// device and stream indices, name ids, graph ids, callback ids and return
// codes in 1 or 2, while they fit (NarrowColumn).
//
// Ownership: a TraceModel owns all of its data. Not thread-safe for writes;
// concurrent reads are fine once Finalize() has run.
#ifndef STREAMSCOPE_ANALYZER_MODEL_TRACE_MODEL_H_
#define STREAMSCOPE_ANALYZER_MODEL_TRACE_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyzer/model/derived_cache.h"
#include "analyzer/model/narrow_column.h"

namespace streamscope {

// Index into StringPool. kNoString means "absent".
using StringId = int32_t;
inline constexpr StringId kNoString = -1;

// Interned strings; ids are dense indices.
class StringPool {
 public:
  StringId Intern(std::string_view s);
  std::string_view Get(StringId id) const { return id < 0 ? std::string_view() : std::string_view(strings_[id]); }
  size_t size() const { return strings_.size(); }

 private:
  std::vector<std::string> strings_;
  absl::flat_hash_map<std::string, StringId> index_;
};

// What an operation does, as the overlap analysis groups it (docs/DEFINITIONS.md, overlap).
enum class OpCategory : uint8_t {
  kKernel = 0,
  kHtoD = 1,
  kDtoH = 2,
  kDtoD = 3,
  kPtoP = 4,
  kMemset = 5,
  kOtherCopy = 6,  // HtoH, arrays, unknown copy kinds
};
inline constexpr int kNumOpCategories = 7;
std::string_view OpCategoryName(OpCategory c);  // "compute", "H2D", ...
bool IsCopy(OpCategory c);                      // H2D, D2H, D2D, P2P, other copy

// CUpti_ActivityMemoryKind values (same numbering as the trace schema).
enum class MemoryKind : uint8_t {
  kUnknown = 0,
  kPageable = 1,
  kPinned = 2,
  kDevice = 3,
  kArray = 4,
  kManaged = 5,
  kDeviceStatic = 6,
  kManagedStatic = 7,
};
std::string_view MemoryKindName(MemoryKind k);

enum class StreamKind : uint8_t {
  kUnknown = 0,
  kLegacyDefault = 1,
  kPerThreadDefault = 2,
  kBlocking = 3,
  kNonBlocking = 4,
};
std::string_view StreamKindName(StreamKind k);

enum class SyncKind : uint8_t {
  kUnknown = 0,
  kEventSynchronize = 1,
  kStreamWaitEvent = 2,
  kStreamSynchronize = 3,
  kContextSynchronize = 4,
};
std::string_view SyncKindName(SyncKind k);

enum class ApiDomain : uint8_t { kRuntime = 1, kDriver = 2 };

struct Device {
  int32_t id = 0;  // CUDA ordinal
  std::string name;
  std::string uuid;
  int32_t compute_major = 0, compute_minor = 0;
  int32_t sm_count = 0;
  int32_t async_engine_count = -1;  // -1 = unknown
  int32_t concurrent_kernels = -1;  // -1 = unknown, 0/1
  int64_t global_memory_bytes = 0;
  // The host link (the trace's device_link table; streamscope traces only).
  // -1 = not recorded.
  struct HostLink {
    bool recorded = false;  // a device_link row exists (figures may still be unknown)
    std::string source;     // "nvml", "sysfs", "none"
    int32_t pcie_gen_current = -1, pcie_width_current = -1;
    int32_t pcie_gen_max = -1, pcie_width_max = -1;
    int32_t c2c_enabled = -1;  // 1: NVLink-C2C; 0: not; -1: unknown
  };
  HostLink link;
};

struct Stream {
  int64_t id = 0;  // id in the source trace
  int32_t device_id = 0;
  int64_t context_id = 0;
  StreamKind kind = StreamKind::kUnknown;
  std::optional<int32_t> priority;
};

// GPU operations, columnar. Index i is the op's position after Finalize(),
// which sorts by (start, end). `source_id` is the row id in the source table
// (kernel/memcpy/memset or the export's table) so findings can cite it.
struct GpuOps {
  std::vector<int64_t> start_ns, end_ns;
  std::vector<OpCategory> category;
  Int32In8Column device_id;
  Int32In16Column stream;                      // index into TraceModel::streams
  NarrowInt64Column correlation_id;            // -1 if none
  Int32In16Column name;                        // StringId: kernel name; kNoString for copies/memsets
  NarrowInt64Column bytes;                     // 0 for kernels
  std::vector<MemoryKind> src_kind, dst_kind;  // copies; memset uses dst_kind
  std::vector<uint8_t> is_async;               // copies and memsets
  Int32In8Column peer_device;                  // P2P: the other device; -1 otherwise
  Int64In16Column graph_id;                    // -1 outside graphs
  NarrowInt64Column source_id;

  size_t size() const { return start_ns.size(); }
};

// Calls f with the same column of each of `ops` (one GpuOps or several of
// the same constness), for every column in turn: the one list of the
// columns for code that treats them all alike (reserving, permuting,
// appending, comparing).
template <typename F, typename... Ops>
void ForEachOpColumn(F&& f, Ops&... ops) {
  f(ops.start_ns...);
  f(ops.end_ns...);
  f(ops.category...);
  f(ops.device_id...);
  f(ops.stream...);
  f(ops.correlation_id...);
  f(ops.name...);
  f(ops.bytes...);
  f(ops.src_kind...);
  f(ops.dst_kind...);
  f(ops.is_async...);
  f(ops.peer_device...);
  f(ops.graph_id...);
  f(ops.source_id...);
}

// One kernel launch's shape (only for kernels; parallel to GpuOps via op index).
struct KernelShape {
  int32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  int32_t registers = 0, shared_bytes = 0;
};

// A kernel's grid blocks kept in a byte: up to 255, larger grids as 255 (no
// device has that many SMs, and what reads it asks whether the kernels
// running left an SM free). 0: not a kernel, or its shape is unknown.
inline constexpr int64_t kMaxKernelBlocksKept = 255;
inline uint8_t KeptKernelBlocks(int64_t x, int64_t y, int64_t z) {
  if (x <= 0) return 0;  // shape not recorded
  // Each factor clamped first: the product of three stays far from
  // overflow whatever a trace claims, and any factor at the cap caps it.
  auto factor = [](int64_t v) { return std::clamp<int64_t>(v, 1, kMaxKernelBlocksKept); };
  return static_cast<uint8_t>(std::min(factor(x) * factor(y) * factor(z), kMaxKernelBlocksKept));
}

// Runtime and driver API calls, columnar, sorted by start after Finalize().
struct ApiCalls {
  std::vector<int64_t> start_ns, end_ns;
  NarrowInt64Column tid;
  Int32In16Column name;  // StringId
  std::vector<ApiDomain> domain;
  Int32In16Column cbid;
  NarrowInt64Column correlation_id;  // -1 if none
  Int32In8Column return_value;
  NarrowInt64Column source_id;

  size_t size() const { return start_ns.size(); }
};

// ForEachOpColumn for API calls.
template <typename F, typename... Calls>
void ForEachApiColumn(F&& f, Calls&... calls) {
  f(calls.start_ns...);
  f(calls.end_ns...);
  f(calls.tid...);
  f(calls.name...);
  f(calls.domain...);
  f(calls.cbid...);
  f(calls.correlation_id...);
  f(calls.return_value...);
  f(calls.source_id...);
}

struct SyncRecord {
  SyncKind kind = SyncKind::kUnknown;
  int64_t start_ns = 0, end_ns = 0;
  int32_t stream = -1;  // index into streams; -1 if n/a
  int64_t event_id = -1;
  int64_t correlation_id = -1;
  int64_t source_id = 0;
};

struct NvtxRange {
  StringId name = kNoString;
  StringId domain = kNoString;  // kNoString = default domain
  int64_t tid = 0;
  int64_t start_ns = 0;
  std::optional<int64_t> end_ns;  // open at capture end
  bool push_pop = true;
  int32_t depth = 0;
  int64_t source_id = 0;
};

struct NvtxMark {
  StringId name = kNoString;
  StringId domain = kNoString;
  int64_t tid = 0;
  int64_t ts_ns = 0;
};

// Event record/wait/elapsed as the callback API saw them (happens-before order, timing audit).
struct EventOp {
  enum class Op : uint8_t { kRecord, kWait, kSynchronize, kQuery, kElapsed };
  Op op = Op::kRecord;
  int64_t event_handle = 0, other_event = 0;
  int32_t stream = -1;
  int64_t tid = 0, ts_ns = 0, correlation_id = -1;
  double elapsed_ms = 0;
};

struct Allocation {
  std::string kind;
  uint64_t address = 0, bytes = 0;
  int32_t device_id = -1;
  int64_t alloc_ns = 0;
  std::optional<int64_t> free_ns;
  int64_t alloc_correlation_id = -1, free_correlation_id = -1;
  int64_t source_id = 0;
};

struct MemoryAccess {
  enum class Access : uint8_t { kRead, kWrite, kUnknown };
  int64_t correlation_id = -1;
  uint64_t address = 0, bytes = 0;
  Access access = Access::kUnknown;
  int64_t allocation = -1;  // index into allocations
  int32_t arg_index = -1;
};

// Correlation id -> index of the API call that carries it, preferring the
// runtime call over the driver call beneath it (both share the op's
// correlation id; the runtime call is what the application wrote). CUPTI's
// correlation ids are small, nearly consecutive integers, so a flat table
// indexed by id serves them (4 bytes per id instead of ~27 per hash slot:
// 40 MB instead of ~270 MB for 10M calls); sparse ids fall back to a hash
// map. Map-like find()/end() so callers read it like the hash map it
// replaced. Immutable after Build(); thread-safe to read.
class CorrelationIndex {
 public:
  using value_type = std::pair<int64_t, int32_t>;  // (correlation id, api index)
  class const_iterator {
   public:
    const value_type* operator->() const { return &value_; }
    const value_type& operator*() const { return value_; }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.end_ == b.end_ && (a.end_ || a.value_.first == b.value_.first);
    }

   private:
    friend class CorrelationIndex;
    value_type value_{0, -1};
    bool end_ = true;
  };

  void Build(const ApiCalls& api);
  void clear();
  // Api index for `correlation_id`, or -1.
  int32_t Lookup(int64_t correlation_id) const {
    if (dense_mode_) {
      if (correlation_id < lo_) return -1;
      uint64_t k = static_cast<uint64_t>(correlation_id) - static_cast<uint64_t>(lo_);
      return k < dense_.size() ? dense_[k] : -1;
    }
    auto it = sparse_.find(correlation_id);
    return it == sparse_.end() ? -1 : it->second;
  }
  const_iterator find(int64_t correlation_id) const {
    const_iterator it;
    int32_t api = Lookup(correlation_id);
    if (api >= 0) {
      it.value_ = {correlation_id, api};
      it.end_ = false;
    }
    return it;
  }
  const_iterator end() const { return const_iterator(); }
  bool contains(int64_t correlation_id) const { return Lookup(correlation_id) >= 0; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  bool dense_mode_ = true;
  int64_t lo_ = 0;
  std::vector<int32_t> dense_;  // api index or -1, by correlation id - lo_
  absl::flat_hash_map<int64_t, int32_t> sparse_;
  size_t size_ = 0;
};

// The whole trace of one process.
struct TraceModel {
  std::string path;    // file it was loaded from
  std::string format;  // "streamscope" or "nsys-export-<ver>"
  int64_t pid = 0;
  std::map<std::string, std::string> metadata;  // trace metadata table
  std::map<std::string, int64_t> collector_stats;

  StringPool strings;
  std::vector<Device> devices;
  std::vector<Stream> streams;
  GpuOps ops;
  std::vector<KernelShape> kernel_shapes;  // empty, or one per op (non-kernels zeroed)
  // Empty, or one per op: KeptKernelBlocks of its grid (the importers fill
  // it; kernel_shapes, which the exporters add, is the whole shape).
  std::vector<uint8_t> kernel_blocks;
  ApiCalls api;
  std::vector<SyncRecord> syncs;
  std::vector<NvtxRange> nvtx_ranges;
  std::vector<NvtxMark> nvtx_marks;
  std::vector<EventOp> event_ops;
  std::vector<Allocation> allocations;
  std::vector<MemoryAccess> memory_accesses;
  absl::flat_hash_map<int64_t, std::string> thread_names;

  // Import health, Perfetto-style: a bad record increments a named counter
  // ("op_end_before_start", "op_zero_timestamp", ...) instead of failing the
  // import. Reported in every report's notes.
  std::map<std::string, int64_t> import_stats;
  // Plain-sentence notes about absent data ("no NVTX ranges recorded").
  std::vector<std::string> notes;

  // Derived by Finalize(): ops and api sorted; lookups built.
  CorrelationIndex api_by_correlation;                 // prefers runtime
  absl::flat_hash_map<int64_t, int32_t> stream_index;  // source id -> index
  int64_t max_op_duration_ns = 0;                      // longest GPU op (bounds window searches)
  std::vector<int32_t> op_devices;                     // ids of the devices that ran ops, ascending
  // Whole-trace facts analyses build on first use (derived_cache.h);
  // Finalize() starts a fresh one. Shared by copies of the model.
  std::shared_ptr<DerivedCache> derived = std::make_shared<DerivedCache>();

  // The fact T of this model, built on first use (see DerivedCache).
  template <typename T>
  const T& Derived() const {
    return derived->Get<T>(*this);
  }

  // Sorts ops (by start, end) and API calls (by start), sorts NVTX ranges by
  // start, builds the lookups. Call once after importing.
  void Finalize();

  // The stream index for a source stream id, adding an unknown-kind stream if
  // the trace never described it.
  int32_t StreamIndexFor(int64_t stream_id, int32_t device_id);

  const Device* FindDevice(int32_t id) const;
  // Index range [first, last) of the ops that can intersect [start, end):
  // every op outside it lies entirely before start or at/after end (ops
  // inside may still miss the window; check their ends). Needs Finalize().
  std::pair<size_t, size_t> OpRangeFor(int64_t start, int64_t end) const;
  // API call that submitted op i, or -1.
  int32_t ApiForOp(size_t op) const;
};

// True if `s` indexes one of the model's streams (not -1, not past the end).
inline bool ValidStream(const TraceModel& m, int32_t s) { return s >= 0 && static_cast<size_t>(s) < m.streams.size(); }
// True if `s` is a valid stream that the program submitted to: importers
// give ops that ran on no stream (unified-memory migrations) a stream whose
// id is -1.
inline bool IsProgramStream(const TraceModel& m, int32_t s) {
  return ValidStream(m, s) && m.streams[static_cast<size_t>(s)].id >= 0;
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_MODEL_TRACE_MODEL_H_
