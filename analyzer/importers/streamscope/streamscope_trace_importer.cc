// Importer for streamscope trace databases.
//
// Speed matters (10M GPU ops in a few seconds): every table is read with one
// plain prepared SELECT in row order (no ORDER BY, no reliance on indexes,
// which a killed collector never created), strings are interned once from
// the `string` table and rows refer to them by id, and the GPU-op tables and
// the API-call table are read on two threads through two read-only
// connections. Bad records are counted in model->import_stats (Perfetto
// style); a GPU op or API call whose times cannot be placed on the timeline
// (end before start, zero timestamp) is counted and left out of the model.
#include "analyzer/importers/streamscope/streamscope_trace_importer.h"
#include "analyzer/model/saturating.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/base/threads.h"
#include "analyzer/importers/model_column_reserve.h"
#include "analyzer/sqlite/sqlite_file_header.h"
#include "analyzer/sqlite/sqlite_table_scan.h"
#include "schema/enum_values.h"
#include "schema/schema.h"

namespace streamscope {
namespace {

// The model's enums carry the schema's values (read with a cast).
static_assert(static_cast<int64_t>(MemoryKind::kManagedStatic) == schema::memory_kind::kManagedStatic);
static_assert(static_cast<int64_t>(StreamKind::kNonBlocking) == schema::stream_kind::kNonBlocking);
static_assert(static_cast<int64_t>(SyncKind::kContextSynchronize) == schema::sync_kind::kContextSynchronize);
static_assert(static_cast<int64_t>(ApiDomain::kDriver) == schema::api_domain::kDriver);

// Source string ids -> pool ids. Dense ids (the collector's) use a vector.
class StringMap {
 public:
  void Add(int64_t source_id, StringId id) {
    if (source_id >= 0 && source_id < kDenseLimit) {
      if (static_cast<size_t>(source_id) >= dense_.size()) dense_.resize(source_id + 1, kNoString);
      dense_[source_id] = id;
    } else {
      sparse_[source_id] = id;
    }
  }
  // kNoString if the id is unknown.
  StringId Get(int64_t source_id) const {
    if (source_id >= 0 && static_cast<size_t>(source_id) < dense_.size()) return dense_[source_id];
    auto it = sparse_.find(source_id);
    return it == sparse_.end() ? kNoString : it->second;
  }

 private:
  static constexpr int64_t kDenseLimit = 1 << 24;
  std::vector<StringId> dense_;
  absl::flat_hash_map<int64_t, StringId> sparse_;
};

OpCategory CategoryForCopyKind(int64_t copy_kind) {
  switch (copy_kind) {
    case schema::copy_kind::kHtoD: return OpCategory::kHtoD;
    case schema::copy_kind::kDtoH: return OpCategory::kDtoH;
    case schema::copy_kind::kDtoD: return OpCategory::kDtoD;
    case schema::copy_kind::kPtoP: return OpCategory::kPtoP;
    case schema::copy_kind::kUvmHtoD: return OpCategory::kHtoD;
    case schema::copy_kind::kUvmDtoH: return OpCategory::kDtoH;
    case schema::copy_kind::kUvmDtoD: return OpCategory::kDtoD;
    default: return OpCategory::kOtherCopy;
  }
}

MemoryKind ToMemoryKind(int64_t v) {
  return v >= schema::memory_kind::kUnknown && v <= schema::memory_kind::kManagedStatic ? static_cast<MemoryKind>(v)
                                                                                        : MemoryKind::kUnknown;
}

// Upper bound on the rows of a table, to reserve columns once (growth by
// doubling would briefly need twice the memory). Bounded by the file size so
// that a forged huge rowid cannot make us reserve absurd amounts.
size_t RowEstimate(SqliteDb& db, std::string_view table, int64_t file_bytes) {
  auto max_rowid = db.QueryInt64("SELECT max(rowid) FROM " + std::string(table));
  if (!max_rowid.ok() || !max_rowid->has_value()) return 0;
  int64_t n = std::max<int64_t>(0, **max_rowid);
  return static_cast<size_t>(std::min(n, file_bytes / 16 + 1));
}

// Reads the GPU op tables into `ops` (a separate model-free builder so it can
// run on its own thread). Streams are resolved later, on the main thread.
struct OpReader {
  GpuOps ops;
  std::vector<int64_t> raw_stream;     // source stream id; INT64_MIN for NULL
  std::vector<uint8_t> kernel_blocks;  // per kernel read (they come first): KeptKernelBlocks
  std::map<std::string, int64_t> stats;
  absl::Status status;
  // Unified-memory migrations (converted exports): their name is interned
  // after the read, in place of kMigrationPending.
  static constexpr StringId kMigrationPending = -3;
  int64_t migrations = 0;
  size_t reserved_rows = 0;
  bool reserved_kernels = false;

  bool Accept(int64_t start, int64_t end) {
    if (start == 0 || end == 0) {
      ++stats["op_zero_timestamp"];
      return false;
    }
    if (!IsTraceTime(start) || !IsTraceTime(end)) {
      ++stats["op_time_out_of_range"];
      return false;
    }
    if (end < start) {
      ++stats["op_end_before_start"];
      return false;
    }
    return true;
  }

  void Push(int64_t id, int64_t start, int64_t end, OpCategory cat, int64_t device, std::optional<int64_t> stream,
            std::optional<int64_t> corr, StringId name, int64_t bytes, MemoryKind src, MemoryKind dst, bool is_async,
            int32_t peer, std::optional<int64_t> graph) {
    ops.start_ns.push_back(start);
    ops.end_ns.push_back(end);
    ops.category.push_back(cat);
    ops.device_id.push_back(static_cast<int32_t>(device));
    raw_stream.push_back(stream.value_or(INT64_MIN));
    ops.stream.push_back(-1);
    ops.correlation_id.push_back(corr.value_or(-1));
    ops.name.push_back(name);
    ops.bytes.push_back(bytes);
    ops.src_kind.push_back(src);
    ops.dst_kind.push_back(dst);
    ops.is_async.push_back(is_async ? 1 : 0);
    ops.peer_device.push_back(peer);
    ops.graph_id.push_back(graph.value_or(-1));
    ops.source_id.push_back(id);
  }

  // Room for n rows; a reader of no kernels keeps no kernels' blocks.
  void Reserve(size_t n, bool kernels) {
    reserved_rows = n;
    reserved_kernels = kernels;
    ReserveOpColumns(ops, n);
    raw_stream.reserve(n);
    if (kernels) kernel_blocks.reserve(n);
  }
  // Drops every row read, keeping the room (a direct read refused midway).
  void Restart() {
    const size_t n = reserved_rows;
    const bool kernels = reserved_kernels;
    *this = OpReader();
    Reserve(n, kernels);
  }

  // The kernels; the copies and memsets are ReadCopiesAndMemsets', beside it.
  absl::Status ReadKernels(SqliteDb& db, const StringMap& names) {
    return ReadDirectOrThroughSqlite(
        db, [&] { Restart(); },
        [&](TableReader& tables) {
          return tables.Read("kernel",
                             {"id", "start_ns", "end_ns", "device_id", "stream_id", "correlation_id", "name_id",
                              "graph_id", "grid_x", "grid_y", "grid_z"},
                             [&](const auto& r) {
                               int64_t start = r.Int64(1), end = r.Int64(2);
                               if (!Accept(start, end)) return;
                               StringId name = names.Get(r.Int64(6));
                               if (name == kNoString) ++stats["kernel_unknown_name"];
                               Push(r.Int64(0), start, end, OpCategory::kKernel, r.Int64(3), r.OptionalInt64(4),
                                    r.OptionalInt64(5), name, 0, MemoryKind::kUnknown, MemoryKind::kUnknown, true, -1,
                                    r.OptionalInt64(7));
                               // NULL reads as 0: unknown.
                               kernel_blocks.push_back(KeptKernelBlocks(r.Int64(8), r.Int64(9), r.Int64(10)));
                             });
        });
  }

  absl::Status ReadCopiesAndMemsets(SqliteDb& db) {
    return ReadDirectOrThroughSqlite(
        db, [&] { Restart(); }, [&](TableReader& tables) { return ReadCopyTables(tables); });
  }
  absl::Status ReadCopyTables(TableReader& tables) {
    absl::Status s = tables.Read(
        "memcpy",
        {"id", "start_ns", "end_ns", "device_id", "stream_id", "correlation_id", "bytes", "copy_kind", "src_kind",
         "dst_kind", "is_async", "src_device_id", "dst_device_id", "graph_id"},
        [&](const auto& r) {
          int64_t start = r.Int64(1), end = r.Int64(2);
          if (!Accept(start, end)) return;
          int64_t device = r.Int64(3);
          const int64_t copy_kind = r.Int64(7);
          OpCategory cat = CategoryForCopyKind(copy_kind);
          if (cat == OpCategory::kOtherCopy &&
              (copy_kind < schema::copy_kind::kUnknown || copy_kind > schema::copy_kind::kUvmDtoD)) {
            ++stats["copy_kind_unknown"];  // not in enum_copy_kind: kept as other_copy
          }
          // Migrations are named once the op thread is done (the pool is
          // not this thread's to change).
          const bool migration = copy_kind >= schema::copy_kind::kUvmHtoD && copy_kind <= schema::copy_kind::kUvmDtoD;
          if (migration) ++migrations;
          int32_t peer = -1;
          if (cat == OpCategory::kPtoP) {
            auto src = r.OptionalInt64(11), dst = r.OptionalInt64(12);
            if (src && *src != device)
              peer = static_cast<int32_t>(*src);
            else if (dst && *dst != device)
              peer = static_cast<int32_t>(*dst);
          }
          Push(r.Int64(0), start, end, cat, device, r.OptionalInt64(4), r.OptionalInt64(5),
               migration ? kMigrationPending : kNoString, r.Int64(6), ToMemoryKind(r.Int64(8)),
               ToMemoryKind(r.Int64(9)), r.Int64(10) != 0, peer, r.OptionalInt64(13));
        });
    if (!s.ok()) return s;
    return tables.Read("memset",
                       {"id", "start_ns", "end_ns", "device_id", "stream_id", "correlation_id", "bytes", "memory_kind",
                        "is_async", "graph_id"},
                       [&](const auto& r) {
                         int64_t start = r.Int64(1), end = r.Int64(2);
                         if (!Accept(start, end)) return;
                         Push(r.Int64(0), start, end, OpCategory::kMemset, r.Int64(3), r.OptionalInt64(4),
                              r.OptionalInt64(5), kNoString, r.Int64(6), MemoryKind::kUnknown, ToMemoryKind(r.Int64(7)),
                              r.Int64(8) != 0, -1, r.OptionalInt64(9));
                       });
  }

  // Appends what `other` read after this reader's rows, as if read here
  // (each value pushed in turn: a narrow column widens where it would have).
  void Append(OpReader& other) {
    ForEachOpColumn(
        [](auto& to, const auto& from) {
          for (auto v : from) to.push_back(v);
        },
        ops, other.ops);
    raw_stream.insert(raw_stream.end(), other.raw_stream.begin(), other.raw_stream.end());
    kernel_blocks.insert(kernel_blocks.end(), other.kernel_blocks.begin(), other.kernel_blocks.end());
    for (const auto& [k, v] : other.stats) stats[k] += v;
    migrations += other.migrations;
    other = OpReader();
  }
};

// Into `api`, its room for `rows` made by the caller (made again if a
// direct read is refused midway).
absl::Status ReadApiCalls(SqliteDb& db, const StringMap& names, size_t rows, ApiCalls* api,
                          std::map<std::string, int64_t>* stats) {
  auto restart = [&] {
    *api = ApiCalls();
    ReserveApiColumns(*api, rows);
    stats->clear();
  };
  return ReadDirectOrThroughSqlite(db, restart, [&](TableReader& tables) {
    return tables.Read(
        "api_call", {"id", "domain", "cbid", "name_id", "tid", "start_ns", "end_ns", "correlation_id", "return_value"},
        [&](const auto& r) {
          int64_t start = r.Int64(5), end = r.Int64(6);
          if (start == 0 || end == 0) {
            ++(*stats)["api_zero_timestamp"];
            return;
          }
          if (!IsTraceTime(start) || !IsTraceTime(end)) {
            ++(*stats)["api_time_out_of_range"];
            return;
          }
          if (end < start) {
            ++(*stats)["api_end_before_start"];
            return;
          }
          StringId name = names.Get(r.Int64(3));
          if (name == kNoString) ++(*stats)["api_unknown_name"];
          api->source_id.push_back(r.Int64(0));
          api->domain.push_back(r.Int64(1) == schema::api_domain::kDriver ? ApiDomain::kDriver : ApiDomain::kRuntime);
          api->cbid.push_back(static_cast<int32_t>(r.Int64(2)));
          api->name.push_back(name);
          api->tid.push_back(r.Int64(4));
          api->start_ns.push_back(start);
          api->end_ns.push_back(end);
          api->correlation_id.push_back(r.OptionalInt64(7).value_or(-1));
          api->return_value.push_back(static_cast<int32_t>(r.Int64(8)));
        });
  });
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

absl::Status CheckVersion(SqliteDb& db, TraceModel* model) {
  const std::string& path = db.path();
  auto user_version = db.QueryInt64("PRAGMA user_version");
  if (!user_version.ok()) return user_version.status();
  std::optional<int64_t> version;
  std::string stated;
  bool has_stated = false;
  absl::Status s =
      db.ForEachRow("SELECT value FROM metadata WHERE key = 'schema_version'", [&](const SqliteStatement& r) {
        if (has_stated) return;
        has_stated = true;
        stated = std::string(r.Text(0));
      });
  if (!s.ok()) return s;
  if (has_stated) {
    version = ParseInt(stated);
    if (!version) {
      return absl::FailedPreconditionError(absl::StrCat(path, ": unreadable trace schema version '", stated,
                                                        "' in metadata; this build of "
                                                        "streamscope reads schema version ",
                                                        schema::Version()));
    }
  } else if (user_version->value_or(0) != 0) {
    version = **user_version;
  }
  if (!version) {
    return absl::FailedPreconditionError(
        absl::StrCat(path,
                     ": trace has no schema version (metadata 'schema_version' and PRAGMA user_version "
                     "are unset); this build of streamscope reads schema version ",
                     schema::Version()));
  }
  const int want = schema::Version();
  if (*version < schema::OldestReadableVersion()) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": trace schema version ", *version,
                                                      " is older than the versions this build of "
                                                      "streamscope reads (",
                                                      schema::OldestReadableVersion(), " to ", want,
                                                      "); re-record the trace with this version"));
  }
  if (*version > want) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": trace schema version ", *version,
                                                      " is newer than the version this build of "
                                                      "streamscope reads (",
                                                      want, "); use a newer streamscope"));
  }
  if (user_version->value_or(0) != 0 && **user_version != *version) {
    model->notes.push_back(absl::StrCat("PRAGMA user_version (", **user_version,
                                        ") differs from metadata schema_version (", *version, "); metadata was used"));
    ++model->import_stats["schema_version_mismatch"];
  }
  return absl::OkStatus();
}

// A file cut short (copied while written, disk full) keeps a header that
// claims more pages than the file holds; SQLite would only notice on the
// page it cannot read. The header's size field is trusted only when it is
// current (SQLite's own rule, ReadSqliteFileHeader).
absl::Status CheckNotTruncated(const std::string& path) {
  const std::optional<SqliteFileHeader> h = ReadSqliteFileHeader(path);
  if (!h) return absl::OkStatus();  // the open already succeeded; let SQLite speak
  if (!h->complete) {
    return absl::DataLossError(
        absl::StrCat(path, ": truncated SQLite file (", h->file_bytes, " bytes, shorter than its header)"));
  }
  if (!h->pages) return absl::OkStatus();
  const int64_t expected = int64_t{*h->pages} * h->page_size;
  if (h->file_bytes < expected) {
    return absl::DataLossError(
        absl::StrCat(path, ": truncated trace: the file has ", h->file_bytes, " bytes but its header says ", expected));
  }
  return absl::OkStatus();
}

absl::Status CheckTables(SqliteDb& db) {
  int count = 0;
  const std::string_view* tables = schema::RequiredTables(&count);
  std::vector<std::string> missing;
  for (int i = 0; i < count; ++i) {
    if (!db.HasTable(tables[i])) missing.emplace_back(tables[i]);
  }
  if (missing.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(db.path(), ": not a complete streamscope trace: missing table",
                                                 missing.size() > 1 ? "s " : " ", absl::StrJoin(missing, ", ")));
}

// device_link (optional in every version: older traces and conversions have
// none). A row for a device the trace does not list is counted, not kept.
absl::Status ReadHostLinks(SqliteDb& db, TraceModel* model) {
  if (!db.HasTable("device_link")) return absl::OkStatus();
  auto figure = [](const SqliteStatement& r, int col) {
    std::optional<int64_t> v = r.OptionalInt64(col);
    return v && *v >= 0 && *v <= 64 ? static_cast<int32_t>(*v) : -1;
  };
  return db.ForEachRow(
      "SELECT l.device_id, COALESCE(e.name, 'unknown'), l.pcie_gen_current, l.pcie_width_current, "
      "l.pcie_gen_max, l.pcie_width_max, l.c2c_enabled FROM device_link l "
      "LEFT JOIN enum_link_source e ON e.value = l.source",
      [&](const SqliteStatement& r) {
        const int64_t id = r.Int64(0);
        Device* d = nullptr;
        for (Device& dev : model->devices) {
          if (dev.id == id) d = &dev;
        }
        if (d == nullptr) {
          ++model->import_stats["device_link_unknown_device"];
          return;
        }
        d->link.recorded = true;
        d->link.source = std::string(r.Text(1));
        d->link.pcie_gen_current = figure(r, 2);
        d->link.pcie_width_current = figure(r, 3);
        d->link.pcie_gen_max = figure(r, 4);
        d->link.pcie_width_max = figure(r, 5);
        std::optional<int64_t> c2c = r.OptionalInt64(6);
        d->link.c2c_enabled = c2c ? (*c2c != 0 ? 1 : 0) : -1;
      });
}

// The metadata (and the pid it names) and the collector's statistics.
absl::Status ReadMetadataAndStats(SqliteDb& db, TraceModel* model) {
  absl::Status s = db.ForEachRow("SELECT key, value FROM metadata", [&](const SqliteStatement& r) {
    model->metadata[std::string(r.Text(0))] = std::string(r.Text(1));
  });
  if (!s.ok()) return s;
  if (auto it = model->metadata.find("pid"); it != model->metadata.end()) {
    model->pid = ParseInt(it->second).value_or(0);
  }
  s = db.ForEachRow("SELECT key, value FROM collector_stat",
                    [&](const SqliteStatement& r) { model->collector_stats[std::string(r.Text(0))] = r.Int64(1); });
  return s;
}

// Devices (and their host links), contexts and streams; `known_devices` gets the ids described.
absl::Status ReadDevicesAndStreams(SqliteDb& db, TraceModel* model, absl::flat_hash_set<int32_t>* known_devices) {
  absl::Status s = db.ForEachRow(
      "SELECT id, name, uuid, compute_major, compute_minor, sm_count, "
      "async_engine_count, concurrent_kernels, global_memory_bytes FROM device",
      [&](const SqliteStatement& r) {
        Device d;
        d.id = static_cast<int32_t>(r.Int64(0));
        d.name = std::string(r.Text(1));
        d.uuid = std::string(r.Text(2));
        d.compute_major = static_cast<int32_t>(r.Int64(3));
        d.compute_minor = static_cast<int32_t>(r.Int64(4));
        d.sm_count = static_cast<int32_t>(r.Int64(5));
        d.async_engine_count = static_cast<int32_t>(r.OptionalInt64(6).value_or(-1));
        d.concurrent_kernels = static_cast<int32_t>(r.OptionalInt64(7).value_or(-1));
        d.global_memory_bytes = r.Int64(8);
        known_devices->insert(d.id);
        model->devices.push_back(std::move(d));
      });
  if (!s.ok()) return s;
  if (absl::Status link = ReadHostLinks(db, model); !link.ok()) return link;
  absl::flat_hash_map<int64_t, int32_t> context_device;
  s = db.ForEachRow("SELECT id, device_id FROM context",
                    [&](const SqliteStatement& r) { context_device[r.Int64(0)] = static_cast<int32_t>(r.Int64(1)); });
  if (!s.ok()) return s;
  s = db.ForEachRow("SELECT id, context_id, device_id, kind, priority FROM stream", [&](const SqliteStatement& r) {
    Stream st;
    st.id = r.Int64(0);
    st.context_id = r.Int64(1);
    auto dev = r.OptionalInt64(2);
    if (!dev) {
      auto it = context_device.find(st.context_id);
      dev = it == context_device.end() ? 0 : it->second;
    }
    st.device_id = static_cast<int32_t>(*dev);
    int64_t kind = r.Int64(3);
    st.kind = kind >= schema::stream_kind::kUnknown && kind <= schema::stream_kind::kNonBlocking
                  ? static_cast<StreamKind>(kind)
                  : StreamKind::kUnknown;
    if (auto p = r.OptionalInt64(4)) st.priority = static_cast<int32_t>(*p);
    if (model->stream_index.contains(st.id)) {
      ++model->import_stats["stream_duplicate"];
      return;
    }
    model->stream_index[st.id] = static_cast<int32_t>(model->streams.size());
    model->streams.push_back(st);
  });
  return s;
}

// Moves the ops read into the model, resolves their streams and checks their
// devices (caching the last stream: ops of one stream tend to come in runs).
void ResolveOpStreams(OpReader* op_reader, const absl::flat_hash_set<int32_t>& known_devices, TraceModel* model) {
  model->ops = std::move(op_reader->ops);
  GpuOps& ops = model->ops;
  // Kernels were read first; copies and memsets have none.
  model->kernel_blocks = std::move(op_reader->kernel_blocks);
  model->kernel_blocks.resize(ops.size(), 0);
  if (op_reader->migrations > 0) {
    const StringId name = model->strings.Intern(schema::copy_kind::kMigrationOpName);
    for (size_t i = 0; i < ops.name.size(); ++i) {
      if (ops.name[i] == OpReader::kMigrationPending) ops.name.Set(i, name);
    }
  }
  int64_t last_raw = INT64_MIN + 1;
  int32_t last_index = -1;
  bool last_unknown = false;
  // A recording started inside a running process (streamscope_record_start,
  // injection 'api') never saw the streams created before it: their ops are
  // expected, not inconsistent.
  auto injection = model->metadata.find("injection");
  const bool attached = injection != model->metadata.end() && injection->second == "api";
  const char* unknown_stream_stat = attached ? "op_stream_created_before_recording" : "op_unknown_stream";
  absl::flat_hash_set<int64_t> undescribed_streams;
  absl::flat_hash_set<int32_t> missing_devices;
  for (size_t i = 0; i < ops.size(); ++i) {
    int64_t raw = op_reader->raw_stream[i];
    if (raw == INT64_MIN) {
      ++model->import_stats["op_without_stream"];
      raw = -1;
    }
    if (raw != last_raw) {
      if (!model->stream_index.contains(raw)) undescribed_streams.insert(raw);
      last_unknown = undescribed_streams.contains(raw);
      last_index = model->StreamIndexFor(raw, ops.device_id[i]);
      last_raw = raw;
    }
    if (last_unknown && raw != -1) ++model->import_stats[unknown_stream_stat];
    ops.stream.Set(i, last_index);
    if (!known_devices.contains(ops.device_id[i])) {
      ++model->import_stats["op_unknown_device"];
      missing_devices.insert(ops.device_id[i]);
    }
  }
  op_reader->raw_stream = {};
  // A stream that was described with no device: its ops say which.
  for (int32_t dev : missing_devices) {
    Device d;
    d.id = dev;
    d.name = "(device not described in the trace)";
    model->devices.push_back(d);
  }
  std::sort(model->devices.begin(), model->devices.end(), [](const Device& a, const Device& b) { return a.id < b.id; });
}

// Thread names and explicit synchronizations.
absl::Status ReadThreadsAndSyncs(SqliteDb& db, TraceModel* model) {
  absl::Status s = db.ForEachRow("SELECT tid, name FROM thread", [&](const SqliteStatement& r) {
    if (!r.IsNull(1)) model->thread_names[r.Int64(0)] = std::string(r.Text(1));
  });
  if (!s.ok()) return s;

  s = db.ForEachRow("SELECT id, kind, start_ns, end_ns, stream_id, event_id, correlation_id FROM sync",
                    [&](const SqliteStatement& r) {
                      SyncRecord rec;
                      rec.source_id = r.Int64(0);
                      int64_t kind = r.Int64(1);
                      rec.kind = kind >= schema::sync_kind::kUnknown && kind <= schema::sync_kind::kContextSynchronize
                                     ? static_cast<SyncKind>(kind)
                                     : SyncKind::kUnknown;
                      rec.start_ns = r.Int64(2);
                      rec.end_ns = r.Int64(3);
                      if (rec.start_ns == 0 || rec.end_ns == 0) {
                        ++model->import_stats["sync_zero_timestamp"];
                        return;
                      }
                      if (!IsTraceTime(rec.start_ns) || !IsTraceTime(rec.end_ns)) {
                        ++model->import_stats["sync_time_out_of_range"];
                        return;
                      }
                      if (rec.end_ns < rec.start_ns) {
                        ++model->import_stats["sync_end_before_start"];
                        return;
                      }
                      if (auto sid = r.OptionalInt64(4)) {
                        auto it = model->stream_index.find(*sid);
                        if (it != model->stream_index.end())
                          rec.stream = it->second;
                        else
                          ++model->import_stats["sync_unknown_stream"];
                      }
                      rec.event_id = r.OptionalInt64(5).value_or(-1);
                      rec.correlation_id = r.OptionalInt64(6).value_or(-1);
                      model->syncs.push_back(rec);
                    });
  return s;
}

// NVTX ranges and marks.
absl::Status ReadNvtx(SqliteDb& db, const StringMap& names, TraceModel* model) {
  absl::Status s = db.ForEachRow(
      "SELECT id, tid, name_id, domain_id, start_ns, end_ns, is_push_pop, depth "
      "FROM nvtx_range",
      [&](const SqliteStatement& r) {
        NvtxRange range;
        range.source_id = r.Int64(0);
        range.tid = r.Int64(1);
        range.name = names.Get(r.Int64(2));
        if (range.name == kNoString) ++model->import_stats["nvtx_unknown_name"];
        if (!r.IsNull(3)) range.domain = names.Get(r.Int64(3));
        range.start_ns = r.Int64(4);
        range.end_ns = r.OptionalInt64(5);
        if (range.start_ns == 0) {
          ++model->import_stats["nvtx_zero_timestamp"];
          return;
        }
        if (!IsTraceTime(range.start_ns) || (range.end_ns && !IsTraceTime(*range.end_ns))) {
          ++model->import_stats["nvtx_time_out_of_range"];
          return;
        }
        if (range.end_ns && *range.end_ns < range.start_ns) {
          ++model->import_stats["nvtx_end_before_start"];
          return;
        }
        range.push_pop = r.Int64(6) != 0;
        range.depth = static_cast<int32_t>(r.Int64(7));
        model->nvtx_ranges.push_back(range);
      });
  if (!s.ok()) return s;
  s = db.ForEachRow("SELECT tid, name_id, domain_id, ts_ns FROM nvtx_mark", [&](const SqliteStatement& r) {
    NvtxMark mark;
    mark.tid = r.Int64(0);
    mark.name = names.Get(r.Int64(1));
    if (!r.IsNull(2)) mark.domain = names.Get(r.Int64(2));
    mark.ts_ns = r.Int64(3);
    model->nvtx_marks.push_back(mark);
  });
  return s;
}

// CUDA event records, waits, synchronizations, queries and elapsed times.
absl::Status ReadEventOps(SqliteDb& db, TraceModel* model) {
  absl::Status s = db.ForEachRow(
      "SELECT op, event_handle, other_event, stream_id, tid, ts_ns, correlation_id, "
      "elapsed_ms FROM event_op",
      [&](const SqliteStatement& r) {
        EventOp e;
        std::string_view op = r.Text(0);
        if (op == "record")
          e.op = EventOp::Op::kRecord;
        else if (op == "wait")
          e.op = EventOp::Op::kWait;
        else if (op == "synchronize")
          e.op = EventOp::Op::kSynchronize;
        else if (op == "query")
          e.op = EventOp::Op::kQuery;
        else if (op == "elapsed")
          e.op = EventOp::Op::kElapsed;
        else {
          ++model->import_stats["event_op_unknown_kind"];
          return;
        }
        e.event_handle = r.Int64(1);
        e.other_event = r.Int64(2);
        if (auto sid = r.OptionalInt64(3)) {
          auto it = model->stream_index.find(*sid);
          if (it != model->stream_index.end()) e.stream = it->second;
        }
        e.tid = r.Int64(4);
        e.ts_ns = r.Int64(5);
        e.correlation_id = r.OptionalInt64(6).value_or(-1);
        e.elapsed_ms = r.Double(7);
        model->event_ops.push_back(e);
      });
  return s;
}

// Allocations and the memory accesses that point into them.
absl::Status ReadMemory(SqliteDb& db, TraceModel* model) {
  absl::flat_hash_map<int64_t, int64_t> allocation_index;
  absl::Status s = db.ForEachRow(
      "SELECT id, kind, address, bytes, device_id, alloc_ns, alloc_correlation_id, "
      "free_ns, free_correlation_id FROM allocation",
      [&](const SqliteStatement& r) {
        Allocation a;
        a.source_id = r.Int64(0);
        a.kind = std::string(r.Text(1));
        a.address = static_cast<uint64_t>(r.Int64(2));
        a.bytes = static_cast<uint64_t>(r.Int64(3));
        a.device_id = static_cast<int32_t>(r.OptionalInt64(4).value_or(-1));
        a.alloc_ns = r.Int64(5);
        a.alloc_correlation_id = r.OptionalInt64(6).value_or(-1);
        a.free_ns = r.OptionalInt64(7);
        a.free_correlation_id = r.OptionalInt64(8).value_or(-1);
        allocation_index[a.source_id] = static_cast<int64_t>(model->allocations.size());
        model->allocations.push_back(std::move(a));
      });
  if (!s.ok()) return s;
  s = db.ForEachRow(
      "SELECT correlation_id, address, bytes, access, allocation_id, arg_index "
      "FROM memory_access",
      [&](const SqliteStatement& r) {
        MemoryAccess m;
        m.correlation_id = r.Int64(0);
        m.address = static_cast<uint64_t>(r.Int64(1));
        m.bytes = static_cast<uint64_t>(r.Int64(2));
        std::string_view access = r.Text(3);
        m.access = access == "read"    ? MemoryAccess::Access::kRead
                   : access == "write" ? MemoryAccess::Access::kWrite
                                       : MemoryAccess::Access::kUnknown;
        if (auto aid = r.OptionalInt64(4)) {
          auto it = allocation_index.find(*aid);
          if (it != allocation_index.end()) m.allocation = it->second;
        }
        m.arg_index = static_cast<int32_t>(r.OptionalInt64(5).value_or(-1));
        model->memory_accesses.push_back(m);
      });
  return s;
}

// Notes about what is absent.
void AddAbsenceNotes(TraceModel* model) {
  auto capture_end = model->metadata.find("capture_end");
  if (capture_end == model->metadata.end() || capture_end->second.empty()) {
    model->notes.push_back("metadata has no capture_end: how capture ended is unknown");
  }  // 'running' and abnormal ends are warnings of the trace summary.
  if (model->ops.size() == 0) model->notes.push_back("no GPU operations recorded");
  if (model->api.size() == 0) model->notes.push_back("no CUDA API calls recorded");
  if (model->nvtx_ranges.empty()) model->notes.push_back("no NVTX ranges recorded");
}

}  // namespace

bool LooksLikeStreamscopeTrace(SqliteDb& db) { return db.HasTable("metadata"); }

absl::Status ImportStreamscopeTrace(SqliteDb& db, TraceModel* model) {
  if (absl::Status s = CheckNotTruncated(db.path()); !s.ok()) return s;
  if (absl::Status s = CheckVersion(db, model); !s.ok()) return s;
  if (absl::Status s = CheckTables(db); !s.ok()) return s;
  model->format = "streamscope";

  absl::Status s = ReadMetadataAndStats(db, model);
  if (!s.ok()) return s;

  StringMap names;
  s = db.ForEachRow("SELECT id, value FROM string",
                    [&](const SqliteStatement& r) { names.Add(r.Int64(0), model->strings.Intern(r.Text(1))); });
  if (!s.ok()) return s;

  struct stat file_stat;
  int64_t file_bytes = stat(db.path().c_str(), &file_stat) == 0 ? file_stat.st_size : 0;

  // The kernels and the copies and memsets on two threads, each with its
  // own connection; API calls here. The copies are appended to the kernels
  // afterwards: the rows come in the order one reader would read them. Read
  // after the kernels on one thread, they kept it busy a second after the
  // API calls were done (10M ops). Columns are reserved in this order: the
  // model's ops', its API calls', then the copies' own, which last only
  // until appended: past the heap budget (a long run in little memory) the
  // arrays reserved last go to spill files, and those should be the copies'.
  const size_t copy_rows = RowEstimate(db, "memcpy", file_bytes) + RowEstimate(db, "memset", file_bytes);
  OpReader op_reader, copy_reader;
  op_reader.Reserve(RowEstimate(db, "kernel", file_bytes) + copy_rows, true);
  const size_t api_rows = RowEstimate(db, "api_call", file_bytes);
  ReserveApiColumns(model->api, api_rows);
  copy_reader.Reserve(copy_rows, false);
  auto op_db = SqliteDb::OpenReadOnly(db.path());
  if (!op_db.ok()) return op_db.status();
  auto copy_db = SqliteDb::OpenReadOnly(db.path());
  if (!copy_db.ok()) return copy_db.status();
  TaskThreads op_threads;
  op_threads.Start([&] { op_reader.status = op_reader.ReadKernels(**op_db, names); });
  op_threads.Start([&] { copy_reader.status = copy_reader.ReadCopiesAndMemsets(**copy_db); });
  std::map<std::string, int64_t> api_stats;
  absl::Status api_status = ReadApiCalls(db, names, api_rows, &model->api, &api_stats);
  op_threads.Join();
  if (!op_reader.status.ok()) return op_reader.status;
  if (!copy_reader.status.ok()) return copy_reader.status;
  if (!api_status.ok()) return api_status;
  op_reader.Append(copy_reader);
  for (auto& [k, v] : op_reader.stats) model->import_stats[k] += v;
  for (auto& [k, v] : api_stats) model->import_stats[k] += v;

  absl::flat_hash_set<int32_t> known_devices;
  if (absl::Status st = ReadDevicesAndStreams(db, model, &known_devices); !st.ok()) return st;
  ResolveOpStreams(&op_reader, known_devices, model);
  if (absl::Status st = ReadThreadsAndSyncs(db, model); !st.ok()) return st;
  if (absl::Status st = ReadNvtx(db, names, model); !st.ok()) return st;
  if (absl::Status st = ReadEventOps(db, model); !st.ok()) return st;
  if (absl::Status st = ReadMemory(db, model); !st.ok()) return st;
  AddAbsenceNotes(model);
  return absl::OkStatus();
}

}  // namespace streamscope
