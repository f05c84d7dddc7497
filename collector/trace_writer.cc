#include "collector/trace_writer.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>
#include "collector/status.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>
#include <variant>

#include <unordered_map>
#include <unordered_set>
#include "collector/nvtx_pairer.h"
#include "collector/output_path.h"
#include "schema/schema.h"

namespace streamscope::collector {
namespace {

constexpr std::string_view kStatNames[] = {
    "records_written",
    "records_dropped_cupti",
    "records_dropped_writer",
    "records_invalid",
    "records_ignored",
    "buffers_completed",
    "buffers_request_denied",
    "writer_batches",
    "commits",
    "flushes",
    "nvtx_unmatched_ends",
    "nvtx_start_end_calls",
    "nvtx_start_end_matched",
    "memory_launches",
    "memory_launches_in_runtime",
    "memory_launches_without_layout",
    "memory_untracked_frees",
    "memory_frees_unmatched",
    "memory_layouts_function",
    "memory_layouts_kernel",
    "memory_layout_error",
    "records_dropped_zero_timestamp",
    "submit_apis_refused",
    "runtime_queries_kept",
    "records_outside_capture",
    "ring_evicted",
    "flight_recorder_dumps",
};
static_assert(std::size(kStatNames) == static_cast<size_t>(Stat::kCount));

Status SqlError(sqlite3* db, std::string_view what) {
  return InternalError(StrCat(what, ": ", db ? sqlite3_errmsg(db) : "no database"));
}

std::string DefaultThreadName(uint32_t tid) {
  std::string path = StrCat("/proc/self/task/", tid, "/comm");
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[64];
  ssize_t n = read(fd, buf, sizeof(buf));
  close(fd);
  if (n <= 0) return {};
  std::string name(buf, static_cast<size_t>(n));
  while (!name.empty() && (name.back() == '\n' || name.back() == '\0')) name.pop_back();
  return name;
}

// A batch of already-decoded records (callbacks, tests).
class BatchItem : public WorkItem {
 public:
  explicit BatchItem(RecordBatch records) : records_(std::move(records)) {}
  void Decode(RecordBatch* out, TraceWriter&) override {
    for (auto& r : records_) out->push_back(std::move(r));
  }
  int64_t CountRecords() const override { return static_cast<int64_t>(records_.size()); }

 private:
  RecordBatch records_;
};

// One prepared statement with positional binding helpers.
class Stmt {
 public:
  Stmt() = default;
  Stmt(const Stmt&) = delete;
  ~Stmt() { sqlite3_finalize(stmt_); }
  Status Prepare(sqlite3* db, const char* sql) {
    db_ = db;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK) {
      return SqlError(db, StrCat("prepare '", sql, "'"));
    }
    return OkStatus();
  }
  Stmt& Int(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  template <typename T>
  Stmt& Opt(int i, const std::optional<T>& v) {
    if (v.has_value()) {
      sqlite3_bind_int64(stmt_, i, static_cast<int64_t>(*v));
    } else {
      sqlite3_bind_null(stmt_, i);
    }
    return *this;
  }
  Stmt& Null(int i) {
    sqlite3_bind_null(stmt_, i);
    return *this;
  }
  Stmt& Real(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  Stmt& Text(int i, std::string_view v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // NULL for "none": an empty name, uuid or bus id is unknown, not "".
  Stmt& TextOrNull(int i, std::string_view v) { return v.empty() ? Null(i) : Text(i, v); }
  Status Step() {
    int rc = sqlite3_step(stmt_);
    sqlite3_reset(stmt_);
    if (rc != SQLITE_DONE) return SqlError(db_, "insert");
    return OkStatus();
  }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

// Multi-row INSERT for the high-volume tables: one statement inserts
// kRowsPerStatement rows, which roughly halves SQLite's per-row cost.
// Rows are kept as (value, is_null) until a statement's worth is ready;
// Drain() writes the rest one row at a time.
class BulkInsert {
 public:
  static constexpr int kRowsPerStatement = 32;
  struct Value {
    int64_t v;
    bool null;
  };
  Status Prepare(sqlite3* db, const std::string& table, const std::string& columns, int ncols) {
    ncols_ = ncols;
    std::string row = "(";
    for (int i = 0; i < ncols; ++i) row += i ? ",?" : "?";
    row += ")";
    std::string one = "INSERT INTO " + table + "(" + columns + ") VALUES" + row;
    std::string many = one;
    for (int i = 1; i < kRowsPerStatement; ++i) many += "," + row;
    if (Status st = single_.Prepare(db, one.c_str()); !st.ok()) return st;
    pending_.reserve(static_cast<size_t>(ncols) * kRowsPerStatement);
    return multi_.Prepare(db, many.c_str());
  }
  // Appends one row of ncols values; writes a full statement when ready.
  Status Add(std::initializer_list<Value> row) {
    pending_.insert(pending_.end(), row.begin(), row.end());
    if (pending_.size() < static_cast<size_t>(ncols_) * kRowsPerStatement) return OkStatus();
    Bind(multi_, 0, kRowsPerStatement);
    pending_.clear();
    return multi_.Step();
  }
  Status Drain() {
    size_t rows = pending_.size() / static_cast<size_t>(ncols_);
    for (size_t r = 0; r < rows; ++r) {
      Bind(single_, static_cast<int>(r), 1);
      if (Status st = single_.Step(); !st.ok()) return st;
    }
    pending_.clear();
    return OkStatus();
  }

 private:
  void Bind(Stmt& stmt, int first_row, int rows) {
    int idx = 1;
    for (int r = first_row; r < first_row + rows; ++r) {
      for (int c = 0; c < ncols_; ++c, ++idx) {
        const Value& v = pending_[static_cast<size_t>(r * ncols_ + c)];
        if (v.null) {
          stmt.Null(idx);
        } else {
          stmt.Int(idx, v.v);
        }
      }
    }
  }
  int ncols_ = 0;
  Stmt single_, multi_;
  std::vector<Value> pending_;
};

inline BulkInsert::Value V(int64_t v) { return {v, false}; }
template <typename T>
BulkInsert::Value V(const std::optional<T>& v) {
  return v.has_value() ? BulkInsert::Value{static_cast<int64_t>(*v), false} : BulkInsert::Value{0, true};
}

// Lets the string table be probed with a view, without a copy.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

}  // namespace

std::string_view StatName(Stat stat) { return kStatNames[static_cast<int>(stat)]; }

namespace {

// A range's start marker may be stamped just before the callback that opens
// the window it belongs to.
constexpr uint64_t kMarkerSlackNs = 100'000;

}  // namespace

struct TraceWriter::Task {
  enum class Type { kWork, kMetadata, kBarrier, kFinish, kDump } type = Type::kWork;
  std::unique_ptr<WorkItem> item;
  std::string key, value;                                  // metadata; kFinish: key = capture_end; kDump: key = trigger
  std::vector<std::pair<std::string, std::string>> extra;  // kDump: metadata of its own
  uint64_t number = 0;                                     // kDump: 1 for the first
  uint64_t end_ns = 0;
  size_t batch_bytes = 0;  // counted in queued_batch_bytes_ while queued
};

struct TraceWriter::Db {
  sqlite3* db = nullptr;
  bool in_txn = false;
  std::chrono::steady_clock::time_point txn_start;
  BulkInsert bulk_kernel, bulk_api, bulk_memcpy;
  Stmt ins_string, ins_memset, ins_graph, ins_sync, ins_range, ins_mark, ins_stream, ins_context, ins_device,
      ins_device_link, ins_overhead, ins_thread, ins_meta, ins_stat, ins_alloc, upd_free, ins_access, ins_event;
  // Frees that arrived before their allocation row (allocated and freed on
  // different threads, whose batches are flushed independently).
  std::unordered_map<uint64_t, FreeRecord> pending_frees;
  std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>> strings;
  int64_t next_string_id = 1;
  std::unordered_map<uint64_t, int64_t> api_names;  // (domain << 32 | cbid) -> string id
  std::unordered_set<uint32_t> threads;
  std::unordered_map<uint32_t, uint32_t> context_device;   // context -> device
  std::unordered_map<uint32_t, uint32_t> created_streams;  // stream -> tid
  NvtxPairer nvtx;
  std::unordered_set<uint32_t> kept_range_starts;  // capture windows: END markers follow their START
  // The capture windows of the last batch, while a capture range or pause
  // narrows the trace (empty optional: the whole run is kept).
  std::optional<std::vector<CaptureWindow>> windows;
  RecordBatch scratch;
  std::vector<NvtxRange> ranges;
  TraceWriter* writer = nullptr;  // stats and options
  int64_t rows_written = 0;       // rows inserted since the last AddStat

  // One record kind each; records folded into other rows (NVTX data, frees,
  // stream creations) insert nothing.
  Status Insert(const KernelRecord& r);
  Status Insert(const MemcpyRecord& r);
  Status Insert(const MemsetRecord& r);
  Status Insert(const GraphExecRecord& r);
  Status Insert(const ApiRecord& r);
  Status Insert(const SyncRecord& r);
  Status Insert(const MarkerRecord& r);
  Status Insert(const MarkerDataRecord& r);
  Status Insert(const StreamRecord& r);
  Status Insert(const ContextRecord& r);
  Status Insert(const DeviceRecord& r);
  Status Insert(const HostLinkRecord& r);
  Status Insert(const OverheadRecord& r);
  Status Insert(const NvtxStartEndRecord& r);
  Status Insert(const AllocationRecord& r);
  Status Insert(const FreeRecord& r);
  Status Insert(const MemoryAccessRecord& r);
  Status Insert(const EventOpRecord& r);
  Status Insert(const StreamCreatedRecord& r);
  // Drops the records of `scratch` outside `windows`; returns how many.
  int64_t KeepInside(const std::vector<CaptureWindow>& windows);
  // Completed NVTX ranges waiting in `ranges`.
  Status InsertRanges();
  // Optional interned string: NULL for an empty one.
  StatusOr<std::optional<int64_t>> InternOptional(std::string_view s);
  // A GPU op CUPTI handed over before it completed (a forced flush) has no
  // timestamps and never will: counted, not stored.
  bool Untimed(uint64_t start_ns, uint64_t end_ns);
  // The end-of-capture steps of Finish, in order.
  Status FinalizeStreamsAndTimes();
  Status ClassifyStreams(bool stream_creation_tracked);

  ~Db() {
    if (db != nullptr) sqlite3_close_v2(db);
  }

  Status Exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      return InternalError(StrCat("sqlite: ", msg));
    }
    return OkStatus();
  }
  Status Begin() {
    if (in_txn) return OkStatus();
    in_txn = true;
    txn_start = std::chrono::steady_clock::now();
    return Exec("BEGIN");
  }
  Status DrainBulk() {
    for (BulkInsert* b : {&bulk_kernel, &bulk_api, &bulk_memcpy}) {
      if (Status st = b->Drain(); !st.ok()) return st;
    }
    return OkStatus();
  }
  Status Commit() {
    if (!in_txn) return OkStatus();
    if (Status st = DrainBulk(); !st.ok()) return st;
    in_txn = false;
    return Exec("COMMIT");
  }

  StatusOr<int64_t> Intern(std::string_view s) {
    auto it = strings.find(s);
    if (it != strings.end()) return it->second;
    int64_t id = next_string_id++;
    if (auto st = ins_string.Int(1, id).Text(2, s).Step(); !st.ok()) return st;
    strings.emplace(std::string(s), id);
    return id;
  }
  // Applies a free to its allocation row; false if the row is not there yet.
  StatusOr<bool> ApplyFree(const FreeRecord& r) {
    upd_free.Int(1, static_cast<int64_t>(r.free_ns))
        .Int(2, r.correlation_id)
        .Opt(3, r.stream_id)
        .Int(4, static_cast<int64_t>(r.id));
    if (auto st = upd_free.Step(); !st.ok()) return st;
    return sqlite3_changes(db) > 0;
  }
  Status SeeThread(uint32_t tid, const WriterOptions& o) {
    if (!threads.insert(tid).second) return OkStatus();
    std::string name = o.thread_name ? o.thread_name(tid) : DefaultThreadName(tid);
    ins_thread.Int(1, tid).TextOrNull(2, name);
    return ins_thread.Step();
  }
};

TraceWriter::TraceWriter(WriterOptions options) : options_(std::move(options)) {}

std::string DumpPath(const std::string& path, int index) {
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = path.size();
  return StrCat(path.substr(0, dot), ".dump", index, path.substr(dot));
}

StatusOr<std::unique_ptr<TraceWriter>> TraceWriter::Open(WriterOptions options) {
  if (options.ring.has_value()) {
    // Flight recorder: no file until a dump.
    std::unique_ptr<TraceWriter> w(new TraceWriter(std::move(options)));
    w->ring_ = std::make_unique<RecordRing>(*w->options_.ring);
    w->thread_ = std::thread([raw = w.get()] { raw->Run(); });
    return w;
  }
  if (auto st = CreateTraceFile(options.path, options.overwrite); !st.ok()) return st;
  // A trace that could not be set up is removed again (declared before `w`,
  // so it runs after the database is closed).
  struct RemoveUnlessOpened {
    std::string path;
    bool opened = false;
    ~RemoveUnlessOpened() {
      if (!opened) RemoveTraceFiles(path);
    }
  } cleanup{options.path};
  std::unique_ptr<TraceWriter> w(new TraceWriter(std::move(options)));
  w->db_ = std::make_unique<Db>();
  Db& d = *w->db_;
  d.writer = w.get();
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW;
  if (sqlite3_open_v2(w->options_.path.c_str(), &d.db, flags, nullptr) != SQLITE_OK) {
    return PermissionDeniedError(
        StrCat("cannot open trace '", w->options_.path, "': ", d.db ? sqlite3_errmsg(d.db) : "?"));
  }
  // WAL: readers never see a torn database, and a killed process leaves a
  // valid one. synchronous=OFF is safe against process death (only an OS
  // crash could lose the last commits).
  for (const char* pragma :
       {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=OFF", "PRAGMA cache_size=-65536", "PRAGMA temp_store=MEMORY"}) {
    if (auto st = d.Exec(pragma); !st.ok()) return st;
  }
  std::string create = StrCat("BEGIN;\n", std::string(schema::CreateSql()), "\nCOMMIT;");
  if (auto st = d.Exec(create.c_str()); !st.ok()) {
    return InternalError(StrCat("creating schema in '", w->options_.path, "': ", st.message()));
  }
  struct {
    Stmt* stmt;
    const char* sql;
  } statements[] = {
      {&d.ins_string, "INSERT INTO string(id,value) VALUES(?,?)"},
      {&d.ins_memset,
       "INSERT INTO memset(start_ns,end_ns,device_id,context_id,stream_id,correlation_id,bytes,"
       "value,memory_kind,is_async,graph_id,graph_node_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)"},
      {&d.ins_graph,
       "INSERT INTO graph_execution(start_ns,end_ns,device_id,context_id,stream_id,"
       "correlation_id,graph_id) VALUES(?,?,?,?,?,?,?)"},
      {&d.ins_sync,
       "INSERT INTO sync(kind,start_ns,end_ns,context_id,stream_id,event_id,correlation_id,"
       "return_value) VALUES(?,?,?,?,?,?,?,?)"},
      {&d.ins_range,
       "INSERT INTO nvtx_range(tid,end_tid,name_id,domain_id,start_ns,end_ns,is_push_pop,depth,"
       "color,category) VALUES(?,?,?,?,?,?,?,?,?,?)"},
      {&d.ins_mark, "INSERT INTO nvtx_mark(tid,name_id,domain_id,ts_ns) VALUES(?,?,?,?)"},
      {&d.ins_stream,
       "INSERT OR REPLACE INTO stream(id,context_id,device_id,kind,priority,cupti_flag) "
       "VALUES(?,?,?,?,?,?)"},
      {&d.ins_context, "INSERT OR REPLACE INTO context(id,device_id,null_stream_id) VALUES(?,?,?)"},
      {&d.ins_device,
       "INSERT OR REPLACE INTO device(id,name,uuid,compute_major,compute_minor,sm_count,"
       "async_engine_count,concurrent_kernels,global_memory_bytes,global_memory_bandwidth_kbps,"
       "global_memory_clock_khz,max_threads_per_block,max_shared_memory_per_block,pci_bus_id,"
       "pci_device_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"},
      {&d.ins_device_link,
       "INSERT OR REPLACE INTO device_link(device_id,pci_bus_id,source,pcie_gen_current,"
       "pcie_width_current,pcie_gen_max,pcie_width_max,c2c_enabled) VALUES(?,?,?,?,?,?,?,?)"},
      {&d.ins_overhead, "INSERT INTO cupti_overhead(kind,object_kind,object_id,start_ns,end_ns) VALUES(?,?,?,?,?)"},
      {&d.ins_thread, "INSERT OR IGNORE INTO thread(tid,name) VALUES(?,?)"},
      {&d.ins_meta, "INSERT OR REPLACE INTO metadata(key,value) VALUES(?,?)"},
      {&d.ins_alloc,
       "INSERT OR REPLACE INTO allocation(id,kind,address,bytes,device_id,stream_id,alloc_ns,"
       "alloc_correlation_id) VALUES(?,?,?,?,?,?,?,?)"},
      {&d.upd_free, "UPDATE allocation SET free_ns=?, free_correlation_id=?, free_stream_id=? WHERE id=?"},
      {&d.ins_access,
       "INSERT INTO memory_access(correlation_id,address,bytes,access,allocation_id,arg_index) "
       "VALUES(?,?,?,?,?,?)"},
      {&d.ins_event,
       "INSERT INTO event_op(op,event_handle,other_event,stream_id,tid,ts_ns,correlation_id,"
       "elapsed_ms) VALUES(?,?,?,?,?,?,?,?)"},
      {&d.ins_stat, "INSERT OR REPLACE INTO collector_stat(key,value) VALUES(?,?)"},
  };
  for (auto& s : statements) {
    if (auto st = s.stmt->Prepare(d.db, s.sql); !st.ok()) return st;
  }
  if (Status st =
          d.bulk_kernel.Prepare(d.db, "kernel",
                                "start_ns,end_ns,device_id,context_id,stream_id,correlation_id,name_id,grid_x,grid_y,"
                                "grid_z,block_x,block_y,block_z,static_shared_bytes,dynamic_shared_bytes,"
                                "registers_per_thread,launch_type,graph_id,graph_node_id",
                                19);
      !st.ok()) {
    return st;
  }
  if (Status st = d.bulk_api.Prepare(d.db, "api_call",
                                     "domain,cbid,name_id,tid,start_ns,end_ns,correlation_id,return_value", 8);
      !st.ok()) {
    return st;
  }
  if (Status st = d.bulk_memcpy.Prepare(
          d.db, "memcpy",
          "start_ns,end_ns,device_id,context_id,stream_id,correlation_id,bytes,copy_kind,src_kind,"
          "dst_kind,is_async,src_device_id,dst_device_id,src_context_id,dst_context_id,graph_id,"
          "graph_node_id",
          17);
      !st.ok()) {
    return st;
  }
  if (auto st = d.Begin(); !st.ok()) return st;
  d.ins_meta.Text(1, "schema_version").Text(2, StrCat(schema::Version()));
  if (auto st = d.ins_meta.Step(); !st.ok()) return st;
  d.ins_meta.Text(1, "trace_format").Text(2, "streamscope");
  if (auto st = d.ins_meta.Step(); !st.ok()) return st;
  if (auto st = d.Commit(); !st.ok()) return st;
  w->thread_ = std::thread([raw = w.get()] { raw->Run(); });
  cleanup.opened = true;
  return w;
}

TraceWriter::~TraceWriter() {
  if (!thread_.joinable()) return;  // Open failed: no writer thread would ever finish
  (void)Finish("flush_on_stop", 0);
  thread_.join();
}

bool TraceWriter::Submit(std::unique_ptr<WorkItem> item) { return Enqueue(std::move(item), 0); }

bool TraceWriter::Submit(RecordBatch records) {
  size_t bytes = records.capacity() * sizeof(TraceRecord);
  return Enqueue(std::make_unique<BatchItem>(std::move(records)), bytes);
}

bool TraceWriter::Enqueue(std::unique_ptr<WorkItem> item, size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_ && error_.ok() && queue_.size() < options_.max_queued_items &&
        (bytes == 0 || queued_batch_bytes_ + bytes <= options_.max_queued_batch_bytes)) {
      auto task = std::make_unique<Task>();
      task->item = std::move(item);
      task->batch_bytes = bytes;
      queued_batch_bytes_ += bytes;
      queue_.push_back(std::move(task));
      cv_.notify_one();
      return true;
    }
  }
  AddStat(Stat::kRecordsDroppedWriter, item->CountRecords());
  return false;
}

void TraceWriter::SetMetadata(std::string key, std::string value) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  auto task = std::make_unique<Task>();
  task->type = Task::Type::kMetadata;
  task->key = std::move(key);
  task->value = std::move(value);
  queue_.push_back(std::move(task));
  cv_.notify_one();
}

void TraceWriter::Flush() {
  std::unique_lock<std::mutex> lock(mu_);
  if (stopping_) return;
  auto task = std::make_unique<Task>();
  task->type = Task::Type::kBarrier;
  queue_.push_back(std::move(task));
  uint64_t target = ++barriers_queued_;
  cv_.notify_one();
  done_cv_.wait(lock, [&] { return barriers_done_ >= target || finished_; });
}

Status TraceWriter::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

Status TraceWriter::Finish(std::string_view capture_end, uint64_t end_trace_ns) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!stopping_) {
    stopping_ = true;
    auto task = std::make_unique<Task>();
    task->type = Task::Type::kFinish;
    task->key = std::string(capture_end);
    task->end_ns = end_trace_ns;
    queue_.push_back(std::move(task));
    cv_.notify_one();
  }
  done_cv_.wait(lock, [&] { return finished_; });
  return finish_status_;
}

void TraceWriter::Run() {
  for (;;) {
    std::unique_ptr<Task> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (queue_.empty()) {
        // Idle: make what we have durable, then wait.
        lock.unlock();
        Status st = db_ != nullptr && db_->in_txn ? CommitWithStats() : OkStatus();
        lock.lock();
        if (!st.ok() && error_.ok()) {
          error_ = st;
          ReportFailure(st);
        }
        cv_.wait_for(lock, std::chrono::milliseconds(options_.commit_ms), [&] { return !queue_.empty(); });
        if (queue_.empty()) continue;
      }
      task = std::move(queue_.front());
      queue_.pop_front();
      queued_batch_bytes_ -= task->batch_bytes;
    }
    bool failed;
    {
      std::lock_guard<std::mutex> lock(mu_);
      failed = !error_.ok();
    }
    Task::Type type = task->type;
    Status st;
    if (failed && type == Task::Type::kWork) {
      AddStat(Stat::kRecordsDroppedWriter, task->item->CountRecords());
    } else {
      st = Process(*task);
    }
    task.reset();  // frees the CUPTI buffer on this thread, after its inserts
    std::lock_guard<std::mutex> lock(mu_);
    if (!st.ok() && error_.ok()) {
      error_ = st;
      ReportFailure(st);
    }
    if (type == Task::Type::kBarrier) {
      ++barriers_done_;
      done_cv_.notify_all();
    }
    if (type == Task::Type::kDump) {
      ++dumps_done_;
      done_cv_.notify_all();
    }
    if (type == Task::Type::kFinish) {
      finish_status_ = st.ok() ? error_ : st;
      finished_ = true;
      done_cv_.notify_all();
      return;
    }
  }
}

void TraceWriter::ReportFailure(const Status& st) const {
  // The one line the application's user sees about it (the collector does
  // not repeat it at exit).
  std::fprintf(stderr, "streamscope: writing trace '%s' failed, later records are dropped: %s\n", options_.path.c_str(),
               std::string(st.message()).c_str());
}

Status TraceWriter::CommitWithStats() {
  Db& d = *db_;
  if (auto st = d.Begin(); !st.ok()) return st;
  AddStat(Stat::kCommits, 1);
  for (int i = 0; i < static_cast<int>(Stat::kCount); ++i) {
    d.ins_stat.Text(1, kStatNames[i]).Int(2, stats_[i].load(std::memory_order_relaxed));
    if (auto st = d.ins_stat.Step(); !st.ok()) return st;
  }
  return d.Commit();
}

Status TraceWriter::Process(Task& task) {
  if (ring_ != nullptr) return ProcessRing(task);
  Db& d = *db_;
  if (auto st = d.Begin(); !st.ok()) return st;
  switch (task.type) {
    case Task::Type::kMetadata: d.ins_meta.Text(1, task.key).Text(2, task.value); return d.ins_meta.Step();
    case Task::Type::kBarrier: return CommitWithStats();
    case Task::Type::kWork: return ProcessWork(task);
    case Task::Type::kFinish: return ProcessFinish(task);
    case Task::Type::kDump: return OkStatus();  // only in ring mode
  }
  return OkStatus();
}

StatusOr<std::string> TraceWriter::Dump(std::string trigger, std::vector<std::pair<std::string, std::string>> extra) {
  std::unique_lock<std::mutex> lock(mu_);
  if (ring_ == nullptr) return FailedPreconditionError("not a flight recorder");
  if (stopping_) return FailedPreconditionError("recording has ended");
  auto task = std::make_unique<Task>();
  task->type = Task::Type::kDump;
  task->key = std::move(trigger);
  task->extra = std::move(extra);
  task->number = ++dumps_queued_;
  uint64_t number = task->number;
  queue_.push_back(std::move(task));
  cv_.notify_one();
  done_cv_.wait(lock, [&] { return dumps_done_ >= number || finished_; });
  if (dump_results_.size() < number) return FailedPreconditionError("recording ended before the dump");
  return dump_results_[number - 1];
}

Status TraceWriter::ProcessRing(Task& task) {
  switch (task.type) {
    case Task::Type::kMetadata: {
      for (auto& [k, v] : ring_metadata_) {
        if (k == task.key) {
          v = task.value;
          return OkStatus();
        }
      }
      ring_metadata_.emplace_back(task.key, task.value);
      return OkStatus();
    }
    case Task::Type::kBarrier: return OkStatus();
    case Task::Type::kWork:
      ring_scratch_.clear();
      task.item->Decode(&ring_scratch_, *this);
      AddStat(Stat::kWriterBatches, 1);
      ring_->Add(&ring_scratch_);
      stats_[static_cast<int>(Stat::kRingEvicted)] = static_cast<int64_t>(ring_->evicted());
      return OkStatus();
    case Task::Type::kDump: {
      StatusOr<std::string> path = WriteDump(task.key, task.extra, 0);
      std::lock_guard<std::mutex> lock(mu_);
      dump_results_.resize(std::max<size_t>(dump_results_.size(), task.number), OkStatus());
      dump_results_[task.number - 1] = path;
      return OkStatus();  // a failed dump is the caller's to report; recording goes on
    }
    case Task::Type::kFinish:
      if (options_.dump_on_finish && ring_->size() > 0) {
        StatusOr<std::string> path = WriteDump(task.key, {}, task.end_ns);
        if (!path.ok()) return path.status();
      }
      return OkStatus();
  }
  return OkStatus();
}

StatusOr<std::string> TraceWriter::WriteDump(const std::string& trigger,
                                             const std::vector<std::pair<std::string, std::string>>& extra,
                                             uint64_t end_ns) {
  WriterOptions o;
  o.path = DumpPath(options_.path, ++dumps_);
  o.overwrite = options_.overwrite;
  o.commit_ms = options_.commit_ms;
  o.api_name = options_.api_name;
  o.thread_name = options_.thread_name;
  StatusOr<std::unique_ptr<TraceWriter>> w = Open(o);
  if (!w.ok()) return w.status();
  TraceWriter& dump = **w;
  dump.SetStreamCreationTracked(stream_creation_tracked_.load());
  for (const auto& [k, v] : ring_metadata_) {
    if (k != "capture_end") dump.SetMetadata(k, v);
  }
  dump.SetMetadata("flight_recorder_trigger", trigger);
  dump.SetMetadata("flight_recorder_bound", options_.ring->ToString());
  dump.SetMetadata("flight_recorder_dump_index", StrCat(dumps_));
  dump.SetMetadata("ring_first_ns", StrCat(ring_->first_ns()));
  dump.SetMetadata("ring_last_ns", StrCat(ring_->last_ns()));
  dump.SetMetadata("ring_records", StrCat(ring_->size()));
  dump.SetMetadata("ring_evicted", StrCat(ring_->evicted()));
  for (const auto& [k, v] : extra) dump.SetMetadata(k, v);
  // What the process lost or dropped so far, as in a whole trace.
  for (Stat s :
       {Stat::kRecordsDroppedCupti, Stat::kRecordsDroppedWriter, Stat::kRecordsInvalid, Stat::kRecordsIgnored,
        Stat::kBuffersRequestDenied, Stat::kSubmitApisRefused, Stat::kRuntimeQueriesKept, Stat::kRingEvicted}) {
    dump.AddStat(s, GetStat(s));
  }
  // The names in the snapshot point into the ring, which this thread does
  // not touch until the dump is finished.
  RecordBatch records = ring_->Snapshot();
  // The instance that fired becomes an NVTX range of its own, so that
  // `report DUMP --nvtx flight_recorder_trigger` takes it as the window.
  auto meta_of = [&](std::string_view key) -> std::optional<uint64_t> {
    for (const auto& [k, v] : extra) {
      uint64_t n = 0;
      if (k == key && ParseInt(std::string_view(v), &n)) return n;
    }
    return std::nullopt;
  };
  if (auto start = meta_of("trigger_start_ns"), end = meta_of("trigger_end_ns"); start && end) {
    constexpr uint32_t kTriggerRangeId = 0xFFFFFFF0u;  // above any id NVTX hands out in practice
    MarkerRecord open;
    open.phase = MarkerRecord::Phase::kStart;
    open.ts_ns = *start;
    open.id = kTriggerRangeId;
    open.name = kTriggerRangeName;
    open.domain = "streamscope";
    MarkerRecord close = open;
    close.phase = MarkerRecord::Phase::kEnd;
    close.ts_ns = *end;
    close.name = {};
    close.domain = {};
    records.emplace_back(open);
    records.emplace_back(close);
  }
  dump.Submit(std::make_unique<BatchItem>(std::move(records)));
  Status st = dump.Finish(StrCat("flight_recorder:", trigger), end_ns != 0 ? end_ns : ring_->last_ns());
  if (!st.ok()) return st;
  AddStat(Stat::kFlightRecorderDumps, 1);
  if (options_.on_dump) options_.on_dump(o.path);
  return o.path;
}

void TraceWriter::SetCaptureGate(std::shared_ptr<const CaptureGate> gate) {
  std::lock_guard<std::mutex> lock(mu_);
  gate_ = std::move(gate);
}

int64_t TraceWriter::Db::KeepInside(const std::vector<CaptureWindow>& windows) {
  auto outside = [&](const TraceRecord& rec) {
    if (const auto* m = std::get_if<MarkerRecord>(&rec)) {
      switch (m->phase) {
        case MarkerRecord::Phase::kStart:
          if (CaptureGate::InWindows(windows, m->ts_ns) ||
              CaptureGate::WindowOpensIn(windows, m->ts_ns, m->ts_ns + kMarkerSlackNs)) {
            kept_range_starts.insert(m->id);
            return false;
          }
          return true;
        case MarkerRecord::Phase::kEnd:
          return kept_range_starts.erase(m->id) == 0 && !CaptureGate::InWindows(windows, m->ts_ns);
        case MarkerRecord::Phase::kInstant: break;
      }
    }
    std::optional<uint64_t> t = RecordTimeNs(rec);
    // A zero start is an incomplete op: the insert counts it.
    return t.has_value() && *t != 0 && !CaptureGate::InWindows(windows, *t);
  };
  size_t before = scratch.size();
  std::erase_if(scratch, outside);
  return static_cast<int64_t>(before - scratch.size());
}

Status TraceWriter::ProcessWork(Task& task) {
  Db& d = *db_;
  d.scratch.clear();
  task.item->Decode(&d.scratch, *this);
  AddStat(Stat::kWriterBatches, 1);
  std::shared_ptr<const CaptureGate> gate;
  {
    std::lock_guard<std::mutex> lock(mu_);
    gate = gate_;
  }
  if (gate != nullptr && (gate->ever_switched() || !gate->on())) {
    d.windows = gate->Windows();
    if (int64_t dropped = d.KeepInside(*d.windows); dropped > 0) AddStat(Stat::kRecordsOutsideCapture, dropped);
  }
  for (const TraceRecord& rec : d.scratch) {
    Status st = std::visit([&](const auto& r) { return d.Insert(r); }, rec);
    if (!st.ok()) return st;
  }
  AddStat(Stat::kRecordsWritten, std::exchange(d.rows_written, 0));
  d.scratch.clear();
  if (std::chrono::steady_clock::now() - d.txn_start >= std::chrono::milliseconds(options_.commit_ms)) {
    return CommitWithStats();
  }
  return OkStatus();
}

Status TraceWriter::ProcessFinish(Task& task) {
  Db& d = *db_;
  d.ranges = d.nvtx.TakeOpen();
  // Index builds and the stream classification sort millions of rows:
  // spill to temporary files rather than grow the heap with the trace.
  (void)d.Exec("PRAGMA temp_store=FILE");
  if (auto st = d.InsertRanges(); !st.ok()) return st;
  AddStat(Stat::kRecordsWritten, std::exchange(d.rows_written, 0));
  if (Status st = d.DrainBulk(); !st.ok()) return st;
  stats_[static_cast<int>(Stat::kNvtxUnmatchedEnds)] = d.nvtx.unmatched_ends();
  stats_[static_cast<int>(Stat::kNvtxStartEndMatched)] = d.nvtx.start_end_matched();
  stats_[static_cast<int>(Stat::kMemoryFreesUnmatched)] = static_cast<int64_t>(d.pending_frees.size());
  if (auto st = d.FinalizeStreamsAndTimes(); !st.ok()) return st;
  if (auto st = d.ClassifyStreams(stream_creation_tracked_); !st.ok()) return st;
  std::shared_ptr<const CaptureGate> gate;
  {
    std::lock_guard<std::mutex> lock(mu_);
    gate = gate_;
  }
  if (gate != nullptr && (gate->ever_switched() || !gate->on())) {
    // Memory accesses carry no time: they go with the call that was written.
    if (auto st = d.Exec("DELETE FROM memory_access WHERE EXISTS (SELECT 1 FROM api_call) AND correlation_id NOT IN"
                         " (SELECT correlation_id FROM api_call)");
        !st.ok()) {
      return st;
    }
  }
  d.ins_meta.Text(1, "capture_end").Text(2, task.key);
  if (auto st = d.ins_meta.Step(); !st.ok()) return st;
  d.ins_meta.Text(1, "end_trace_ns").Text(2, StrCat(task.end_ns));
  if (auto st = d.ins_meta.Step(); !st.ok()) return st;
  if (auto st = CommitWithStats(); !st.ok()) return st;
  // A self-contained file: readers need no -wal/-shm companions.
  (void)d.Exec("PRAGMA journal_mode=DELETE");
  sqlite3_close_v2(d.db);
  d.db = nullptr;
  return OkStatus();
}

// ---- end of capture ---------------------------------------------------------

Status TraceWriter::Db::FinalizeStreamsAndTimes() {
  // Stream kinds that need the whole trace.
  if (auto st = Exec("UPDATE stream SET device_id = (SELECT device_id FROM context c WHERE c.id = "
                     "stream.context_id) WHERE device_id IS NULL;"
                     "UPDATE stream SET kind = 1 WHERE id IN (SELECT null_stream_id FROM context);");
      !st.ok()) {
    return st;
  }
  if (auto st = Exec(std::string(schema::FinalizeSql()).c_str()); !st.ok()) return st;
  // Memory-tracking times were taken in the API-enter callback, just
  // before CUPTI stamps the call's start: use the recorded call's start
  // where there is one (the finalize indexes make this a lookup per row).
  return Exec(
      "UPDATE event_op SET ts_ns = (SELECT a.start_ns FROM api_call a WHERE"
      " a.correlation_id = event_op.correlation_id ORDER BY a.domain LIMIT 1)"
      " WHERE correlation_id IN (SELECT correlation_id FROM api_call);"
      "UPDATE allocation SET alloc_ns = (SELECT a.start_ns FROM api_call a WHERE"
      " a.correlation_id = allocation.alloc_correlation_id ORDER BY a.domain LIMIT 1)"
      " WHERE alloc_correlation_id IN (SELECT correlation_id FROM api_call);"
      "UPDATE allocation SET free_ns = (SELECT a.start_ns FROM api_call a WHERE"
      " a.correlation_id = allocation.free_correlation_id ORDER BY a.domain LIMIT 1)"
      " WHERE free_correlation_id IN (SELECT correlation_id FROM api_call);");
}

Status TraceWriter::Db::ClassifyStreams(bool stream_creation_tracked) {
  if (auto st = Exec("CREATE TEMP TABLE created_stream(id INTEGER PRIMARY KEY, tid INTEGER)"); !st.ok()) {
    return st;
  }
  {
    Stmt ins;
    if (auto st = ins.Prepare(db, "INSERT OR IGNORE INTO created_stream VALUES(?,?)"); !st.ok()) return st;
    for (auto [id, tid] : created_streams) {
      if (auto st = ins.Int(1, id).Int(2, tid).Step(); !st.ok()) return st;
    }
  }
  std::string classify =
      "UPDATE stream SET created_tid = (SELECT tid FROM created_stream c WHERE c.id = stream.id)"
      " WHERE id IN (SELECT id FROM created_stream);"
      // Ops submitted through per-thread-default-stream entry points
      // (few API names match; then integer lookups only).
      "UPDATE stream SET kind = 2 WHERE kind = 3 AND id IN ("
      " SELECT o.stream_id FROM (SELECT stream_id, correlation_id FROM kernel"
      "  UNION ALL SELECT stream_id, correlation_id FROM memcpy"
      "  UNION ALL SELECT stream_id, correlation_id FROM memset"
      "  UNION ALL SELECT stream_id, correlation_id FROM sync WHERE stream_id IS NOT NULL) o"
      " WHERE o.correlation_id IN (SELECT correlation_id FROM api_call WHERE name_id IN ("
      "  SELECT id FROM string WHERE value LIKE '%\\_ptsz%' ESCAPE '\\'"
      "   OR value LIKE '%\\_ptds%' ESCAPE '\\')));";
  if (stream_creation_tracked) {
    // A blocking-flag stream the application never created but used is
    // the per-thread default stream (e.g. used through
    // cudaStreamPerThread).
    // Streams CUPTI reports that the application neither created nor
    // used (driver/library internals) stay 'unknown'.
    classify +=
        "UPDATE stream SET kind = CASE WHEN id IN (SELECT stream_id FROM kernel"
        "  UNION SELECT stream_id FROM memcpy UNION SELECT stream_id FROM memset)"
        " THEN 2 ELSE 0 END"
        " WHERE kind = 3 AND id NOT IN (SELECT id FROM created_stream);";
  }
  return Exec(classify.c_str());
}

// ---- one record kind each ---------------------------------------------------

StatusOr<std::optional<int64_t>> TraceWriter::Db::InternOptional(std::string_view s) {
  if (s.empty()) return std::optional<int64_t>();
  auto id = Intern(s);
  if (!id.ok()) return id.status();
  return std::optional<int64_t>(*id);
}

bool TraceWriter::Db::Untimed(uint64_t start_ns, uint64_t end_ns) {
  if (start_ns != 0 && end_ns != 0) return false;
  writer->AddStat(Stat::kRecordsDroppedZeroTimestamp, 1);
  return true;
}

Status TraceWriter::Db::InsertRanges() {
  for (const NvtxRange& r : ranges) {
    // A START kept because a window opened just after it belongs to the
    // instance that opened the window; other ranges begun in that slack
    // (the quick steps before it) end before the window and are left out.
    if (windows.has_value() && r.end_ns.has_value() && !CaptureGate::Overlaps(*windows, r.start_ns, *r.end_ns)) {
      writer->AddStat(Stat::kRecordsOutsideCapture, 2);
      continue;
    }
    auto name = Intern(r.name);
    if (!name.ok()) return name.status();
    auto domain = InternOptional(r.domain);
    if (!domain.ok()) return domain.status();
    if (auto st = SeeThread(r.tid, writer->options_); !st.ok()) return st;
    ins_range.Int(1, r.tid)
        .Opt(2, r.end_tid)
        .Int(3, *name)
        .Opt(4, *domain)
        .Int(5, static_cast<int64_t>(r.start_ns))
        .Opt(6, r.end_ns)
        .Int(7, r.is_push_pop ? 1 : 0)
        .Opt(8, r.depth)
        .Opt(9, r.color)
        .Opt(10, r.category);
    if (auto st = ins_range.Step(); !st.ok()) return st;
    ++rows_written;
  }
  ranges.clear();
  return OkStatus();
}

Status TraceWriter::Db::Insert(const KernelRecord& r) {
  if (Untimed(r.start_ns, r.end_ns)) return OkStatus();
  auto name = Intern(r.name.empty() ? std::string_view("<unnamed>") : r.name);
  if (!name.ok()) return name.status();
  ++rows_written;
  return bulk_kernel.Add({V(r.start_ns), V(r.end_ns), V(r.device_id), V(r.context_id), V(r.stream_id),
                          V(r.correlation_id), V(*name), V(r.grid[0]), V(r.grid[1]), V(r.grid[2]), V(r.block[0]),
                          V(r.block[1]), V(r.block[2]), V(r.static_shared_bytes), V(r.dynamic_shared_bytes),
                          V(r.registers_per_thread), V(r.launch_type), V(r.graph.graph_id), V(r.graph.graph_node_id)});
}

Status TraceWriter::Db::Insert(const MemcpyRecord& r) {
  if (Untimed(r.start_ns, r.end_ns)) return OkStatus();
  ++rows_written;
  return bulk_memcpy.Add({V(r.start_ns), V(r.end_ns), V(r.device_id), V(r.context_id), V(r.stream_id),
                          V(r.correlation_id), V(static_cast<int64_t>(r.bytes)), V(r.copy_kind), V(r.src_kind),
                          V(r.dst_kind), V(r.is_async ? 1 : 0), V(r.src_device_id), V(r.dst_device_id),
                          V(r.src_context_id), V(r.dst_context_id), V(r.graph.graph_id), V(r.graph.graph_node_id)});
}

Status TraceWriter::Db::Insert(const MemsetRecord& r) {
  if (Untimed(r.start_ns, r.end_ns)) return OkStatus();
  ins_memset.Int(1, r.start_ns)
      .Int(2, r.end_ns)
      .Int(3, r.device_id)
      .Int(4, r.context_id)
      .Int(5, r.stream_id)
      .Int(6, r.correlation_id)
      .Int(7, static_cast<int64_t>(r.bytes))
      .Int(8, r.value)
      .Int(9, r.memory_kind)
      .Int(10, r.is_async ? 1 : 0)
      .Opt(11, r.graph.graph_id)
      .Opt(12, r.graph.graph_node_id);
  ++rows_written;
  return ins_memset.Step();
}

Status TraceWriter::Db::Insert(const GraphExecRecord& r) {
  ins_graph.Int(1, r.start_ns)
      .Int(2, r.end_ns)
      .Int(3, r.device_id)
      .Int(4, r.context_id)
      .Int(5, r.stream_id)
      .Int(6, r.correlation_id)
      .Int(7, r.graph_id);
  ++rows_written;
  return ins_graph.Step();
}

Status TraceWriter::Db::Insert(const ApiRecord& r) {
  uint64_t key = (static_cast<uint64_t>(r.domain) << 32) | r.cbid;
  auto it = api_names.find(key);
  int64_t name_id;
  if (it != api_names.end()) {
    name_id = it->second;
  } else {
    const WriterOptions& o = writer->options_;
    std::string name = o.api_name ? o.api_name(r.domain, r.cbid) : std::string();
    if (name.empty()) {
      name = StrCat(r.domain == ApiDomain::kRuntime ? "runtime" : "driver", "_cbid_", r.cbid);
    }
    auto id = Intern(name);
    if (!id.ok()) return id.status();
    name_id = *id;
    api_names.emplace(key, name_id);
  }
  if (auto st = SeeThread(r.tid, writer->options_); !st.ok()) return st;
  ++rows_written;
  return bulk_api.Add({V(static_cast<int>(r.domain)), V(r.cbid), V(name_id), V(r.tid), V(r.start_ns), V(r.end_ns),
                       V(r.correlation_id), V(r.return_value)});
}

Status TraceWriter::Db::Insert(const SyncRecord& r) {
  ins_sync.Int(1, r.kind)
      .Int(2, r.start_ns)
      .Int(3, r.end_ns)
      .Opt(4, r.context_id)
      .Opt(5, r.stream_id)
      .Opt(6, r.event_id)
      .Int(7, r.correlation_id)
      .Int(8, r.return_value);
  ++rows_written;
  return ins_sync.Step();
}

Status TraceWriter::Db::Insert(const MarkerRecord& r) {
  bool is_mark = false;
  nvtx.Add(r, &ranges, &is_mark);
  if (!is_mark) return InsertRanges();  // the ranges this marker completed, if any
  auto name = Intern(r.name);
  if (!name.ok()) return name.status();
  auto domain = InternOptional(r.domain);
  if (!domain.ok()) return domain.status();
  if (auto st = SeeThread(r.tid, writer->options_); !st.ok()) return st;
  ins_mark.Int(1, r.tid).Int(2, *name).Opt(3, *domain).Int(4, r.ts_ns);
  ++rows_written;
  return ins_mark.Step();
}

Status TraceWriter::Db::Insert(const MarkerDataRecord& r) {
  nvtx.AddData(r);  // folded into its range
  return OkStatus();
}

Status TraceWriter::Db::Insert(const StreamRecord& r) {
  int kind = r.cupti_flag == 3 ? 1 : r.cupti_flag == 2 ? 4 : r.cupti_flag == 1 ? 3 : 0;
  std::optional<uint32_t> device;
  if (auto it = context_device.find(r.context_id); it != context_device.end()) device = it->second;
  ins_stream.Int(1, r.stream_id)
      .Int(2, r.context_id)
      .Opt(3, device)
      .Int(4, kind)
      .Int(5, static_cast<int32_t>(r.priority))
      .Int(6, r.cupti_flag);
  ++rows_written;
  return ins_stream.Step();
}

Status TraceWriter::Db::Insert(const ContextRecord& r) {
  context_device[r.context_id] = r.device_id;
  ins_context.Int(1, r.context_id).Int(2, r.device_id).Int(3, r.null_stream_id);
  ++rows_written;
  return ins_context.Step();
}

Status TraceWriter::Db::Insert(const DeviceRecord& r) {
  ins_device.Int(1, r.id)
      .Text(2, r.name)
      .TextOrNull(3, r.uuid)
      .Opt(4, r.compute_major)
      .Opt(5, r.compute_minor)
      .Opt(6, r.sm_count)
      .Opt(7, r.async_engine_count)
      .Opt(8, r.concurrent_kernels)
      .Opt(9, r.global_memory_bytes)
      .Opt(10, r.global_memory_bandwidth_kbps)
      .Opt(11, r.global_memory_clock_khz)
      .Opt(12, r.max_threads_per_block)
      .Opt(13, r.max_shared_memory_per_block)
      .Opt(14, r.pci_bus_id)
      .Opt(15, r.pci_device_id);
  ++rows_written;
  return ins_device.Step();
}

Status TraceWriter::Db::Insert(const HostLinkRecord& r) {
  ins_device_link.Int(1, r.device_id)
      .TextOrNull(2, r.pci_bus_id)
      .Int(3, r.source)
      .Opt(4, r.pcie_gen_current)
      .Opt(5, r.pcie_width_current)
      .Opt(6, r.pcie_gen_max)
      .Opt(7, r.pcie_width_max)
      .Opt(8, r.c2c_enabled);
  ++rows_written;
  return ins_device_link.Step();
}

Status TraceWriter::Db::Insert(const OverheadRecord& r) {
  ins_overhead.Int(1, r.kind).Int(2, r.object_kind).Opt(3, r.object_id).Int(4, r.start_ns).Int(5, r.end_ns);
  ++rows_written;
  return ins_overhead.Step();
}

Status TraceWriter::Db::Insert(const NvtxStartEndRecord& r) {
  nvtx.MarkStartEnd(r);  // folded into its range
  writer->AddStat(Stat::kNvtxStartEndCalls, 1);
  return OkStatus();
}

Status TraceWriter::Db::Insert(const AllocationRecord& r) {
  ins_alloc.Int(1, static_cast<int64_t>(r.id))
      .Text(2, AllocationKindName(r.kind))
      .Int(3, static_cast<int64_t>(r.address))
      .Int(4, static_cast<int64_t>(r.bytes))
      .Opt(5, r.device_id)
      .Opt(6, r.stream_id)
      .Int(7, static_cast<int64_t>(r.alloc_ns))
      .Int(8, r.correlation_id);
  if (auto st = ins_alloc.Step(); !st.ok()) return st;
  ++rows_written;
  if (auto it = pending_frees.find(r.id); it != pending_frees.end()) {
    StatusOr<bool> applied = ApplyFree(it->second);
    if (!applied.ok()) return applied.status();
    pending_frees.erase(it);
  }
  return OkStatus();
}

Status TraceWriter::Db::Insert(const FreeRecord& r) {
  StatusOr<bool> applied = ApplyFree(r);  // applied to its allocation row
  if (!applied.ok()) return applied.status();
  if (!*applied) pending_frees.emplace(r.id, r);
  return OkStatus();
}

Status TraceWriter::Db::Insert(const MemoryAccessRecord& r) {
  ins_access.Int(1, r.correlation_id)
      .Int(2, static_cast<int64_t>(r.address))
      .Int(3, static_cast<int64_t>(r.bytes))
      .Text(4, AccessName(r.access))
      .Opt(5, r.allocation_id)
      .Opt(6, r.arg_index);
  ++rows_written;
  return ins_access.Step();
}

Status TraceWriter::Db::Insert(const EventOpRecord& r) {
  ins_event.Text(1, EventOpName(r.op))
      .Int(2, static_cast<int64_t>(r.event_handle))
      .Opt(3, r.other_event)
      .Opt(4, r.stream_id)
      .Int(5, r.tid)
      .Int(6, static_cast<int64_t>(r.ts_ns))
      .Int(7, r.correlation_id);
  if (r.elapsed_ms.has_value()) {
    ins_event.Real(8, *r.elapsed_ms);
  } else {
    ins_event.Null(8);
  }
  if (auto st = SeeThread(r.tid, writer->options_); !st.ok()) return st;
  ++rows_written;
  return ins_event.Step();
}

Status TraceWriter::Db::Insert(const StreamCreatedRecord& r) {
  created_streams.emplace(r.stream_id, r.tid);  // applied to its stream row at the end
  return OkStatus();
}

bool TraceWriter::IsEarlierImageTrace(const std::string& path, int64_t pid, int64_t process_start_wall_ns) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  sqlite3* db = nullptr;
  bool earlier = false;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 200);
    sqlite3_stmt* st_meta = nullptr;
    int64_t file_pid = -1, file_start = -1;
    if (sqlite3_prepare_v2(db, "SELECT key, value FROM metadata WHERE key IN ('pid', 'start_wall_time_ns')", -1,
                           &st_meta, nullptr) == SQLITE_OK) {
      while (sqlite3_step(st_meta) == SQLITE_ROW) {
        const char* key = reinterpret_cast<const char*>(sqlite3_column_text(st_meta, 0));
        int64_t value = sqlite3_column_int64(st_meta, 1);
        if (key != nullptr && std::string_view(key) == "pid") file_pid = value;
        if (key != nullptr && std::string_view(key) == "start_wall_time_ns") file_start = value;
      }
    }
    sqlite3_finalize(st_meta);
    constexpr int64_t kGranularityNs = 2'000'000'000;
    earlier = file_pid == pid && file_start >= 0 && file_start + kGranularityNs >= process_start_wall_ns;
  }
  sqlite3_close(db);
  return earlier;
}

}  // namespace streamscope::collector
