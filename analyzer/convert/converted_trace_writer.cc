#include "analyzer/convert/converted_trace_writer.h"

#include <fcntl.h>
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
#include "analyzer/sqlite/sqlite_db.h"
#include "nlohmann/json.hpp"
#include "schema/enum_values.h"
#include "schema/schema.h"

namespace streamscope {
namespace {

// One prepared INSERT, bound left to right: Int(..).Null().Text(..).Done().
// The first bind error is kept and returned by Done().
class Insert {
 public:
  explicit Insert(SqliteStatement stmt) : stmt_(std::move(stmt)) {}

  Insert& Int(int64_t v) { return Keep(stmt_.BindInt64(++col_, v)); }
  Insert& Null() { return Keep(stmt_.BindNull(++col_)); }
  // NULL when `v` is the model's "absent" value.
  Insert& IntOr(int64_t v, int64_t absent) { return v == absent ? Null() : Int(v); }
  Insert& Text(std::string_view v) { return Keep(stmt_.BindText(++col_, v)); }
  Insert& Real(double v) { return Keep(stmt_.BindDouble(++col_, v)); }

  absl::Status Done() {
    col_ = 0;
    absl::Status status = bind_status_.ok() ? stmt_.Run() : bind_status_;
    if (!bind_status_.ok()) {
      stmt_.Reset();
      stmt_.ClearBindings();
    }
    bind_status_ = absl::OkStatus();
    if (!status.ok()) {
      return absl::InternalError(absl::StrCat("writing the trace failed: ", status.message()));
    }
    return absl::OkStatus();
  }

 private:
  Insert& Keep(absl::Status s) {
    if (bind_status_.ok()) bind_status_ = std::move(s);
    return *this;
  }
  SqliteStatement stmt_;
  int col_ = 0;
  absl::Status bind_status_;
};

absl::Status Exec(SqliteDb& db, std::string_view sql) {
  absl::Status s = db.Exec(sql);
  if (s.ok()) return s;
  return absl::InternalError(absl::StrCat("writing the trace failed: ", s.message()));
}

absl::StatusOr<Insert> Prepare(SqliteDb& db, std::string_view sql) {
  auto stmt = db.Prepare(sql);
  if (!stmt.ok()) {
    return absl::InternalError(absl::StrCat("preparing '", std::string(sql), "': ", db.LastError()));
  }
  return Insert(std::move(*stmt));
}

// CUpti_ActivityMemcpyKind of a copy category (array and host-to-host copies
// are "other" in the model: written as 0, unknown); unified-memory
// migrations keep their own kinds.
int64_t CopyKindFor(OpCategory c, bool migration) {
  if (migration) {
    switch (c) {
      case OpCategory::kHtoD: return schema::copy_kind::kUvmHtoD;
      case OpCategory::kDtoH: return schema::copy_kind::kUvmDtoH;
      case OpCategory::kDtoD: return schema::copy_kind::kUvmDtoD;
      default: break;
    }
  }
  switch (c) {
    case OpCategory::kHtoD: return schema::copy_kind::kHtoD;
    case OpCategory::kDtoH: return schema::copy_kind::kDtoH;
    case OpCategory::kDtoD: return schema::copy_kind::kDtoD;
    case OpCategory::kPtoP: return schema::copy_kind::kPtoP;
    default: return schema::copy_kind::kUnknown;
  }
}

absl::Status WriteMetadata(SqliteDb& db, const TraceModel& m, const TraceWriteOptions& options) {
  std::map<std::string, std::string> meta = m.metadata;
  meta["schema_version"] = absl::StrCat(schema::Version());
  meta["trace_format"] = options.trace_format;
  meta["source_format"] = m.format;
  if (!options.source_path.empty()) meta["source_path"] = options.source_path;
  meta["pid"] = absl::StrCat(m.pid);
  meta["capture_end"] = "normal_exit";  // the export was of a finished capture
  meta["conversion_notes"] = nlohmann::json(m.notes).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  meta["conversion_stats"] =
      nlohmann::json(m.import_stats).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  auto ins = Prepare(db, "INSERT INTO metadata(key, value) VALUES (?1, ?2)");
  if (!ins.ok()) return ins.status();
  for (const auto& [key, value] : meta)
    if (absl::Status st = ins->Text(key).Text(value).Done(); !st.ok()) return st;
  return absl::OkStatus();
}

absl::Status WriteTopology(SqliteDb& db, const TraceModel& m) {
  auto str = Prepare(db, "INSERT INTO string(id, value) VALUES (?1, ?2)");
  if (!str.ok()) return str.status();
  for (size_t i = 0; i < m.strings.size(); ++i) {
    if (absl::Status st = str->Int(static_cast<int64_t>(i)).Text(m.strings.Get(static_cast<StringId>(i))).Done();
        !st.ok())
      return st;
  }
  auto dev = Prepare(db,
                     "INSERT INTO device(id, name, uuid, compute_major, compute_minor, sm_count, "
                     "async_engine_count, concurrent_kernels, global_memory_bytes) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  if (!dev.ok()) return dev.status();
  std::set<int32_t> written;
  for (const Device& d : m.devices) {
    if (!written.insert(d.id).second) continue;  // one row per ordinal
    if (absl::Status st = dev->Int(d.id)
                              .Text(d.name)
                              .Text(d.uuid)
                              .Int(d.compute_major)
                              .Int(d.compute_minor)
                              .Int(d.sm_count)
                              .IntOr(d.async_engine_count, -1)
                              .IntOr(d.concurrent_kernels, -1)
                              .Int(d.global_memory_bytes)
                              .Done();
        !st.ok())
      return st;
  }
  // Contexts come from the streams: device, and the legacy stream if known.
  struct Ctx {
    int32_t device = 0;
    int64_t null_stream = -1;
  };
  std::map<int64_t, Ctx> contexts;
  for (const Stream& s : m.streams) {
    Ctx& c = contexts[s.context_id];
    c.device = s.device_id;
    if (s.kind == StreamKind::kLegacyDefault) c.null_stream = s.id;
  }
  auto ctx = Prepare(db, "INSERT INTO context(id, device_id, null_stream_id) VALUES (?1, ?2, ?3)");
  if (!ctx.ok()) return ctx.status();
  for (const auto& [id, c] : contexts) {
    if (absl::Status st = ctx->Int(id).Int(c.device).IntOr(c.null_stream, -1).Done(); !st.ok()) return st;
  }
  auto stream =
      Prepare(db, "INSERT INTO stream(id, context_id, device_id, kind, priority) VALUES (?1, ?2, ?3, ?4, ?5)");
  if (!stream.ok()) return stream.status();
  for (const Stream& s : m.streams) {
    stream->Int(s.id).Int(s.context_id).Int(s.device_id).Int(static_cast<int>(s.kind));
    if (s.priority.has_value())
      stream->Int(*s.priority);
    else
      stream->Null();
    if (absl::Status st = stream->Done(); !st.ok()) return st;
  }
  std::map<int64_t, std::string_view> threads;
  for (int64_t tid : m.api.tid) threads.emplace(tid, std::string_view());
  for (const NvtxRange& r : m.nvtx_ranges) threads.emplace(r.tid, std::string_view());
  for (const auto& [tid, name] : m.thread_names) threads[tid] = name;
  auto th = Prepare(db, "INSERT INTO thread(tid, name) VALUES (?1, ?2)");
  if (!th.ok()) return th.status();
  for (const auto& [tid, name] : threads) {
    th->Int(tid);
    if (name.empty())
      th->Null();
    else
      th->Text(name);
    if (absl::Status st = th->Done(); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status WriteOps(SqliteDb& db, const TraceModel& m) {
  auto kernel = Prepare(db,
                        "INSERT INTO kernel(start_ns, end_ns, device_id, context_id, stream_id, correlation_id, "
                        "name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, static_shared_bytes, "
                        "dynamic_shared_bytes, registers_per_thread, graph_id) "
                        "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)");
  if (!kernel.ok()) return kernel.status();
  auto memcpy = Prepare(db,
                        "INSERT INTO memcpy(start_ns, end_ns, device_id, context_id, stream_id, correlation_id, "
                        "bytes, copy_kind, src_kind, dst_kind, is_async, src_device_id, dst_device_id, graph_id) "
                        "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)");
  if (!memcpy.ok()) return memcpy.status();
  auto memset = Prepare(db,
                        "INSERT INTO memset(start_ns, end_ns, device_id, context_id, stream_id, correlation_id, "
                        "bytes, memory_kind, is_async, graph_id) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
  if (!memset.ok()) return memset.status();
  const GpuOps& ops = m.ops;
  const bool shapes = m.kernel_shapes.size() == ops.size();
  for (size_t i = 0; i < ops.size(); ++i) {
    const int32_t si = ops.stream[i];
    const bool has_stream = si >= 0 && static_cast<size_t>(si) < m.streams.size();
    const int64_t stream_id = has_stream ? m.streams[si].id : -1;
    const int64_t context_id = has_stream ? m.streams[si].context_id : -1;
    OpCategory c = ops.category[i];
    Insert* ins = c == OpCategory::kKernel ? &*kernel : c == OpCategory::kMemset ? &*memset : &*memcpy;
    ins->Int(ops.start_ns[i]).Int(ops.end_ns[i]).Int(ops.device_id[i]).IntOr(context_id, -1);
    // A stream row exists for every model stream, -1 (ops on no stream,
    // e.g. unified-memory migrations) included.
    if (has_stream)
      ins->Int(stream_id);
    else
      ins->Null();
    ins->IntOr(ops.correlation_id[i], -1);
    if (c == OpCategory::kKernel) {
      StringId name = ops.name[i] == kNoString ? StringId{0} : ops.name[i];
      ins->Int(name);
      if (shapes) {
        const KernelShape& k = m.kernel_shapes[i];
        ins->Int(k.grid[0])
            .Int(k.grid[1])
            .Int(k.grid[2])
            .Int(k.block[0])
            .Int(k.block[1])
            .Int(k.block[2])
            .Int(k.shared_bytes)
            .Int(0)
            .Int(k.registers);
      } else {
        for (int n = 0; n < 9; ++n) ins->Null();
      }
    } else if (c == OpCategory::kMemset) {
      ins->Int(ops.bytes[i]).Int(static_cast<int>(ops.dst_kind[i])).Int(ops.is_async[i]);
    } else {
      const bool migration =
          ops.name[i] != kNoString && m.strings.Get(ops.name[i]) == schema::copy_kind::kMigrationOpName;
      ins->Int(ops.bytes[i])
          .Int(CopyKindFor(c, migration))
          .Int(static_cast<int>(ops.src_kind[i]))
          .Int(static_cast<int>(ops.dst_kind[i]))
          .Int(ops.is_async[i]);
      if (c == OpCategory::kPtoP && ops.peer_device[i] >= 0) {
        ins->Int(ops.device_id[i]).Int(ops.peer_device[i]);
      } else {
        ins->Null().Null();
      }
    }
    ins->IntOr(ops.graph_id[i], -1);
    if (absl::Status st = ins->Done(); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status WriteHost(SqliteDb& db, const TraceModel& m) {
  auto api = Prepare(db,
                     "INSERT INTO api_call(domain, cbid, name_id, tid, start_ns, end_ns, correlation_id, "
                     "return_value) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
  if (!api.ok()) return api.status();
  for (size_t i = 0; i < m.api.size(); ++i) {
    if (absl::Status st = api->Int(static_cast<int>(m.api.domain[i]))
                              .Int(m.api.cbid[i])
                              .Int(m.api.name[i])
                              .Int(m.api.tid[i])
                              .Int(m.api.start_ns[i])
                              .Int(m.api.end_ns[i])
                              .IntOr(m.api.correlation_id[i], -1)
                              .Int(m.api.return_value[i])
                              .Done();
        !st.ok())
      return st;
  }
  auto sync = Prepare(db,
                      "INSERT INTO sync(kind, start_ns, end_ns, context_id, stream_id, event_id, correlation_id) "
                      "VALUES (?1,?2,?3,?4,?5,?6,?7)");
  if (!sync.ok()) return sync.status();
  for (const SyncRecord& s : m.syncs) {
    const bool has_stream = s.stream >= 0 && static_cast<size_t>(s.stream) < m.streams.size();
    sync->Int(static_cast<int>(s.kind)).Int(s.start_ns).Int(s.end_ns);
    if (has_stream) {
      sync->Int(m.streams[s.stream].context_id).Int(m.streams[s.stream].id);
    } else {
      sync->Null().Null();
    }
    if (absl::Status st = sync->IntOr(s.event_id, -1).IntOr(s.correlation_id, -1).Done(); !st.ok()) return st;
  }
  auto range = Prepare(db,
                       "INSERT INTO nvtx_range(tid, name_id, domain_id, start_ns, end_ns, is_push_pop, depth) "
                       "VALUES (?1,?2,?3,?4,?5,?6,?7)");
  if (!range.ok()) return range.status();
  for (const NvtxRange& r : m.nvtx_ranges) {
    range->Int(r.tid).Int(r.name).IntOr(r.domain, kNoString).Int(r.start_ns);
    if (r.end_ns.has_value())
      range->Int(*r.end_ns);
    else
      range->Null();
    if (absl::Status st = range->Int(r.push_pop ? 1 : 0).Int(r.depth).Done(); !st.ok()) return st;
  }
  auto mark = Prepare(db, "INSERT INTO nvtx_mark(tid, name_id, domain_id, ts_ns) VALUES (?1,?2,?3,?4)");
  if (!mark.ok()) return mark.status();
  for (const NvtxMark& k : m.nvtx_marks) {
    if (absl::Status st = mark->Int(k.tid).Int(k.name).IntOr(k.domain, kNoString).Int(k.ts_ns).Done(); !st.ok())
      return st;
  }
  return absl::OkStatus();
}

absl::Status WriteAll(SqliteDb& db, const TraceModel& m, const TraceWriteOptions& options) {
  // A failed conversion deletes the file, so durability is not needed here.
  if (absl::Status st = Exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"); !st.ok()) return st;
  if (absl::Status st = Exec(db, schema::CreateSql()); !st.ok()) return st;
  if (absl::Status st = Exec(db, "BEGIN"); !st.ok()) return st;
  if (absl::Status st = WriteMetadata(db, m, options); !st.ok()) return st;
  if (absl::Status st = WriteTopology(db, m); !st.ok()) return st;
  if (absl::Status st = WriteOps(db, m); !st.ok()) return st;
  if (absl::Status st = WriteHost(db, m); !st.ok()) return st;
  if (absl::Status st = Exec(db, "COMMIT"); !st.ok()) return st;
  return Exec(db, schema::FinalizeSql());
}

// Names a model string that is always present, so NOT NULL name columns
// can point at it.
bool NeedsEmptyString(const TraceModel& m) {
  for (StringId id : m.api.name)
    if (id == kNoString) return true;
  for (const NvtxRange& r : m.nvtx_ranges)
    if (r.name == kNoString) return true;
  for (const NvtxMark& k : m.nvtx_marks)
    if (k.name == kNoString) return true;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.category[i] == OpCategory::kKernel && m.ops.name[i] == kNoString) return true;
  }
  return false;
}

}  // namespace

std::string ExpandOutputPattern(const std::string& pattern, int64_t pid) {
  return absl::StrReplaceAll(pattern, {{"%p", absl::StrCat(pid)}});
}

absl::Status WriteStreamscopeTrace(const TraceModel& model, const std::string& path, const TraceWriteOptions& options) {
  if (path.empty()) return absl::InvalidArgumentError("no output path given");
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      return absl::PermissionDeniedError(
          absl::StrCat(path, ": is a symbolic link; streamscope does not write through links"));
    }
    if (!S_ISREG(st.st_mode)) {
      return absl::PermissionDeniedError(absl::StrCat(path, ": exists and is not a regular file"));
    }
    if (!options.overwrite) {
      return absl::AlreadyExistsError(absl::StrCat(path, ": exists; pass --force to replace it"));
    }
  } else if (errno != ENOENT) {
    return absl::PermissionDeniedError(absl::StrCat(path, ": ", std::strerror(errno)));
  }

  // Build the database in a fresh file of our own next to the output.
  std::string tmp = absl::StrCat(path, ".tmp-XXXXXX");
  int fd = mkstemp(tmp.data());
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
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
    for (StringId& id : patched.api.name)
      if (id == kNoString) id = empty;
    for (NvtxRange& r : patched.nvtx_ranges)
      if (r.name == kNoString) r.name = empty;
    for (NvtxMark& k : patched.nvtx_marks)
      if (k.name == kNoString) k.name = empty;
    for (size_t i = 0; i < patched.ops.size(); ++i) {
      if (patched.ops.category[i] == OpCategory::kKernel && patched.ops.name[i] == kNoString) {
        patched.ops.name[i] = empty;
      }
    }
    m = &patched;
  }

  auto db = SqliteDb::OpenReadWrite(tmp);
  if (!db.ok()) {
    return fail(absl::PermissionDeniedError(absl::StrCat("cannot open ", tmp, ": ", db.status().message())));
  }
  absl::Status status = WriteAll(**db, *m, options);
  if (!(*db)->Close().ok() && status.ok()) {
    status = absl::InternalError(absl::StrCat("closing ", tmp, " failed"));
  }
  if (!status.ok()) return fail(status);

  // Put it in place: link() never follows or replaces what is at `path`.
  if (options.overwrite && lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      return fail(absl::PermissionDeniedError(absl::StrCat(path, ": is no longer a regular file")));
    }
    if (rename(tmp.c_str(), path.c_str()) != 0) {
      return fail(absl::PermissionDeniedError(absl::StrCat("cannot replace ", path, ": ", std::strerror(errno))));
    }
    return absl::OkStatus();
  }
  if (link(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    return fail(err == EEXIST
                    ? absl::AlreadyExistsError(absl::StrCat(path, ": appeared while converting"))
                    : absl::PermissionDeniedError(absl::StrCat("cannot create ", path, ": ", std::strerror(err))));
  }
  unlink(tmp.c_str());
  return absl::OkStatus();
}

}  // namespace streamscope
