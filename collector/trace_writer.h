// Writer: the only collector code that talks to SQLite.
//
// Owns one trace database and one background thread. Producers (CUPTI's
// buffer thread, callbacks on application threads) hand over work with
// Submit(), which only takes a mutex briefly and never waits for SQLite; the
// writer thread decodes and inserts with prepared statements inside
// transactions, committing at least every `commit_ms` so that a killed
// process loses about a second at most. The queue is bounded: work that
// does not fit is dropped and its records counted (collector_stat
// 'records_dropped_writer'), never silently lost.
// Thread-safe: every public method may be called from any thread.
#ifndef STREAMSCOPE_COLLECTOR_TRACE_WRITER_H_
#define STREAMSCOPE_COLLECTOR_TRACE_WRITER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>
#include "collector/status.h"

#include "collector/capture_gate.h"
#include "collector/record_ring.h"
#include "collector/trace_records.h"

struct sqlite3;

namespace streamscope::collector {

// Counters stored in collector_stat (key names in StatName()).
enum class Stat : int {
  kRecordsWritten,
  kRecordsDroppedCupti,
  kRecordsDroppedWriter,
  kRecordsInvalid,
  kRecordsIgnored,
  kBuffersCompleted,
  kBuffersRequestDenied,
  kWriterBatches,
  kCommits,
  kFlushes,
  kNvtxUnmatchedEnds,
  kNvtxStartEndCalls,            // nvtxRangeStart* calls seen by the NVTX callbacks
  kNvtxStartEndMatched,          // ... whose START marker was found
  kMemoryLaunches,               // kernel launches whose arguments were inspected
  kMemoryLaunchesInRuntime,      // ... driver launches inside a runtime launch call
  kMemoryLaunchesWithoutLayout,  // ... without a parameter layout (no arguments attributed)
  kMemoryUntrackedFrees,         // frees of pointers not allocated during capture
  kMemoryFreesUnmatched,         // free records whose allocation row never arrived
  kMemoryLayoutsFunction,        // parameter layouts read with cuFuncGetParamInfo
  kMemoryLayoutsKernel,          // ... with cuKernelGetParamInfo (runtime launches)
  kMemoryLayoutError,            // first CUresult of a layout that could not be read (0: none)
  kRecordsDroppedZeroTimestamp,  // GPU ops CUPTI handed over incomplete (start or end 0)
  kSubmitApisRefused,            // record kind `submit`: driver ids / kinds CUPTI refused
  kRuntimeQueriesKept,           // runtime query ids still recorded (runtime-all, or CUPTI refused)
  kRecordsOutsideCapture,        // timestamped records outside every capture window (not written)
  kRingEvicted,                  // flight recorder: records dropped from the ring to stay in its bound
  kFlightRecorderDumps,          // flight recorder: dumps written so far
  kCount,
};
std::string_view StatName(Stat stat);

// A unit of work for the writer thread: typically one completed CUPTI
// buffer. Decode() runs on the writer thread; the item is destroyed there
// right after its records are inserted (so views into it stay valid).
class WorkItem {
 public:
  virtual ~WorkItem() = default;
  // Appends the item's records to *out; may add to stats via `writer`.
  virtual void Decode(RecordBatch* out, class TraceWriter& writer) = 0;
  // Number of records, used only to count them when the item is dropped.
  virtual int64_t CountRecords() const = 0;
};

struct WriterOptions {
  std::string path;
  bool overwrite = false;
  uint32_t commit_ms = 250;
  // Work items queued but not yet written; beyond this, Submit drops.
  size_t max_queued_items = 4096;
  // Memory of decoded record batches (callback records) queued but not yet
  // written; beyond this Submit(RecordBatch) drops and counts. CUPTI's
  // buffers are bounded by the CUPTI layer's pool, these are not.
  size_t max_queued_batch_bytes = size_t{256} << 20;
  // Name of an API function from its CUPTI callback id (set by the CUPTI
  // layer; tests use a fake). Called on the writer thread, once per cbid.
  std::function<std::string(ApiDomain, uint32_t cbid)> api_name;
  // Thread name lookup (tid -> name); default reads /proc/self/task/TID/comm.
  std::function<std::string(uint32_t tid)> thread_name;
  // Flight recorder: no file at `path`; records go to a ring with this
  // bound, and each Dump writes what it holds to PATH.dumpN.EXT.
  std::optional<RingBound> ring;
  // Flight recorder: Finish dumps the ring first (its capture_end is the
  // trigger).
  bool dump_on_finish = true;
  // Called with each dump's path once written.
  std::function<void(const std::string& path)> on_dump;
};

// PATH with '.dumpN' before its extension: trace-7.sqlite -> trace-7.dump2.sqlite.
std::string DumpPath(const std::string& path, int index);

// The NVTX range (domain 'streamscope') a dump adds over the instance that
// triggered it: `report DUMP --nvtx flight_recorder_trigger`.
inline constexpr std::string_view kTriggerRangeName = "flight_recorder_trigger";

class TraceWriter {
 public:
  // Creates the trace file (no symlinks followed, no clobbering unless
  // `overwrite`), the schema, and starts the writer thread.
  static StatusOr<std::unique_ptr<TraceWriter>> Open(WriterOptions options);

  // True if `path` is a regular file (not followed through a symlink)
  // holding a trace that process `pid` began at or after
  // `process_start_wall_ns` (less 2 s of clock granularity): an earlier
  // image of this very process, which then exec'd itself and keeps its pid.
  static bool IsEarlierImageTrace(const std::string& path, int64_t pid, int64_t process_start_wall_ns);

  ~TraceWriter();  // Finish("flush_on_stop") if not finished yet.
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Queues work; false if it was dropped (queue full or writer failed).
  bool Submit(std::unique_ptr<WorkItem> item);
  bool Submit(RecordBatch records);  // counts against max_queued_batch_bytes

  // Queues a metadata key/value (INSERT OR REPLACE).
  void SetMetadata(std::string key, std::string value);

  // Declares that explicit stream creations are reported (StreamCreated
  // records), so a blocking-flag stream never created explicitly is the
  // per-thread default stream.
  void SetStreamCreationTracked(bool tracked) { stream_creation_tracked_ = tracked; }

  // Records whose time lies outside every window of `gate` are counted
  // (records_outside_capture), not written; so are memory accesses of calls
  // that were not written. Null: everything is written.
  void SetCaptureGate(std::shared_ptr<const CaptureGate> gate);

  void AddStat(Stat stat, int64_t delta) { stats_[static_cast<int>(stat)].fetch_add(delta, std::memory_order_relaxed); }
  int64_t GetStat(Stat stat) const { return stats_[static_cast<int>(stat)].load(std::memory_order_relaxed); }

  // Blocks until everything queued before the call is written and committed.
  void Flush();

  // Flight recorder: writes what the ring holds now into its own trace
  // (DumpPath) marked with `trigger` and the ring's bounds, plus `extra`
  // metadata; waits until it is written. Returns the path. The ring keeps
  // recording meanwhile (records queued behind the dump wait for it).
  StatusOr<std::string> Dump(std::string trigger, std::vector<std::pair<std::string, std::string>> extra = {});
  bool ring_mode() const { return options_.ring.has_value(); }

  // Writes what is queued, open NVTX ranges, stats, metadata capture_end /
  // end_trace_ns, runs the schema's finalize statements and closes the
  // database. Idempotent: later calls return the first result.
  Status Finish(std::string_view capture_end, uint64_t end_trace_ns);

  const std::string& path() const { return options_.path; }

  // First error the writer thread met (OK if none).
  Status error() const;

 private:
  struct Task;
  struct Db;
  explicit TraceWriter(WriterOptions options);
  bool Enqueue(std::unique_ptr<WorkItem> item, size_t bytes);
  void Run();
  Status Process(Task& task);
  Status ProcessWork(Task& task);
  Status ProcessFinish(Task& task);
  Status ProcessRing(Task& task);  // flight recorder: every task type
  StatusOr<std::string> WriteDump(const std::string& trigger,
                                  const std::vector<std::pair<std::string, std::string>>& extra, uint64_t end_ns);
  Status CommitWithStats();                    // writer thread only
  void ReportFailure(const Status& st) const;  // once, on the first error

  WriterOptions options_;
  std::unique_ptr<Db> db_;
  std::atomic<int64_t> stats_[static_cast<int>(Stat::kCount)] = {};
  std::atomic<bool> stream_creation_tracked_{false};
  std::shared_ptr<const CaptureGate> gate_;  // guarded by mu_
  // Flight recorder (writer thread only): the ring, the metadata seen, dumps written.
  std::unique_ptr<RecordRing> ring_;
  std::vector<std::pair<std::string, std::string>> ring_metadata_;
  RecordBatch ring_scratch_;
  int dumps_ = 0;
  uint64_t dumps_queued_ = 0, dumps_done_ = 0;       // guarded by mu_
  std::vector<StatusOr<std::string>> dump_results_;  // guarded by mu_, by dump number

  mutable std::mutex mu_;
  std::condition_variable cv_;       // writer waits for work
  std::condition_variable done_cv_;  // Flush/Finish wait for progress
  std::deque<std::unique_ptr<Task>> queue_;
  size_t queued_batch_bytes_ = 0;
  uint64_t barriers_queued_ = 0;
  uint64_t barriers_done_ = 0;
  bool stopping_ = false;
  bool finished_ = false;
  Status finish_status_;
  Status error_;
  std::thread thread_;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_TRACE_WRITER_H_
