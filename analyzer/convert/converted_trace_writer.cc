#include "analyzer/convert/converted_trace_writer.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "nlohmann/json.hpp"
#include "schema/schema.h"

namespace streamscope {
namespace {

// One prepared INSERT, bound left to right: Int(..).Null().Text(..).Done().
class Insert {
 public:
  Insert(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Insert(const Insert&) = delete;
  ~Insert() { sqlite3_finalize(stmt_); }

  Insert& Int(int64_t v) { Check(sqlite3_bind_int64(stmt_, ++col_, v)); return *this; }
  Insert& Null() { Check(sqlite3_bind_null(stmt_, ++col_)); return *this; }
  // NULL when `v` is the model's "absent" value.
  Insert& IntOr(int64_t v, int64_t absent) { return v == absent ? Null() : Int(v); }
  Insert& Text(std::string_view v) {
    Check(sqlite3_bind_text(stmt_, ++col_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Insert& Real(double v) { Check(sqlite3_bind_double(stmt_, ++col_, v)); return *this; }

  absl::Status Done() {
    col_ = 0;
    int rc = bind_rc_ == SQLITE_OK ? sqlite3_step(stmt_) : bind_rc_;
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    bind_rc_ = SQLITE_OK;
    if (rc != SQLITE_DONE) {
      return absl::InternalError(absl::StrCat("writing the trace failed: ", sqlite3_errmsg(db_)));
    }
    return absl::OkStatus();
  }

 private:
  void Check(int rc) {
    if (rc != SQLITE_OK && bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  int col_ = 0;
  int bind_rc_ = SQLITE_OK;
};

absl::Status Exec(sqlite3* db, std::string_view sql) {
  std::string text(sql);
  char* error = nullptr;
  if (sqlite3_exec(db, text.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error != nullptr ? error : sqlite3_errmsg(db);
    sqlite3_free(error);
    return absl::InternalError(absl::StrCat("writing the trace failed: ", message));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Insert>> Prepare(sqlite3* db, std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    sqlite3_finalize(stmt);
    return absl::InternalError(
        absl::StrCat("preparing '", std::string(sql), "': ", sqlite3_errmsg(db)));
  }
  return std::make_unique<Insert>(db, stmt);
}

#define SS_RETURN_IF_ERROR(expr)              \
  do {                                        \
    absl::Status ss_status_ = (expr);         \
    if (!ss_status_.ok()) return ss_status_;  \
  } while (0)

#define SS_ASSIGN_OR_RETURN(lhs, expr)        \
  auto lhs##_or = (expr);                     \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = std::move(*lhs##_or)

// CUpti_ActivityMemcpyKind of a copy category (array and host-to-host copies
// are "other" in the model: written as 0, unknown).
int CopyKindFor(OpCategory c) {
  switch (c) {
    case OpCategory::kHtoD: return 1;
    case OpCategory::kDtoH: return 2;
    case OpCategory::kDtoD: return 8;
    case OpCategory::kPtoP: return 10;
    default: return 0;
  }
}

absl::Status WriteMetadata(sqlite3* db, const TraceModel& m, const TraceWriteOptions& options) {
  std::map<std::string, std::string> meta = m.metadata;
  meta["schema_version"] = absl::StrCat(schema::Version());
  meta["trace_format"] = options.trace_format;
  meta["source_format"] = m.format;
  if (!options.source_path.empty()) meta["source_path"] = options.source_path;
  meta["pid"] = absl::StrCat(m.pid);
  meta["capture_end"] = "normal_exit";  // the export was of a finished capture
  meta["conversion_notes"] = nlohmann::json(m.notes).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  meta["conversion_stats"] = nlohmann::json(m.import_stats).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  SS_ASSIGN_OR_RETURN(ins, Prepare(db, "INSERT INTO metadata(key, value) VALUES (?1, ?2)"));
  for (const auto& [key, value] : meta) SS_RETURN_IF_ERROR(ins->Text(key).Text(value).Done());
  return absl::OkStatus();
}

absl::Status WriteTopology(sqlite3* db, const TraceModel& m) {
  SS_ASSIGN_OR_RETURN(str, Prepare(db, "INSERT INTO string(id, value) VALUES (?1, ?2)"));
  for (size_t i = 0; i < m.strings.size(); ++i) {
    SS_RETURN_IF_ERROR(str->Int(static_cast<int64_t>(i)).Text(m.strings.Get(static_cast<StringId>(i))).Done());
  }
  SS_ASSIGN_OR_RETURN(dev, Prepare(db,
      "INSERT INTO device(id, name, uuid, compute_major, compute_minor, sm_count, "
      "async_engine_count, concurrent_kernels, global_memory_bytes) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  std::set<int32_t> written;
  for (const Device& d : m.devices) {
    if (!written.insert(d.id).second) continue;  // one row per ordinal
    SS_RETURN_IF_ERROR(dev->Int(d.id).Text(d.name).Text(d.uuid).Int(d.compute_major)
                           .Int(d.compute_minor).Int(d.sm_count).IntOr(d.async_engine_count, -1)
                           .IntOr(d.concurrent_kernels, -1).Int(d.global_memory_bytes).Done());
  }
  // Contexts come from the streams: device, and the legacy stream if known.
  struct Ctx { int32_t device = 0; int64_t null_stream = -1; };
  std::map<int64_t, Ctx> contexts;
  for (const Stream& s : m.streams) {
    Ctx& c = contexts[s.context_id];
    c.device = s.device_id;
    if (s.kind == StreamKind::kLegacyDefault) c.null_stream = s.id;
  }
  SS_ASSIGN_OR_RETURN(ctx, Prepare(db,
      "INSERT INTO context(id, device_id, null_stream_id) VALUES (?1, ?2, ?3)"));
  for (const auto& [id, c] : contexts) {
    SS_RETURN_IF_ERROR(ctx->Int(id).Int(c.device).IntOr(c.null_stream, -1).Done());
  }
  SS_ASSIGN_OR_RETURN(st, Prepare(db,
      "INSERT INTO stream(id, context_id, device_id, kind, priority) VALUES (?1, ?2, ?3, ?4, ?5)"));
  for (const Stream& s : m.streams) {
    st->Int(s.id).Int(s.context_id).Int(s.device_id).Int(static_cast<int>(s.kind));
    if (s.priority.has_value()) st->Int(*s.priority); else st->Null();
    SS_RETURN_IF_ERROR(st->Done());
  }
  std::map<int64_t, std::string_view> threads;
  for (int64_t tid : m.api.tid) threads.emplace(tid, std::string_view());
  for (const NvtxRange& r : m.nvtx_ranges) threads.emplace(r.tid, std::string_view());
  for (const auto& [tid, name] : m.thread_names) threads[tid] = name;
  SS_ASSIGN_OR_RETURN(th, Prepare(db, "INSERT INTO thread(tid, name) VALUES (?1, ?2)"));
  for (const auto& [tid, name] : threads) {
    th->Int(tid);
    if (name.empty()) th->Null(); else th->Text(name);
    SS_RETURN_IF_ERROR(th->Done());
  }
  return absl::OkStatus();
}

absl::Status WriteOps(sqlite3* db, const TraceModel& m) {
  SS_ASSIGN_OR_RETURN(kernel, Prepare(db,
      "INSERT INTO kernel(start_ns, end_ns, device_id, context_id, stream_id, correlation_id, "
      "name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, static_shared_bytes, "
      "dynamic_shared_bytes, registers_per_thread, graph_id) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)"));
  SS_ASSIGN_OR_RETURN(memcpy, Prepare(db,
      "INSERT INTO memcpy(start_ns, end_ns, device_id, context_id, stream_id, correlation_id, "
      "bytes, copy_kind, src_kind, dst_kind, is_async, src_device_id, dst_device_id, graph_id) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)"));
  SS_ASSIGN_OR_RETURN(memset, Prepare(db,
      "INSERT INTO memset(start_ns, end_ns, device_id, context_id, stream_id, correlation_id, "
      "bytes, memory_kind, is_async, graph_id) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)"));
  const GpuOps& ops = m.ops;
  const bool shapes = m.kernel_shapes.size() == ops.size();
  for (size_t i = 0; i < ops.size(); ++i) {
    const int32_t si = ops.stream[i];
    const bool has_stream = si >= 0 && static_cast<size_t>(si) < m.streams.size();
    const int64_t stream_id = has_stream ? m.streams[si].id : -1;
    const int64_t context_id = has_stream ? m.streams[si].context_id : -1;
    OpCategory c = ops.category[i];
    Insert* ins = c == OpCategory::kKernel ? kernel.get()
                  : c == OpCategory::kMemset ? memset.get() : memcpy.get();
    ins->Int(ops.start_ns[i]).Int(ops.end_ns[i]).Int(ops.device_id[i]).IntOr(context_id, -1)
        .IntOr(stream_id, -1).IntOr(ops.correlation_id[i], -1);
    if (c == OpCategory::kKernel) {
      StringId name = ops.name[i] == kNoString ? StringId{0} : ops.name[i];
      ins->Int(name);
      if (shapes) {
        const KernelShape& k = m.kernel_shapes[i];
        ins->Int(k.grid[0]).Int(k.grid[1]).Int(k.grid[2]).Int(k.block[0]).Int(k.block[1])
            .Int(k.block[2]).Int(k.shared_bytes).Int(0).Int(k.registers);
      } else {
        for (int n = 0; n < 9; ++n) ins->Null();
      }
    } else if (c == OpCategory::kMemset) {
      ins->Int(ops.bytes[i]).Int(static_cast<int>(ops.dst_kind[i])).Int(ops.is_async[i]);
    } else {
      ins->Int(ops.bytes[i]).Int(CopyKindFor(c)).Int(static_cast<int>(ops.src_kind[i]))
          .Int(static_cast<int>(ops.dst_kind[i])).Int(ops.is_async[i]);
      if (c == OpCategory::kPtoP && ops.peer_device[i] >= 0) {
        ins->Int(ops.device_id[i]).Int(ops.peer_device[i]);
      } else {
        ins->Null().Null();
      }
    }
    ins->IntOr(ops.graph_id[i], -1);
    SS_RETURN_IF_ERROR(ins->Done());
  }
  return absl::OkStatus();
}

absl::Status WriteHost(sqlite3* db, const TraceModel& m) {
  SS_ASSIGN_OR_RETURN(api, Prepare(db,
      "INSERT INTO api_call(domain, cbid, name_id, tid, start_ns, end_ns, correlation_id, "
      "return_value) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)"));
  for (size_t i = 0; i < m.api.size(); ++i) {
    SS_RETURN_IF_ERROR(api->Int(static_cast<int>(m.api.domain[i])).Int(m.api.cbid[i])
                           .Int(m.api.name[i]).Int(m.api.tid[i])
                           .Int(m.api.start_ns[i]).Int(m.api.end_ns[i])
                           .IntOr(m.api.correlation_id[i], -1).Int(m.api.return_value[i]).Done());
  }
  SS_ASSIGN_OR_RETURN(sync, Prepare(db,
      "INSERT INTO sync(kind, start_ns, end_ns, context_id, stream_id, event_id, correlation_id) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7)"));
  for (const SyncRecord& s : m.syncs) {
    const bool has_stream = s.stream >= 0 && static_cast<size_t>(s.stream) < m.streams.size();
    sync->Int(static_cast<int>(s.kind)).Int(s.start_ns).Int(s.end_ns);
    if (has_stream) {
      sync->Int(m.streams[s.stream].context_id).Int(m.streams[s.stream].id);
    } else {
      sync->Null().Null();
    }
    SS_RETURN_IF_ERROR(sync->IntOr(s.event_id, -1).IntOr(s.correlation_id, -1).Done());
  }
  SS_ASSIGN_OR_RETURN(range, Prepare(db,
      "INSERT INTO nvtx_range(tid, name_id, domain_id, start_ns, end_ns, is_push_pop, depth) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7)"));
  for (const NvtxRange& r : m.nvtx_ranges) {
    range->Int(r.tid).Int(r.name).IntOr(r.domain, kNoString).Int(r.start_ns);
    if (r.end_ns.has_value()) range->Int(*r.end_ns); else range->Null();
    SS_RETURN_IF_ERROR(range->Int(r.push_pop ? 1 : 0).Int(r.depth).Done());
  }
  SS_ASSIGN_OR_RETURN(mark, Prepare(db,
      "INSERT INTO nvtx_mark(tid, name_id, domain_id, ts_ns) VALUES (?1,?2,?3,?4)"));
  for (const NvtxMark& k : m.nvtx_marks) {
    SS_RETURN_IF_ERROR(
        mark->Int(k.tid).Int(k.name).IntOr(k.domain, kNoString).Int(k.ts_ns).Done());
  }
  return absl::OkStatus();
}

absl::Status WriteAll(sqlite3* db, const TraceModel& m, const TraceWriteOptions& options) {
  // A failed conversion deletes the file, so durability is not needed here.
  SS_RETURN_IF_ERROR(Exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"));
  SS_RETURN_IF_ERROR(Exec(db, schema::CreateSql()));
  SS_RETURN_IF_ERROR(Exec(db, "BEGIN"));
  SS_RETURN_IF_ERROR(WriteMetadata(db, m, options));
  SS_RETURN_IF_ERROR(WriteTopology(db, m));
  SS_RETURN_IF_ERROR(WriteOps(db, m));
  SS_RETURN_IF_ERROR(WriteHost(db, m));
  SS_RETURN_IF_ERROR(Exec(db, "COMMIT"));
  return Exec(db, schema::FinalizeSql());
}

// Names a model string that is always present, so NOT NULL name columns
// can point at it.
bool NeedsEmptyString(const TraceModel& m) {
  for (StringId id : m.api.name) if (id == kNoString) return true;
  for (const NvtxRange& r : m.nvtx_ranges) if (r.name == kNoString) return true;
  for (const NvtxMark& k : m.nvtx_marks) if (k.name == kNoString) return true;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.category[i] == OpCategory::kKernel && m.ops.name[i] == kNoString) return true;
  }
  return false;
}

}  // namespace

std::string ExpandOutputPattern(const std::string& pattern, int64_t pid) {
  return absl::StrReplaceAll(pattern, {{"%p", absl::StrCat(pid)}});
}

absl::Status WriteStreamscopeTrace(const TraceModel& model, const std::string& path,
                                   const TraceWriteOptions& options) {
  if (path.empty()) return absl::InvalidArgumentError("no output path given");
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      return absl::PermissionDeniedError(absl::StrCat(
          path, ": is a symbolic link; streamscope does not write through links"));
    }
    if (!S_ISREG(st.st_mode)) {
      return absl::PermissionDeniedError(absl::StrCat(path, ": exists and is not a regular file"));
    }
    if (!options.overwrite) {
      return absl::AlreadyExistsError(absl::StrCat(
          path, ": already exists; choose another name or pass --force to replace it"));
    }
  } else if (errno != ENOENT) {
    return absl::PermissionDeniedError(absl::StrCat(path, ": ", std::strerror(errno)));
  }

  // Build the database in a fresh file of our own next to the output.
  std::string tmp = absl::StrCat(path, ".tmp-XXXXXX");
  int fd = mkstemp(tmp.data());
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot create ", path, ": ",
                                                    std::strerror(errno)));
  }
  fchmod(fd, 0644);
  close(fd);
  auto fail = [&](absl::Status status) {
    unlink(tmp.c_str());
    return status;
  };

  // A model whose names may be absent gets an empty string to point at.
  const TraceModel* m = &model;
  TraceModel patched;
  if (NeedsEmptyString(model)) {
    patched = model;
    StringId empty = patched.strings.Intern("");
    for (StringId& id : patched.api.name) if (id == kNoString) id = empty;
    for (NvtxRange& r : patched.nvtx_ranges) if (r.name == kNoString) r.name = empty;
    for (NvtxMark& k : patched.nvtx_marks) if (k.name == kNoString) k.name = empty;
    for (size_t i = 0; i < patched.ops.size(); ++i) {
      if (patched.ops.category[i] == OpCategory::kKernel && patched.ops.name[i] == kNoString) {
        patched.ops.name[i] = empty;
      }
    }
    m = &patched;
  }

  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(tmp.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return fail(absl::PermissionDeniedError(absl::StrCat("cannot open ", tmp, ": ", message)));
  }
  absl::Status status = WriteAll(db, *m, options);
  if (sqlite3_close(db) != SQLITE_OK && status.ok()) {
    status = absl::InternalError(absl::StrCat("closing ", tmp, " failed"));
  }
  if (!status.ok()) return fail(status);

  // Put it in place: link() never follows or replaces what is at `path`.
  if (options.overwrite && lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      return fail(absl::PermissionDeniedError(absl::StrCat(path, ": is no longer a regular file")));
    }
    if (rename(tmp.c_str(), path.c_str()) != 0) {
      return fail(absl::PermissionDeniedError(absl::StrCat("cannot replace ", path, ": ",
                                                           std::strerror(errno))));
    }
    return absl::OkStatus();
  }
  if (link(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    return fail(err == EEXIST
                    ? absl::AlreadyExistsError(absl::StrCat(path, ": appeared while converting"))
                    : absl::PermissionDeniedError(absl::StrCat("cannot create ", path, ": ",
                                                               std::strerror(err))));
  }
  unlink(tmp.c_str());
  return absl::OkStatus();
}

}  // namespace streamscope
